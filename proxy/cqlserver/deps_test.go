package cqlserver

import (
	osexec "os/exec"
	"slices"
	"strings"
	"testing"
)

// TestNoRelayDeps: the server is connections, handshake, auth,
// compression and framing; the raw-frame last hop is a backend capability
// (bindings.FrameRelayer) that cmd/dohyo wires in, so neither the server
// nor anything it imports depends on the Cassandra relay
// (docs/ARCHITECTURE.md).
func TestNoRelayDeps(t *testing.T) {
	gobin, err := osexec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	out, err := osexec.Command(gobin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/dohyo/dohyo/bindings") {
		t.Fatalf("go list -deps lists no bindings: %q", deps)
	}
	for _, p := range deps {
		if strings.HasPrefix(p, "github.com/dohyo/dohyo/bindings/cassandra") {
			t.Errorf("the CQL server depends on %s", p)
		}
	}
}
