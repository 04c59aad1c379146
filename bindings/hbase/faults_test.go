package hbase

import (
	"testing"

	"github.com/dohyo/dohyo/engine"
	"github.com/dohyo/dohyo/engine/faulttest"
	"github.com/dohyo/dohyo/engine/kv"
)

// TestEngineFaults runs the engine's fault suite (engine/faulttest) on the
// HBase store: KV calls fail at chosen points (reads, scan steps, writes,
// the coordination cells' compare-and-swap, DDL), the engine answers with
// a clean error and leaves nothing half-applied. HBase applies a call's
// rows one by one, so index entries and base rows are separate calls here:
// the suite fails between them.
func TestEngineFaults(t *testing.T) {
	faulttest.Run(t, func(t *testing.T) kv.KV { return openTestStore(t) }, engine.Options{DropInBackground: true})
}
