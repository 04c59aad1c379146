package embedded

import (
	"context"

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
