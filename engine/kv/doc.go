// Package kv is the seam between dohyo's wide-column engine (package
// engine) and the ordered key-value stores it runs on (bindings/embedded on
// Pebble, bindings/hbase on HBase): the KV interface, the optional
// capabilities a store declares by implementing one-method interfaces
// (AtomicKV, CopyingKV, SettlingKV, CondKV, SharedSchema), and the cell
// value format and reconciliation rule (cell.go) that both sides share.
//
// Stores import this package only, never the engine: the seam is small
// enough to implement on any store with ordered keys, and the conformance
// suite kvtest checks an implementation against it.
package kv
