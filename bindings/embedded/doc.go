// Package embedded is dohyo's default backend: the wide-column engine on
// Pebble, on disk or in memory, with a fault-injection hook for tests.
//
// Store implements kv.KV on Pebble in one of two layouts (Format),
// fixed when the store is created: rows (the default; one Pebble key per
// row, rows.go) or cells (stores created before it; one key per cell,
// keys.go). Every write is a blind Pebble Merge; a registered merge
// operator keeps the winning version of each cell by kv.Resolve,
// so writes never read. Apply commits
// one Pebble batch, so a call is atomic. Durability: the WAL is on for stores
// on disk and, by default, not fsynced per write (see Config).
//
// Backend wraps the engine and the store and is opened from a Config or a
// URL: embedded://memory, embedded:///abs/dir or embedded://./rel/dir, with
// options ?salt=16&cache=64MiB&memtable=16MiB&sync=false.
package embedded
