// Package kvfault injects faults at the engine's KV seam, for tests: Wrap
// puts an Injector in front of any kv.KV (the embedded Pebble store, the
// HBase store, a fake), which fails chosen calls — reads, scan steps,
// writes, compare-and-swap of coordination cells, metadata — before they
// reach the store. Injectors combine (Rule: which operations, which table,
// after how many calls, how many times; Any; Switch to install and remove
// one while a store is in use), in the way pebble's errorfs wraps a file
// system.
//
// Nothing here is in the product path: a store is wrapped only by a test
// that asks for it. engine/faulttest runs the engine's fault suite on a
// wrapped store and checks the engine's answers: a clean error to the
// client and nothing half-applied.
package kvfault
