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
// so a backend connection's reader never blocks on a slow client. The
// codec (frame headers, segments, compression, the bounds-checked body
// Reader) is package cql/wire; this package decodes requests into proxy
// and bindings types and encodes results. The native-protocol library
// serves as the independent client codec in tests.
//
// The system keyspaces are an ordinary backend (proxy/systemks) that the
// server registers with the coordinator for them; it gives that backend
// what only the server knows: its identity and tier, the address a client
// connected to, its trace sessions, and its relays' own system_schema rows
// (bindings.SchemaRowSource) and trace events (bindings.TraceEventSource).
//
// Which last hop serves a request is the coordinator's decision
// (proxy.Session.RouteFrame): dohyo's execution, or a backend's raw-frame
// relayer (bindings.FrameRelayer, e.g. bindings/cassandra/relay, wired in
// by cmd/dohyo through Config.Relays). For a relayed request the server
// only hands the frame over (relay_route.go; on the fast path the
// connection's pooled asyncRelay is the bindings.RelayReceiver:
// relay_async.go) and writes the answer back; it never imports a relay
// (TestNoRelayDeps).
package cqlserver
