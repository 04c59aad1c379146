// Package faulttest is the engine's fault suite: it runs the wide-column
// engine on a store whose KV seam fails chosen calls (engine/kv/kvfault)
// and checks what a client would see — every failure is a clean
// protocol-level error (a *bindings.Error, never a panic, a hang or a
// success that did not happen) — and what the store keeps once the fault
// is gone: nothing half-applied (a failed write left no row; a secondary
// index agrees with its base table; a failed counter update did not count;
// an LWT whose compare-and-swap failed can be retried and applies once; a
// DDL statement that failed left no table behind that cannot be used).
//
// Each store runs it from its own tests (bindings/embedded on Pebble,
// bindings/hbase on a real HBase):
//
//	faulttest.Run(t, func(t *testing.T) kv.KV { return openStore(t) }, engine.Options{})
package faulttest
