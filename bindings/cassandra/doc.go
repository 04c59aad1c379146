// Package cassandra executes statements on Apache Cassandra for the places
// where dohyo itself is the client (replay, GraphQL on Cassandra keyspaces),
// and discovers Cassandra's schema.
//
// Backend (Open, OpenURL) runs SELECT, INSERT, UPDATE, DELETE and BEGIN
// BATCH statements and unconditional BATCH messages through gocql, with
// values and result cells passed as serialized bytes, unchanged (null stays
// nil, empty stays empty). Because gocql hides some results and refuses USE,
// a small native-protocol client (go-cassandra-native-protocol) handles the
// rest, so every result is exactly Cassandra's:
//
//   - DDL and every other non-DML statement (USE, TRUNCATE, roles): the exact
//     SCHEMA_CHANGE, SET_KEYSPACE or VOID result; after DDL the backend waits
//     for schema agreement and reloads its catalog on next use;
//   - PREPARE (Preparer): bind variables, partition-key indexes, result
//     columns;
//   - conditional BATCH messages (their rows) and statements with tuple bind
//     variables (gocql expands a tuple marker into one value per element);
//     these are prepared and executed, as gocql would.
//
// Keyspaces: gocql binds a session to a keyspace, so the backend keeps one
// gocql session per keyspace in use (opened lazily, at most MaxSessions,
// least recently used closed first, closed when the keyspace is dropped
// through the backend) plus one without a keyspace. Statements are never
// rewritten. A request whose keyspace cannot be used (it does not exist) is
// run by the native client without a keyspace, so Cassandra itself answers.
//
// Catalog (CatalogSource) reads system_schema (keyspaces, tables with their
// options, columns, UDTs, dropped columns) into a schema.Catalog of the user
// keyspaces, versioned by Cassandra's schema version.
//
// NativeBackend runs every request over raw protocol frames with no driver:
// the reference adapter for the conformance suite, usable with any CQL
// endpoint.
//
// The raw-frame relay the CQL server forwards Cassandra keyspaces' frames
// through (RelayTarget says where to) is the subpackage relay.
package cassandra
