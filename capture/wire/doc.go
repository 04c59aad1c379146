// Package wire turns captured TCP segments of CQL connections into
// capture records: the importer behind `dohyo capture import --pcap` and
// `dohyo capture sniff`.
//
// A Decoder keeps a table of TCP connections to the configured server
// ports. Each direction is reassembled (out-of-order segments are held,
// retransmissions trimmed, both counted); a hole that the peer's
// acknowledgements prove lost, or that outgrows the connection's memory
// cap, ends decoding of that connection with a counted reason. The
// reassembled bytes are cut into CQL frames of protocol v3-v5 with the
// codecs of package cql/wire: frame-body LZ4/Snappy compression
// negotiated in STARTUP, and v5 segments (CRC24/CRC32, LZ4). Requests are
// paired with responses by stream id and each QUERY, EXECUTE and BATCH
// child becomes a capture.Record with its outcome, latency, result kind,
// row count and rows digest, as the proxy records them; each connection
// is a session whose keyspace follows USE.
//
// EXECUTE of an id prepared earlier in the stream carries the prepared
// text. Ids prepared before the capture began are resolved from
// Config.Prepared (a first pass over a file), from PREPAREs later in the
// stream (the records wait, bounded, for them) or from Config.Resolve (a
// server's system.prepared_statements), else counted as unresolved.
// Connections already open when the capture began are decoded when their
// framing can be inferred from the first bytes (a frame header or a v5
// segment header with a valid CRC), TLS connections are detected and
// skipped. Memory is bounded per connection and in total; what is
// dropped past the caps is counted, never fatal.
package wire
