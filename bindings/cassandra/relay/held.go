package relay

// Held are answers a backend connection's reader holds back while it has
// more responses buffered: handed to the clients' writers together, they
// leave in fewer writes (a writer woken by the first answer would write it
// alone). A Waiter that answers its client on the reader adds the answer
// to its Response's Hold instead of sending it; the reader sends them all
// before it waits for Cassandra again.
type Held struct {
	a []heldAnswer
}

// An Answerer sends a relayed request's answer frame to its client.
type Answerer interface {
	Answer(frame []byte)
}

type heldAnswer struct {
	to    Answerer
	frame []byte
}

// Add holds frame for to until the reader sends the held answers.
func (h *Held) Add(to Answerer, frame []byte) { h.a = append(h.a, heldAnswer{to, frame}) }

func (h *Held) send() {
	for i, a := range h.a {
		a.to.Answer(a.frame)
		h.a[i] = heldAnswer{}
	}
	h.a = h.a[:0]
}
