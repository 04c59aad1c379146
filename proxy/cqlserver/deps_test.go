package cqlserver

import (
	"testing"

	"github.com/dohyo/dohyo/internal/deptest"
)

// TestNoRelayDeps: the server is connections, handshake, auth,
// compression and framing; the raw-frame last hop is a backend capability
// (bindings.FrameRelayer) that cmd/dohyo wires in, so neither the server
// nor anything it imports depends on the Cassandra relay
// (docs/ARCHITECTURE.md).
func TestNoRelayDeps(t *testing.T) {
	deptest.Forbid(t, "github.com/dohyo/dohyo/bindings", "github.com/dohyo/dohyo/bindings/cassandra")
}
