package cqlserver

import "github.com/dohyo/dohyo/bindings/cassandra/relay"

// The fast path's side of the relay's callback interfaces: asyncRelay is
// a relay.Expirer (Deliver is in relay_async.go), and the answers a
// backend connection's reader holds back (heldAnswers) are kept in its
// relay.Held as a relay.Releaser.

// Expire implements relay.Expirer (expire).
func (x *asyncRelay) Expire() bool { return x.expire() }

// Expired implements relay.Expirer (expired).
func (x *asyncRelay) Expired() { x.expired() }

// Release sends the held answers (relay.Releaser): the backend
// connection's reader calls it before it waits for Cassandra again.
func (h *heldAnswers) Release() { h.send() }

// heldOn returns the answers held on a backend connection's reader (hold:
// relay.Held), made at its first answer. Reader goroutine only.
func heldOn(hold *relay.Held) *heldAnswers {
	if h, ok := hold.Releaser().(*heldAnswers); ok {
		return h
	}
	h := &heldAnswers{}
	hold.SetReleaser(h)
	return h
}
