package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/engine/kv"
)

// indexSource is the rowSource of an indexed query: the base rows its
// index entries point to, in merged (token) order, each partition's header
// row first. Candidates are only candidates: runScan applies every
// restriction of the query to the rows (stale entries drop out there).
type indexSource struct {
	ti     *tableInfo
	x      *execCtx
	ranges []KeyRange
	cands  [][]byte // base keys, merged order, deduplicated
	buf    []kv.Row
	err    error
}

// openIndexSource looks the indexed restrictions up and intersects their
// candidate sets.
func (s *selectRun) openIndexSource(ctx context.Context, ranges []KeyRange) (*indexSource, error) {
	ti := s.ti
	src := &indexSource{ti: ti, x: s.x, ranges: ranges}
	var set map[string]bool
	for _, ir := range s.p.index.rels {
		fs, err := s.x.evalFilters(ti, []*restriction{ir.r})
		if err != nil {
			return nil, err
		}
		rg, ok := indexRange(ti, ir.ii, fs[0])
		if !ok {
			return src, nil // a null value matches nothing
		}
		next := map[string]bool{}
		if err := s.x.scanIndex(ctx, ir.ii, rg, func(base []byte) {
			if set == nil || set[string(base)] {
				next[string(base)] = true
			}
		}); err != nil {
			return nil, err
		}
		set = next
		if len(set) == 0 {
			return src, nil
		}
	}
	for k := range set {
		key := []byte(k)
		if src.partitionInRange(key) {
			src.cands = append(src.cands, key)
		}
	}
	slices.SortFunc(src.cands, ti.codec.MergeCompare)
	return src, nil
}

// scanIndex calls fn with the base key of every entry of ii in rg.
func (x *execCtx) scanIndex(ctx context.Context, ii *indexInfo, rg KeyRange, fn func(base []byte)) error {
	return x.scanIndexFn(ctx, ii, rg, 1024, func(base []byte) error { fn(base); return nil })
}

// errStopScan ends scanIndexFn early without an error.
var errStopScan = errors.New("stop index scan")

// scanIndexFn calls fn with the base key of every entry of ii in rg until
// fn fails (hint: the expected number of entries, 0 for none).
func (x *execCtx) scanIndexFn(ctx context.Context, ii *indexInfo, rg KeyRange, hint int, fn func(base []byte) error) error {
	it, err := x.e.kv.Scan(ctx, ii.spec, kv.ScanRange{Start: rg.Start, Stop: rg.Stop, Limit: hint})
	if err != nil {
		return fmt.Errorf("scan index %s: %w", ii.ix.Name, err)
	}
	defer it.Close()
	for {
		row, ok := it.Next(ctx)
		if !ok {
			break
		}
		for _, c := range row.Cells {
			if bytes.Equal(c.Qualifier, qualIndexEntry) {
				if cv, err := kv.DecodeCellValue(c.Value); err == nil && !cv.Tombstone {
					if err := fn(append([]byte(nil), cv.Data...)); err != nil {
						return err
					}
				}
			}
		}
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("scan index %s: %w", ii.ix.Name, err)
	}
	return nil
}

// indexRange is the range of index keys whose terms may satisfy f.
func indexRange(ti *tableInfo, ii *indexInfo, f *evFilter) (KeyRange, bool) {
	if len(f.vals) == 0 || f.vals[0] == nil {
		return KeyRange{}, false
	}
	var term []byte
	if f.key != nil {
		typ := ti.cols[ii.col].Type
		term = indexTerm(indexTerm(nil, typ.Elems[0], f.key), typ.Elems[1], f.vals[0])
	} else {
		term = indexTerm(nil, ii.term, f.vals[0])
	}
	switch f.r.op {
	case cql.OpGt:
		return KeyRange{Start: prefixEnd(term)}, true
	case cql.OpGte:
		return KeyRange{Start: term}, true
	case cql.OpLt:
		return KeyRange{Stop: term}, true
	case cql.OpLte:
		return KeyRange{Stop: prefixEnd(term)}, true
	}
	return KeyRange{Start: term, Stop: prefixEnd(term)}, true
}

// prefixEnd is the smallest key after every key starting with p (nil: no
// bound).
func prefixEnd(p []byte) []byte {
	out := append([]byte(nil), p...)
	for i := len(out) - 1; i >= 0; i-- {
		if out[i] < 0xFF {
			out[i]++
			return out[:i+1]
		}
	}
	return nil
}

func inRange(rs []KeyRange, key []byte) bool {
	for _, r := range rs {
		if (r.Start == nil || bytes.Compare(key, r.Start) >= 0) && (r.Stop == nil || bytes.Compare(key, r.Stop) < 0) {
			return true
		}
	}
	return false
}

// partitionInRange keeps a candidate when some key of it (a row, or any
// row of its partition for a header candidate) lies in the scan's ranges.
func (src *indexSource) partitionInRange(key []byte) bool {
	if inRange(src.ranges, key) {
		return true
	}
	if !src.isHeader(key) || !src.ti.hasCK {
		return false
	}
	prefix, err := src.ti.codec.PartitionPrefix(key)
	if err != nil {
		return false
	}
	last := append(append([]byte(nil), prefix...), keyHigh)
	return inRange(src.ranges, last)
}

func (src *indexSource) isHeader(key []byte) bool {
	prefix, err := src.ti.codec.PartitionPrefix(key)
	return err == nil && len(key) == len(prefix)+1
}

func (src *indexSource) failed() error { return src.err }
func (src *indexSource) close()        {}

func (src *indexSource) seek(_ context.Context, from []byte) error {
	keep := func(k []byte) bool { return src.ti.codec.MergeCompare(k, from) >= 0 }
	src.buf = slices.DeleteFunc(src.buf, func(r kv.Row) bool { return !keep(r.Key) })
	src.cands = slices.DeleteFunc(src.cands, func(k []byte) bool {
		if keep(k) {
			return false
		}
		// A partition candidate stays while part of its partition is ahead.
		if src.isHeader(k) && src.ti.hasCK {
			if prefix, err := src.ti.codec.PartitionPrefix(k); err == nil {
				return !keep(append(append([]byte(nil), prefix...), keyHigh))
			}
		}
		return true
	})
	return nil
}

func (src *indexSource) next(ctx context.Context) (kv.Row, bool) {
	for len(src.buf) == 0 {
		if len(src.cands) == 0 || src.err != nil {
			return kv.Row{}, false
		}
		if err := src.fill(ctx); err != nil {
			src.err = err
			return kv.Row{}, false
		}
	}
	r := src.buf[0]
	src.buf = src.buf[1:]
	return r, true
}

// fill reads the rows of the next candidate partitions: one Get for up to
// 128 keys; a partition candidate (static or partition-key index) of a
// table with clustering columns is scanned whole.
func (src *indexSource) fill(ctx context.Context) error {
	ti := src.ti
	var keys [][]byte
	for len(src.cands) > 0 && len(keys) < 128 {
		prefix, err := ti.codec.PartitionPrefix(src.cands[0])
		if err != nil {
			return err
		}
		header := append(append([]byte(nil), prefix...), keyTerm)
		n := 0
		whole := false
		for n < len(src.cands) && bytes.HasPrefix(src.cands[n], prefix) {
			if len(src.cands[n]) == len(prefix)+1 && ti.hasCK {
				whole = true
			}
			n++
		}
		group := src.cands[:n]
		src.cands = src.cands[n:]
		if whole {
			if len(keys) > 0 {
				// Keep order: read the keys gathered so far first.
				src.cands = append(group, src.cands...)
				break
			}
			return src.scanPartition(ctx, prefix, header)
		}
		keys = append(keys, header)
		for _, k := range group {
			if !bytes.Equal(k, header) {
				keys = append(keys, k)
			}
		}
	}
	rows, err := src.x.e.kv.Get(ctx, ti.spec, keys)
	if err != nil {
		return fmt.Errorf("read %s: %w", ti, err)
	}
	for _, r := range rows {
		if len(r.Cells) > 0 && inRange(src.ranges, r.Key) {
			src.buf = append(src.buf, r)
		}
	}
	return nil
}

func (src *indexSource) scanPartition(ctx context.Context, prefix, header []byte) error {
	it, err := src.x.e.kv.Scan(ctx, src.ti.spec, kv.ScanRange{Start: header, Stop: append(append([]byte(nil), prefix...), keyHigh)})
	if err != nil {
		return fmt.Errorf("scan %s: %w", src.ti, err)
	}
	defer it.Close()
	for {
		r, ok := it.Next(ctx)
		if !ok {
			break
		}
		if inRange(src.ranges, r.Key) {
			src.buf = append(src.buf, r)
		}
	}
	return it.Err()
}
