// Package kvtest is a conformance suite for kv.KV implementations:
// every store (embedded Pebble, HBase) runs the same cases.
//
//	func TestKV(t *testing.T) {
//		kvtest.Run(t, func(t *testing.T) kv.KV { return openStore(t) })
//	}
//
// A store with a documented difference declares it through RunWith, e.g.
// Options{SkipEqualTimestampTies: true} for HBase. Each case creates its
// own tables (unique IDs, keyspace "kvtest") and drops them afterwards, so
// the suite can run against a long-lived server.
package kvtest
