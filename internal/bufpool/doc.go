// Package bufpool pools the byte buffers CQL frames are built in, shared
// by the CQL server (proxy/cqlserver) and the Cassandra relay
// (bindings/cassandra/relay), so that a frame built by one and written by
// the other goes back to the one pool.
package bufpool
