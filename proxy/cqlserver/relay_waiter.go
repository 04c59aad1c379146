package cqlserver

import "github.com/dohyo/dohyo/bindings"

// The answers a backend connection's reader holds back (heldAnswers) are
// kept in its bindings.RelayHold as a bindings.Releaser.

// Release sends the held answers (bindings.Releaser): the backend
// connection's reader calls it before it waits for Cassandra again.
func (h *heldAnswers) Release() { h.send() }

// heldOn returns the answers held on a backend connection's reader (hold:
// bindings.RelayHold), made at its first answer. Reader goroutine only.
func heldOn(hold *bindings.RelayHold) *heldAnswers {
	if h, ok := hold.Releaser().(*heldAnswers); ok {
		return h
	}
	h := &heldAnswers{}
	hold.SetReleaser(h)
	return h
}
