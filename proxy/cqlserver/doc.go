// Package cqlserver is the CQL native-protocol server (v3, v4, v5) that
// drivers (gocql, the DataStax Python and Java drivers, cqlsh) connect to.
//
// Per connection the calling goroutine reads frames (v5: segments with
// CRC24/CRC32 and optional LZ4), answers the handshake (OPTIONS, STARTUP,
// AUTH_RESPONSE, REGISTER) itself and runs every QUERY, PREPARE, EXECUTE
// and BATCH against a proxy.Session on one of the connection's request
// workers (goroutines reused from request to request, so their stacks are
// not grown anew each time; a new one starts when all are busy). Answers
// go through one queue per connection (conn_write.go): a worker that
// finishes while nobody writes writes its answer itself, with whatever was
// queued meanwhile, in one syscall; relayed answers, handshake replies and
// SCHEMA_CHANGE events are queued for the connection's writer goroutine,
// so a backend connection's reader never blocks on a slow client. Frame bodies
// are decoded by hand from byte slices with every length checked; the
// native-protocol library supplies constants and CRCs here and serves as
// the independent client codec in tests.
//
// The system keyspaces are answered by dohyo (DESIGN D1): a virtual
// backend registered with the coordinator serves system.local and
// system.peers (the dohyo instances are the cluster, each owning evenly
// spaced Murmur3 tokens), system_schema.* and system_virtual_schema.*
// rendered from the merged catalog, and server-side DESCRIBE as cqlsh 6
// sends it.
package cqlserver
