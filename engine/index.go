package engine

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/engine/kv"
	"github.com/dohyo/dohyo/schema"
)

// Secondary indexes (legacy 2i and SAI) are stored in one KV table per
// index (TableSpec ID = the index id, so a re-created index starts empty).
// An entry's row key is the canonical component encoding of the indexed
// term (keycodec_component.go: self-delimiting, ordered as Cassandra
// compares) followed by the base row key it points to; its one cell holds
// that base key. Entries are written blind with every base write (before
// the base cells, in their own Apply) and never deleted: an overwrite, a
// delete or a TTL leaves a stale entry behind, and every read verifies the
// candidate base rows against the query's restrictions, so stale entries
// cost a lookup but never produce a row. See docs/ARCHITECTURE.md.

// qualIndexEntry is the qualifier of an index entry's cell.
var qualIndexEntry = []byte{qMarker}

// indexInfo is the runtime form of one index of a table.
type indexInfo struct {
	ix   *schema.Index
	col  int           // indexed column (tableInfo.cols index)
	spec *kv.TableSpec // the index's KV table
	// term is the type of the indexed term: the column's, or its keys' or
	// values' type; entries(m) uses key then value.
	term *cql.Type
	// lsh: an SAI index on a vector<float, n> column files entries by
	// bucket (ann_lsh.go), not by value.
	lsh *lshIndex
}

func newIndexInfos(ti *tableInfo, opts map[string]string) []*indexInfo {
	var out []*indexInfo
	for _, ix := range ti.t.Indexes {
		c, ok := ti.colIdx[ix.Column]
		if !ok {
			continue
		}
		ii := &indexInfo{ix: ix, col: c, term: ti.cols[c].Type,
			spec: &kv.TableSpec{Keyspace: ti.t.Keyspace, Name: ti.t.Name + "_" + ix.Name, ID: ix.ID, Options: opts}}
		typ := ti.cols[c].Type
		switch ix.Target {
		case cql.IndexKeys:
			ii.term = typ.Elems[0]
		case cql.IndexValues:
			ii.term = typ.Elems[len(typ.Elems)-1]
		}
		col := ti.cols[c]
		if ix.SAI && ix.Target == cql.IndexSimple && typ.Kind == cql.KindVector && typ.Elems[0].Kind == cql.KindFloat &&
			(col.Kind == schema.Regular || col.Kind == schema.Static) {
			ii.lsh = newLSH(ix, typ.Dim)
		}
		out = append(out, ii)
	}
	return out
}

// indexTerm appends the ordered encoding of one indexed value. Types that
// cannot be key components are encoded by their bytes (equality only).
func indexTerm(dst []byte, t *cql.Type, v []byte) []byte {
	var e compEncoder
	out, err := e.appendComponent(dst, t, v)
	if err != nil {
		return appendEscaped(append(dst, mValue), v)
	}
	return out
}

// entryKeys returns the index terms a base mutation writes for index ii
// (one per live indexed value in it).
func (ii *indexInfo) terms(ti *tableInfo, m *kv.Mutation) [][]byte {
	col := ti.cols[ii.col]
	var out [][]byte
	switch col.Kind {
	case schema.PartitionKey, schema.Clustering:
		isHeader, live := false, false
		for _, c := range m.Cells {
			if cv, err := kv.DecodeCellValue(c.Value); err == nil && !cv.Tombstone {
				live = true
				break
			}
		}
		prefix, err := ti.codec.PartitionPrefix(m.Row)
		if err == nil {
			isHeader = len(m.Row) == len(prefix)+1
		}
		if !live || err != nil || (isHeader && col.Kind == schema.Clustering) {
			return nil
		}
		pk, ck, err := ti.codec.DecodeRowKey(m.Row)
		if err != nil {
			return nil
		}
		v := []byte(nil)
		if col.Kind == schema.PartitionKey {
			v = pk[col.Position]
		} else if col.Position < len(ck) {
			v = ck[col.Position]
		}
		if v == nil {
			return nil
		}
		return [][]byte{indexTerm(nil, ii.term, v)}
	}
	q, prefix := ti.quals[ii.col], ti.elemPrefix[ii.col]
	for _, c := range m.Cells {
		cv, err := kv.DecodeCellValue(c.Value)
		if err != nil || cv.Tombstone {
			continue
		}
		switch {
		case bytes.Equal(c.Qualifier, q) && ii.lsh != nil:
			if t := ii.vectorTerm(cv.Data); t != nil {
				out = append(out, t)
			}
		case bytes.Equal(c.Qualifier, q):
			out = append(out, indexTerm(nil, ii.term, cv.Data))
		case prefix != nil && bytes.HasPrefix(c.Qualifier, prefix):
			key := c.Qualifier[len(prefix):]
			typ := col.Type
			switch {
			case ii.ix.Target == cql.IndexKeys:
				out = append(out, indexTerm(nil, ii.term, key))
			case ii.ix.Target == cql.IndexEntries:
				out = append(out, indexTerm(indexTerm(nil, typ.Elems[0], key), typ.Elems[1], cv.Data))
			case typ.Kind == cql.KindSet:
				out = append(out, indexTerm(nil, ii.term, key))
			default: // values of a list or map
				out = append(out, indexTerm(nil, ii.term, cv.Data))
			}
		}
	}
	return out
}

// indexMutations derives the index entries of base mutations.
func indexMutations(st *state, muts []kv.Mutation) []kv.Mutation {
	var out []kv.Mutation
	for i := range muts {
		m := &muts[i]
		ti := st.byID[m.Table.ID]
		if ti == nil || len(ti.indexes) == 0 {
			continue
		}
		var ts int64
		for _, c := range m.Cells {
			ts = max(ts, c.Timestamp)
		}
		for _, ii := range ti.indexes {
			for _, term := range ii.terms(ti, m) {
				out = append(out, entryMutation(ii, term, m.Row, ts))
			}
		}
	}
	return out
}

func entryMutation(ii *indexInfo, term, base []byte, ts int64) kv.Mutation {
	key := append(term, base...)
	return kv.Mutation{Table: ii.spec, Row: key,
		Cells: []kv.Cell{{Qualifier: qualIndexEntry, Timestamp: ts, Value: kv.CellValue{Data: base}.Encode()}}}
}

// apply writes base mutations, their index entries first: a crash between
// the two leaves stale entries (harmless), never base rows that their
// indexes miss. The read lock keeps CREATE INDEX from swapping the schema
// between deriving entries and writing them (see backfillIndexes).
func (e *Engine) apply(ctx context.Context, muts []kv.Mutation) error {
	e.idxMu.RLock()
	defer e.idxMu.RUnlock()
	return e.applyLocked(ctx, muts)
}

// applyLocked is apply for a caller holding idxMu (read).
func (e *Engine) applyLocked(ctx context.Context, muts []kv.Mutation) error {
	if entries := indexMutations(e.st.Load(), muts); len(entries) > 0 {
		if a, ok := e.kv.(kv.AtomicKV); ok && a.AppliesAtomically() {
			return e.kv.Apply(ctx, append(entries, muts...))
		}
		if err := e.kv.Apply(ctx, entries); err != nil {
			return fmt.Errorf("write index entries: %w", err)
		}
	}
	return e.kv.Apply(ctx, muts)
}

// storeState swaps the engine's state, excluding in-flight writes so that
// every write is indexed with either the old or the new set of indexes
// entirely.
func (e *Engine) storeState(st *state) {
	e.idxMu.Lock()
	e.st.Store(st)
	e.idxMu.Unlock()
}

// newIndexes lists the indexes of next that old does not have.
func newIndexes(old, next *state) []*indexInfo {
	have := map[string]bool{}
	for _, ti := range old.tables {
		for _, ii := range ti.indexes {
			have[ii.ix.ID] = true
		}
	}
	var out []*indexInfo
	for _, ti := range next.tables {
		for _, ii := range ti.indexes {
			if !have[ii.ix.ID] {
				out = append(out, ii)
			}
		}
	}
	return out
}

// awaitSchemaPolls waits, on a store shared by several engines, for two
// schema polls of the others (so they have loaded a schema change this
// engine committed and maintain what it added). It waits by time, not for
// the others' reported versions: an engine does not know its peers (the
// members of a serve tier do; see bindings/hbase members).
func (e *Engine) awaitSchemaPolls(ctx context.Context) error {
	if !e.shared || e.opts.SchemaPoll < 0 {
		return nil
	}
	poll := e.opts.SchemaPoll
	if poll == 0 {
		poll = defaultSchemaPoll
	}
	t := time.NewTimer(2*poll + 50*time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// backfillIndexes writes the entries of the rows a table held when its
// index was created. Writes after the schema swap index themselves (apply
// runs under idxMu); on a store shared by several engines the backfill
// first waits for the others to load the new schema (two schema polls),
// so writes they made meanwhile are covered by the scan.
func (e *Engine) backfillIndexes(ctx context.Context, added []*indexInfo) error {
	if len(added) == 0 {
		return nil
	}
	if err := e.awaitSchemaPolls(ctx); err != nil {
		return err
	}
	st := e.st.Load()
	for _, ii := range added {
		var ti *tableInfo
		for _, t := range st.tables {
			for _, x := range t.indexes {
				if x.ix.ID == ii.ix.ID {
					ti = t
				}
			}
		}
		if ti == nil {
			continue // dropped meanwhile
		}
		if err := e.backfill(ctx, ti, ii); err != nil {
			return fmt.Errorf("build index %s: %w", ii.ix.Name, err)
		}
	}
	return nil
}

func (e *Engine) backfill(ctx context.Context, ti *tableInfo, ii *indexInfo) error {
	it, err := e.kv.Scan(ctx, ti.spec, kv.ScanRange{Limit: 1024})
	if err != nil {
		return err
	}
	defer it.Close()
	var batch []kv.Mutation
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := e.kv.Apply(ctx, batch)
		batch = batch[:0]
		return err
	}
	for {
		row, ok := it.Next(ctx)
		if !ok {
			break
		}
		m := kv.Mutation{Table: ti.spec, Row: row.Key, Cells: row.Cells}
		var ts int64
		for _, c := range row.Cells {
			ts = max(ts, c.Timestamp)
		}
		for _, term := range ii.terms(ti, &m) {
			batch = append(batch, entryMutation(ii, term, row.Key, ts))
		}
		if len(batch) >= 256 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	return flush()
}
