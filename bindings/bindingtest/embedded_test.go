package bindingtest_test

import (
	"testing"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/bindingtest"
	"github.com/dohyo/dohyo/bindings/embedded"
	"github.com/dohyo/dohyo/bindings/stores"
	"github.com/dohyo/dohyo/engine"
)

// knownEngineDeviations are scenarios where the wide-column engine still
// answers differently from Cassandra 5.0 (they fail in the engine's own
// TestConformance too). Remove an entry when the engine is fixed.
var knownEngineDeviations = []struct{ pattern, reason string }{}

// TestConformanceEmbedded runs the suite on the embedded backend, in memory
// and on disk (Pebble in a temporary directory).
func TestConformanceEmbedded(t *testing.T) {
	modes := []struct {
		name string
		cfg  func(t *testing.T) embedded.Config
	}{
		{"memory", func(*testing.T) embedded.Config { return embedded.Config{} }},
		{"disk", func(t *testing.T) embedded.Config { return embedded.Config{Dir: t.TempDir()} }},
	}
	opts := []bindingtest.Option{bindingtest.AllowUnsupported("beyond-d3")}
	for _, d := range knownEngineDeviations {
		opts = append(opts, bindingtest.SkipScenarios(d.pattern, d.reason))
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			if testing.Short() && m.name == "disk" {
				t.Skip("disk mode is skipped with -short")
			}
			bindingtest.Run(t, func(t *testing.T) bindings.Backend {
				b, err := stores.Embedded(t.Context(), m.cfg(t), engine.Options{})
				if err != nil {
					t.Fatal(err)
				}
				return b
			}, opts...)
		})
	}
}
