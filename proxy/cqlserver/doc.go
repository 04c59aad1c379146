// Package cqlserver is the CQL native-protocol server (v3, v4, v5): handshake,
// compression, stream ids, virtual system tables, and hand-off to the proxy.
package cqlserver
