// Package widecolumn gives CQL Cassandra's semantics on top of an ordered
// key-value store: row-key and cell encoding (DESIGN D4), a planner and an
// executor. Stores plug in through the small KV interface.
package widecolumn
