package embedded

import (
	"bytes"
	"context"
	"errors"

	"github.com/cockroachdb/pebble/v2"

	"github.com/dohyo/dohyo/engine/kv"
)

// get reads whole rows from one consistent view of the table. The cells of
// all rows share one slice and their bytes one arena, so a point read
// allocates the rows, one cell slice and one buffer whatever the number of
// cells. The layout decides how a row is found: getCells, getRows.
func (s *Store) get(ctx context.Context, t *kv.TableSpec, keys [][]byte) ([]kv.Row, error) {
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
	var g getBuf
	switch len(keys) {
	case 0:
		return []kv.Row{}, nil
	case 1:
		// A point read: rows, cells, key buffer and cell bytes in one allocation.
		pr := new(pointRead)
		g.rows, g.cells = pr.rows[:], pr.cells[:0]
		g.bounds.buf, g.arena.buf = pr.bounds[:0], pr.bytes[:0]
	default:
		g.rows = make([]kv.Row, len(keys))
		g.cells = make([]kv.Cell, 0, min(cellsPerRowHint*len(keys), maxCellsHint))
	}
	for i, k := range keys {
		g.rows[i].Key = k
	}
	if s.format == FormatRows {
		err = s.getRows(ctx, p, keys, &g)
	} else {
		err = s.getCells(ctx, p, keys, &g)
	}
	if err != nil {
		return nil, err
	}
	return g.rows, nil
}

// getBuf is the memory of one get: its rows, their shared cells, the key
// or bounds buffer and the arena of cell bytes.
type getBuf struct {
	rows   []kv.Row
	cells  []kv.Cell
	bounds rowBounds
	arena  cellArena
}

// endRow gives row i the cells appended since start.
func (g *getBuf) endRow(i, start int) {
	if len(g.cells) > start {
		g.rows[i].Cells = g.cells[start:len(g.cells):len(g.cells)]
	}
}

// checkCtx checks ctx every 64 keys of a multi-key get.
func checkCtx(ctx context.Context, i int) error {
	if i > 0 && i%64 == 0 {
		return ctx.Err()
	}
	return nil
}

// getCells is get in the cells layout: one iterator for all keys, bounded
// to each row in turn (so a seek never looks past the row's cells).
func (s *Store) getCells(ctx context.Context, p []byte, keys [][]byte, g *getBuf) error {
	lo, hi := g.bounds.set(p, keys[0])
	it, err := s.db.NewIterWithContext(ctx, &pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return wrapErr("get", err)
	}
	defer it.Close()
	for i, k := range keys {
		if err := checkCtx(ctx, i); err != nil {
			return err
		}
		if i > 0 {
			it.SetBounds(g.bounds.set(p, k))
		}
		start := len(g.cells)
		for ok := it.First(); ok; ok = it.Next() {
			c, row, err := g.arena.readCell(it)
			if err != nil {
				return wrapErr("get", err)
			}
			if string(row) == string(k) { // always, for prefix-free keys
				g.cells = append(g.cells, c)
			}
		}
		if err := it.Error(); err != nil {
			return wrapErr("get", err)
		}
		g.endRow(i, start)
		sortCells(g.rows[i].Cells)
	}
	return nil
}

// pointRead is the memory of a one-key get: the row, room for its first
// cells and their bytes, and the iterator bounds (which Pebble copies) or
// the row's key.
type pointRead struct {
	rows   [1]kv.Row
	cells  [cellsPerRowHint]kv.Cell
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
func (s *Store) getRows(ctx context.Context, p []byte, keys [][]byte, g *getBuf) error {
	if len(keys) == 1 {
		key := append(append(g.bounds.buf[:0], p...), keys[0]...)
		v, closer, err := s.db.Get(key)
		if errors.Is(err, pebble.ErrNotFound) {
			return nil
		}
		if err != nil {
			return wrapErr("get", err)
		}
		g.cells, err = g.arena.readRow(v, g.cells)
		closer.Close()
		if err != nil {
			return wrapErr("get", err)
		}
		g.endRow(0, 0)
		return nil
	}
	it, err := s.db.NewIterWithContext(ctx, &pebble.IterOptions{LowerBound: p, UpperBound: prefixEnd(p)})
	if err != nil {
		return wrapErr("get", err)
	}
	defer it.Close()
	key := g.bounds.buf
	for i, k := range keys {
		if err := checkCtx(ctx, i); err != nil {
			return err
		}
		key = append(append(key[:0], p...), k...)
		if !it.SeekGE(key) || !bytes.Equal(it.Key(), key) {
			if err := it.Error(); err != nil {
				return wrapErr("get", err)
			}
			continue
		}
		v, err := it.ValueAndErr()
		if err != nil {
			return wrapErr("get", err)
		}
		start := len(g.cells)
		if g.cells, err = g.arena.readRow(v, g.cells); err != nil {
			return wrapErr("get", err)
		}
		g.endRow(i, start)
	}
	return nil
}
