package embedded

import (
	"bytes"
	"context"
	"errors"

	"github.com/cockroachdb/pebble/v2"

	"github.com/dohyo/dohyo/bindings/widecolumn"
)

// get reads whole rows from one consistent view of the table: one iterator
// for all keys, bounded to each row in turn (so a seek never looks past the
// row's cells). The cells of all rows share one slice and their bytes one
// arena, so a point read allocates the rows, one cell slice and one buffer
// whatever the number of cells.
func (s *Store) get(ctx context.Context, t *widecolumn.TableSpec, keys [][]byte) ([]widecolumn.Row, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := s.acquire(); err != nil {
		return nil, err
	}
	defer s.release()
	p, err := s.prefix(t)
	if err != nil {
		return nil, wrapErr("get", err)
	}
	if s.format == FormatRows {
		return s.getRows(ctx, p, keys)
	}
	var (
		rows   []widecolumn.Row
		cells  []widecolumn.Cell
		bounds rowBounds
		arena  cellArena
	)
	switch len(keys) {
	case 0:
		return []widecolumn.Row{}, nil
	case 1:
		// A point read: rows, cells, bounds and cell bytes in one allocation.
		pr := new(pointRead)
		rows, cells = pr.rows[:], pr.cells[:0]
		bounds.buf, arena.buf = pr.bounds[:0], pr.bytes[:0]
	default:
		rows = make([]widecolumn.Row, len(keys))
		cells = make([]widecolumn.Cell, 0, min(cellsPerRowHint*len(keys), maxCellsHint))
	}
	lo, hi := bounds.set(p, keys[0])
	it, err := s.db.NewIterWithContext(ctx, &pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return nil, wrapErr("get", err)
	}
	defer it.Close()
	for i, k := range keys {
		if i > 0 {
			if i%64 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			it.SetBounds(bounds.set(p, k))
		}
		rows[i].Key = k
		start := len(cells)
		for ok := it.First(); ok; ok = it.Next() {
			c, row, err := arena.readCell(it)
			if err != nil {
				return nil, wrapErr("get", err)
			}
			if string(row) == string(k) { // always, for prefix-free keys
				cells = append(cells, c)
			}
		}
		if err := it.Error(); err != nil {
			return nil, wrapErr("get", err)
		}
		if len(cells) > start {
			rows[i].Cells = cells[start:len(cells):len(cells)]
			sortCells(rows[i].Cells)
		}
	}
	return rows, nil
}

// pointRead is the memory of a one-key get: the row, room for its first
// cells and their bytes, and the iterator bounds (which Pebble copies).
type pointRead struct {
	rows   [1]widecolumn.Row
	cells  [cellsPerRowHint]widecolumn.Cell
	bounds [64]byte
	bytes  [256]byte
}

// Capacity hints of get's shared cell slice: a row marker and a few
// columns per row, bounded so a large multi-get does not over-allocate.
const (
	cellsPerRowHint = 4
	maxCellsHint    = 1024
)

// getRows is get in the rows layout: a point read is one Pebble Get; a
// multi-key read seeks one iterator (one consistent view) to each row.
func (s *Store) getRows(ctx context.Context, p []byte, keys [][]byte) ([]widecolumn.Row, error) {
	if len(keys) == 0 {
		return []widecolumn.Row{}, nil
	}
	if len(keys) == 1 {
		pr := new(pointRead)
		arena := cellArena{buf: pr.bytes[:0]}
		key := append(append(pr.bounds[:0], p...), keys[0]...)
		pr.rows[0].Key = keys[0]
		v, closer, err := s.db.Get(key)
		if errors.Is(err, pebble.ErrNotFound) {
			return pr.rows[:], nil
		}
		if err != nil {
			return nil, wrapErr("get", err)
		}
		cells, err := arena.readRow(v, pr.cells[:0])
		closer.Close()
		if err != nil {
			return nil, wrapErr("get", err)
		}
		if len(cells) > 0 {
			pr.rows[0].Cells = cells
		}
		return pr.rows[:], nil
	}
	rows := make([]widecolumn.Row, len(keys))
	cells := make([]widecolumn.Cell, 0, min(cellsPerRowHint*len(keys), maxCellsHint))
	var arena cellArena
	it, err := s.db.NewIterWithContext(ctx, &pebble.IterOptions{LowerBound: p, UpperBound: prefixEnd(p)})
	if err != nil {
		return nil, wrapErr("get", err)
	}
	defer it.Close()
	var key []byte
	for i, k := range keys {
		if i%64 == 63 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		rows[i].Key = k
		key = append(append(key[:0], p...), k...)
		if !it.SeekGE(key) || !bytes.Equal(it.Key(), key) {
			if err := it.Error(); err != nil {
				return nil, wrapErr("get", err)
			}
			continue
		}
		v, err := it.ValueAndErr()
		if err != nil {
			return nil, wrapErr("get", err)
		}
		start := len(cells)
		if cells, err = arena.readRow(v, cells); err != nil {
			return nil, wrapErr("get", err)
		}
		if len(cells) > start {
			rows[i].Cells = cells[start:len(cells):len(cells)]
		}
	}
	return rows, nil
}
