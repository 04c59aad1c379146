// Package wire is the CQL native protocol codec (protocol v3, v4 and v5)
// shared by dohyo's CQL server and its raw-frame relay to Cassandra: frame
// headers, opcodes and flags; a bounds-checked body Reader and the Append
// writers for the protocol's notations ([short], [string], [bytes], ...);
// v5 segments with their CRC24/CRC32 (SegmentReader, SegmentWriter); the
// LZ4 block codec and the frame-body codecs (LZ4, Snappy) with bounded
// decompression; type [option] encoding; and the response-body decoders a
// relay needs (ERROR, Rows, Prepared, SchemaChange).
//
// Bodies are decoded by hand from byte slices rather than through the
// native-protocol library's io.Reader decoders: every length is checked
// against what is left, so a hostile length prefix can never make a reader
// allocate more than the body holds, and values stay zero-copy slices of
// the body. The hot paths (header parsing, the Reader, the Append writers,
// segment reading with a reused buffer) do not allocate.
//
// The package knows nothing of connections, sessions or backends: it
// imports the standard library, package cql (for cql.Type), the
// native-protocol library's constants and CRCs, and Snappy; never
// bindings or proxy.
package wire
