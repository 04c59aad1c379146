// Package fql reads Cassandra's full query log (FQL, Cassandra 4.0+,
// `nodetool enablefullquerylog`) so that traffic recorded by Cassandra
// itself can be imported as a dohyo capture and replayed.
//
// A full query log is a Chronicle Queue directory: cycle files (.cq4,
// one per roll cycle) of length-prefixed documents in Chronicle Wire's
// self-describing binary encoding (wire.go, queue.go). Each data document
// is one entry written by org.apache.cassandra.fql.FullQueryLogger: a
// single statement or a batch, with its start time, protocol version,
// the native-protocol query parameters (decoded with cql/wire), the
// timestamps Cassandra generated and the connection's keyspace
// (entry.go, options.go). Unknown fields are skipped; entries that cannot
// be decoded are counted by reason, never silently dropped; a live log's
// last entry still being written, or a file cut inside an entry, ends
// that file after its last complete entry.
//
// Reader reads one node's directory in file order; Merge orders the
// entries of several nodes' directories by start time; Records turns an
// entry into capture records (record.go). docs/IMPORT.md says what maps
// to what and what FQL does not record.
package fql
