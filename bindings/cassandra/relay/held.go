package relay

// Held is the server's place on a backend connection's reader for what
// its Waiters defer until the reader has handled the responses it has
// already read: answers held back and handed to the clients' writers
// together leave in fewer writes. The reader releases it before it waits
// for Cassandra again and when it stops. Only Waiters running on that
// reader (Deliver with a Response whose Hold is set) touch it.
type Held struct {
	r Releaser
}

// A Releaser is what a server keeps in a Held: Release sends what it
// holds.
type Releaser interface {
	Release()
}

// Releaser returns what the server keeps here (nil at first).
func (h *Held) Releaser() Releaser { return h.r }

// SetReleaser sets what the server keeps here.
func (h *Held) SetReleaser(r Releaser) { h.r = r }

func (h *Held) send() {
	if h.r != nil {
		h.r.Release()
	}
}
