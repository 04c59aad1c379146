// Package relay is the Cassandra backend's raw-frame relay (DESIGN D2):
// the backend half of relaying CQL native-protocol frames to an Apache
// Cassandra cluster unchanged. A Relay keeps pools of native-protocol
// connections per node, protocol version, credentials and keyspace group
// (USE), a control connection (node discovery, schema and topology
// events, Cassandra's own system_schema rows and tracing events), and the
// registry of prepared statements it re-prepares on UNPREPARED.
//
// The coordinator (proxy) parses, routes, budgets and observes a request,
// and the server (proxy/cqlserver) hands its frame here through the
// relay's bindings capabilities (capabilities.go: bindings.FrameRelayer
// and the one-method interfaces the server finds by type assertion). A
// request with a timeout takes the fast path (frames.go: Relay.pickRoute,
// fastRoute.submit), callback-based: a pooled waiter gets the answer on the
// backend connection's reader, re-prepares on UNPREPARED, remembers
// PREPARE answers and hands the answer to the server's
// bindings.RelayReceiver, with no goroutine or channel per request;
// Relay.Do waits for the answer otherwise. Connections multiplex stream ids,
// answer heartbeats, reconnect with backoff and sweep request deadlines
// with one timer each.
//
// Nodes are up, suspect or down (health.go): a node is down from its first
// failed connection, before the requests waiting there are answered, and
// probed until it answers again; a connection that stays silent with
// requests waiting is probed and, unanswered, closed. Requests go to the
// nodes that are up; a request lost with its connection is sent to the
// next node when the coordinator found it idempotent
// (bindings.RelayRequest.Idempotent), else answered
// bindings.RelayLostError.
//
// The package imports the codec (cql/wire) and bindings, never proxy
// (import_test.go).
package relay
