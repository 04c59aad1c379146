package relay

import (
	"testing"

	"github.com/dohyo/dohyo/internal/deptest"
)

// TestNoProxyDeps: the relay is a backend capability; neither it nor
// anything it imports depends on proxy or a package under it
// (docs/ARCHITECTURE.md): the server depends on the relay, not the other
// way round.
func TestNoProxyDeps(t *testing.T) {
	deptest.Forbid(t, "github.com/dohyo/dohyo/cql/wire", "github.com/dohyo/dohyo/proxy")
}
