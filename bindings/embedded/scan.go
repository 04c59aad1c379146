package embedded

import (
	"bytes"
	"context"
	"slices"
	"sync"

	"github.com/cockroachdb/pebble/v2"

	"github.com/dohyo/dohyo/engine/kv"
	"github.com/dohyo/dohyo/telemetry"
)

// scan returns an iterator over rows in [r.Start, r.Stop). It reads one
// consistent view of the table (a Pebble iterator is point-in-time) and
// holds Pebble resources until Close. r.Limit is only a hint and never
// truncates the scan.
func (s *Store) scan(ctx context.Context, t *kv.TableSpec, r kv.ScanRange) (*rowIter, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := s.acquire(); err != nil {
		return nil, err
	}
	defer s.release()
	p, err := s.prefix(t)
	if err != nil {
		return nil, wrapErr("scan", err)
	}
	rows := s.format == FormatRows
	var opts *pebble.IterOptions
	if rows {
		// One key per row: the row bounds are key bounds.
		opts = rowScanBounds(p, r)
	} else {
		opts = &pebble.IterOptions{LowerBound: p, UpperBound: prefixEnd(p)}
	}
	it, err := s.db.NewIterWithContext(ctx, opts)
	if err != nil {
		return nil, wrapErr("scan", err)
	}
	ri := &rowIter{s: s, it: it, start: r.Start, stop: r.Stop, reverse: r.Reverse, rowKeys: rows}
	ri.position(p)
	s.iterMu.Lock()
	s.iters[ri] = struct{}{}
	s.iterMu.Unlock()
	return ri, nil
}

// rowIter groups Pebble keys into rows. Row bounds are checked on decoded
// row keys, not on Pebble keys: a bound may be a proper prefix-extension of
// a row key (a paging successor), and that row's cells straddle the bound.
type rowIter struct {
	s           *Store
	start, stop []byte
	reverse     bool
	rowKeys     bool // rows layout: one key per row, within the iterator's bounds

	mu     sync.Mutex // Next and Close may race with Store.Close
	span   telemetry.Span
	rows   int // rows returned, counted for span
	it     *pebble.Iterator
	valid  bool // it is positioned on an unread key
	done   bool
	closed bool
	err    error
}

// rowScanBounds are the Pebble key bounds of a scan in the rows layout.
func rowScanBounds(p []byte, r kv.ScanRange) *pebble.IterOptions {
	o := &pebble.IterOptions{LowerBound: p, UpperBound: prefixEnd(p)}
	if r.Start != nil {
		o.LowerBound = append(slices.Clip(p), r.Start...)
	}
	if r.Stop != nil {
		o.UpperBound = append(slices.Clip(p), r.Stop...)
	}
	if o.UpperBound != nil && bytes.Compare(o.LowerBound, o.UpperBound) > 0 {
		o.UpperBound = o.LowerBound // an empty range
	}
	return o
}

func (r *rowIter) position(p []byte) {
	if r.rowKeys {
		if r.reverse {
			r.valid = r.it.Last()
		} else {
			r.valid = r.it.First()
		}
		return
	}
	if !r.reverse {
		if r.start != nil {
			r.valid = r.it.SeekGE(append(slices.Clip(p), r.start...))
		} else {
			r.valid = r.it.First()
		}
		return
	}
	if r.stop == nil {
		r.valid = r.it.Last()
		return
	}
	// The last row of the range may be a proper prefix of stop, with some
	// or all of its cells sorting after stop. If so, the smallest key at or
	// after stop is one of its cells (a row's cells are contiguous): start
	// from that row's last cell.
	stopKey := append(slices.Clip(p), r.stop...)
	if r.it.SeekGE(stopKey) {
		if row, _, err := splitCellKey(r.it.Key()); err == nil && len(row) < len(r.stop) && bytes.HasPrefix(r.stop, row) {
			r.valid = r.it.SeekLT(prefixEnd(append(slices.Clip(p), row...)))
			return
		}
	}
	r.valid = r.it.SeekLT(stopKey)
}

func (r *rowIter) advance() {
	if r.reverse {
		r.valid = r.it.Prev()
	} else {
		r.valid = r.it.Next()
	}
}

// Next returns the next row.
func (r *rowIter) Next(ctx context.Context) (kv.Row, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.done || r.err != nil {
		return kv.Row{}, false
	}
	if err := ctx.Err(); err != nil {
		r.err = err
		return kv.Row{}, false
	}
	for r.rowKeys && r.valid {
		out, err := r.readRow()
		if err != nil {
			r.err = wrapErr("scan", err)
			return kv.Row{}, false
		}
		r.advance()
		if len(out.Cells) == 0 {
			continue // no cells: no row (only a merge of corrupt operands)
		}
		r.rows++
		return out, true
	}
	for !r.rowKeys && r.valid {
		row, _, err := splitCellKey(r.it.Key())
		if err != nil {
			r.err = wrapErr("scan", err)
			return kv.Row{}, false
		}
		before := r.start != nil && bytes.Compare(row, r.start) < 0
		after := r.stop != nil && bytes.Compare(row, r.stop) >= 0
		if (!r.reverse && after) || (r.reverse && before) {
			break
		}
		out, err := r.collect(row)
		if err != nil {
			r.err = wrapErr("scan", err)
			return kv.Row{}, false
		}
		if before || after {
			continue // the row straddling the other bound
		}
		r.rows++
		return out, true
	}
	r.done = true
	if err := r.it.Error(); err != nil {
		r.err = wrapErr("scan", err)
	}
	return kv.Row{}, false
}

// collect reads every cell of the row under the cursor (row aliases the
// current key) and leaves the cursor on the next row.
func (r *rowIter) collect(row []byte) (kv.Row, error) {
	out := kv.Row{Key: append([]byte(nil), row...)}
	for r.valid {
		cr, _, err := splitCellKey(r.it.Key())
		if err != nil {
			return kv.Row{}, err
		}
		if !bytes.Equal(cr, out.Key) {
			break
		}
		c, _, err := readCell(r.it)
		if err != nil {
			return kv.Row{}, err
		}
		out.Cells = append(out.Cells, c)
		r.advance()
	}
	if r.reverse {
		slices.Reverse(out.Cells)
	}
	sortCells(out.Cells)
	return out, nil
}

// readRow decodes the row under the cursor (rows layout) into memory of
// its own: the key and the cells' bytes share one allocation.
func (r *rowIter) readRow() (kv.Row, error) {
	key := r.it.Key()
	if len(key) < prefixLen {
		return kv.Row{}, errCorruptKey
	}
	v, err := r.it.ValueAndErr()
	if err != nil {
		return kv.Row{}, err
	}
	row := key[prefixLen:]
	buf := make([]byte, len(row)+len(v))
	copy(buf[copy(buf, row):], v)
	out := kv.Row{Key: buf[:len(row):len(row)]}
	if out.Cells, err = decodeRowCells(buf[len(row):], make([]kv.Cell, 0, cellsPerRowHint)); err != nil {
		return kv.Row{}, err
	}
	return out, nil
}

// Err reports the error that ended the scan, if any.
func (r *rowIter) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Close releases the Pebble iterator. It is safe to call more than once.
func (r *rowIter) Close() error {
	r.s.iterMu.Lock()
	if r.s.iters != nil {
		delete(r.s.iters, r)
	}
	r.s.iterMu.Unlock()
	return r.shut(nil)
}

// shut closes the Pebble iterator once; reason, if set, becomes Err (the
// store closed under an open scan).
func (r *rowIter) shut(reason error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	if reason != nil && r.err == nil && !r.done {
		r.err = reason
	}
	r.span.EndRows("Pebble", r.rows, r.err)
	return wrapErr("scan close", r.it.Close())
}
