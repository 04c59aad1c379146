package engine_test

import (
	"context"
	"testing"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/bindingtest"
	"github.com/dohyo/dohyo/engine"
	"github.com/dohyo/dohyo/engine/kv"
	"github.com/dohyo/dohyo/engine/kv/kvtest"
)

// TestConformance runs the shared scenario suite on the engine over the
// in-memory test KV (the embedded backend runs it over Pebble).
func TestConformance(t *testing.T) {
	bindingtest.Run(t, func(t *testing.T) bindings.Backend {
		e, err := engine.New(context.Background(), engine.NewMemKV(), engine.Options{Salt: 4})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	},
		// Features beyond DESIGN D3 may be refused cleanly (Unsupported).
		bindingtest.AllowUnsupported("beyond-d3"),
		// Statements the CQL parser or the schema package rejects before the
		// engine sees them; owned and tracked there.
	)
}

// TestMemKV checks the test store against the KV conformance suite, so the
// engine tests run on a faithful fake.
func TestMemKV(t *testing.T) {
	kvtest.Run(t, func(t *testing.T) kv.KV { return engine.NewMemKV() })
}
