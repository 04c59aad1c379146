// Package relay is the Cassandra backend's raw-frame relay (DESIGN D2):
// the backend half of relaying CQL native-protocol frames to an Apache
// Cassandra cluster unchanged. A Relay keeps pools of native-protocol
// connections per node, protocol version, credentials and keyspace group
// (USE), a control connection (node discovery, schema and topology
// events, Cassandra's own system_schema rows and tracing events), and the
// registry of prepared statements it re-prepares on UNPREPARED.
//
// The server (proxy/cqlserver) parses, authorises, routes, budgets and
// observes a request, then hands its frame body here: Relay.Do waits for
// the answer; the fast path (Relay.Pick, Route.Submit) is callback-based,
// a Waiter getting the answer on the backend connection's reader, with no
// goroutine or channel per request. Connections multiplex stream ids,
// answer heartbeats, reconnect with backoff and sweep request deadlines
// with one timer each.
//
// The package imports the codec (cql/wire) and bindings, never proxy
// (import_test.go).
package relay
