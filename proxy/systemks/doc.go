// Package systemks answers the system keyspaces (system, system_schema,
// system_virtual_schema, system_views, system_auth, system_distributed,
// system_traces) as dohyo itself, one catalog over every backend (DESIGN
// D1). Backend is an ordinary bindings.Backend: the CQL server registers
// it with the coordinator for each of Keyspaces(), and requests reach it
// through the same session, routing and Tap as any other keyspace.
//
// It serves system.local and system.peers/peers_v2 (the dohyo instances
// are the cluster, each owning evenly spaced Murmur3 tokens; a tier's live
// members are listed with their own schema versions), system_schema.* and
// system_virtual_schema.* rendered from the merged catalog (a relayed
// keyspace's rows are its Cassandra's own, through a SchemaSource),
// system_auth from dohyo's roles, system_traces from the trace sessions,
// and server-side DESCRIBE as cqlsh 6 sends it. A small query engine
// (vquery.go) evaluates the SELECT shapes drivers and cqlsh send over rows
// held in memory, cached per catalog version where they depend on nothing
// else.
package systemks
