// Package stores opens dohyo's wide-column engine (package engine) on one
// of its stores: the embedded Pebble store (bindings/embedded) or HBase
// (bindings/hbase). The engine is the bindings.Backend for every store;
// the stores implement the KV seam (engine/kv) only, and hand the engine
// the settings their URL carries (kv.Defaulter). This package is the one
// place that knows both sides: the CLI opens embedded:// and hbase://
// backends here, and tests open engines on a store with it.
package stores
