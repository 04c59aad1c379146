// Package capture records every request and its outcome into compressed,
// self-describing segment files, and reads and merges them back.
//
// A Writer satisfies proxy.Tap structurally: the coordinator hands it a
// bindings.Observation per executed request; Observe copies it into a
// bounded queue (dropping and counting when full, never blocking) and one
// background goroutine encodes records, compresses them into zstd frames
// and writes them to <node>-<start>-<seq>.dcap segments, rotating by size
// and age and deleting old segments beyond a retention budget. Statement
// texts are interned per segment; bound values can be redacted per column.
//
// Reader reads one segment (a torn tail after a crash is reported, not an
// error), Merge reads many segments of many nodes in time order, and
// Inspect, Verify and Dumper back the `dohyo capture` commands. The byte
// format is specified in docs/capture-format.md.
package capture
