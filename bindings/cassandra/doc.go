// Package cassandra is a Backend that executes statements on Apache
// Cassandra through gocql, for the places where dohyo itself is the client
// (replay, GraphQL), and discovers Cassandra's schema.
package cassandra
