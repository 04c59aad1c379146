package fql

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/dohyo/dohyo/capture"
)

// Appender is where imported records go: a *capture.Writer.
type Appender interface {
	Append(ctx context.Context, rec *capture.Record) error
}

// ImportOptions tune Import.
type ImportOptions struct {
	// OneSession puts every node's entries in one capture session, so
	// replay keeps their merged order across nodes. By default each node
	// (input path) is a session of its own: FQL records no client
	// connections, and a node's entries keep their order within it.
	OneSession bool
	// EmptyAsUnset imports every empty value of a protocol v4+ entry as
	// unset. Cassandra's encoder logs an unset value as an empty one, so
	// the log cannot tell them apart; this is right for applications
	// that never write empty strings or blobs.
	EmptyAsUnset bool
	// Progress, when set, is called every ProgressEvery entries.
	Progress      func(entries, records uint64)
	ProgressEvery uint64
}

// ImportStats are what Import did.
type ImportStats struct {
	Entries uint64 // entries imported (a batch counts once)
	Batches uint64
	Records uint64 // capture records written (one per batch child)
	Unset   uint64 // empty values imported as unset (EmptyAsUnset)
}

// emptyToUnset turns empty values into unset ones and counts them.
func emptyToUnset(vs []capture.Value) uint64 {
	var n uint64
	for i := range vs {
		if vs[i].Bytes != nil && len(vs[i].Bytes) == 0 {
			vs[i] = capture.Value{Unset: true}
			n++
		}
	}
	return n
}

// Import appends every entry of m, in merged order, to w as capture
// records. Skipped entries are in m.Stats().
func Import(ctx context.Context, m *Merger, w Appender, opts ImportOptions) (ImportStats, error) {
	var st ImportStats
	seqs := map[uint64]uint64{}
	every := opts.ProgressEvery
	if every == 0 {
		every = 10000
	}
	for {
		e, err := m.Next()
		if errors.Is(err, io.EOF) {
			return st, nil
		}
		if err != nil {
			return st, err
		}
		session := uint64(e.Source) + 1
		if opts.OneSession {
			session = 1
		}
		recs := e.Records()
		if opts.EmptyAsUnset && e.ProtocolVersion >= 4 {
			for i := range recs {
				st.Unset += emptyToUnset(recs[i].Values)
			}
		}
		for i := range recs {
			seqs[session]++
			recs[i].Session, recs[i].Seq = session, seqs[session]
			if err := w.Append(ctx, &recs[i]); err != nil {
				return st, fmt.Errorf("fql import: %s at offset %d: %w", e.File, e.Offset, err)
			}
		}
		st.Entries++
		st.Records += uint64(len(recs))
		if e.Type == TypeBatch {
			st.Batches++
		}
		if opts.Progress != nil && st.Entries%every == 0 {
			opts.Progress(st.Entries, st.Records)
		}
	}
}
