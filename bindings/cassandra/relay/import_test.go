package relay

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestNoProxyDeps: the relay is a backend capability; neither it nor
// anything it imports depends on proxy or a package under it
// (docs/ARCHITECTURE.md): the server depends on the relay, not the other
// way round.
func TestNoProxyDeps(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	out, err := exec.Command(gobin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/dohyo/dohyo/cql/wire") {
		t.Fatalf("go list -deps lists no cql/wire: %q", deps)
	}
	for _, p := range deps {
		if p == "github.com/dohyo/dohyo/proxy" || strings.HasPrefix(p, "github.com/dohyo/dohyo/proxy/") {
			t.Errorf("the relay depends on %s", p)
		}
	}
}
