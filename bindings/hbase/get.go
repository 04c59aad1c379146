package hbase

import (
	"bytes"
	"context"
	"errors"
	"slices"

	"github.com/tsuna/gohbase/hrpc"

	"github.com/dohyo/dohyo/engine/kv"
)

// get reads whole rows. Several keys are grouped by region (regionCache)
// and each group is read with one multiGet, the groups concurrently; keys
// of regions not known yet, and keys a multiGet could not read, are read
// with one gohbase Get each, sent concurrently (gohbase batches those per
// region server), which also teaches the cache their regions. Rows are not
// read from one snapshot.
func (s *Store) get(ctx context.Context, t *kv.TableSpec, keys [][]byte) ([]kv.Row, error) {
	if err := s.check(ctx); err != nil {
		return nil, err
	}
	if t == nil || t.ID == "" {
		return nil, errors.New("hbase: get: spec without ID")
	}
	fq, table := s.names.of(t)
	rows := make([]kv.Row, len(keys))
	for i := range keys {
		rows[i].Key = keys[i]
	}
	if len(keys) == 1 { // a point read: one gohbase Get, waited for
		octx, cancel := oneRPCCtx(ctx, s.opTO)
		defer cancel()
		cells, _, err := s.getRow(octx, table, keys[0])
		if err != nil {
			return nil, s.wrapErr(ctx, "get", err)
		}
		rows[0].Cells = cells
		return rows, nil
	}
	octx, cancel := opCtx(ctx, s.opTO)
	defer cancel()
	r := &rowReader{s: s, ctx: octx, fq: fq, table: table, keys: keys, rows: rows}
	if err := r.read(); err != nil {
		return nil, s.wrapErr(ctx, "get", err)
	}
	return rows, nil
}

// getRow reads one row with one gohbase Get: its cells and the region
// that answered (nil when k cannot be an HBase row key).
func (s *Store) getRow(ctx context.Context, table, k []byte) ([]kv.Cell, hrpc.RegionInfo, error) {
	if !validRowKey(k) {
		return nil, nil, nil // no such HBase row can exist
	}
	direct := s.beginPoint()
	defer s.endPoint()
	var g *hrpc.Get
	var err error
	if direct {
		g, err = hrpc.NewGet(ctx, table, k, hrpc.SkipBatch())
	} else {
		g, err = hrpc.NewGet(ctx, table, k)
	}
	if err != nil {
		return nil, nil, err
	}
	res, err := s.client.Get(g)
	if err != nil {
		return nil, nil, err
	}
	return toCells(res.Cells), g.Region(), nil
}

// rowReader is one Store.get.
type rowReader struct {
	s     *Store
	ctx   context.Context
	fq    string
	table []byte
	keys  [][]byte
	rows  []kv.Row
}

func (r *rowReader) read() error {
	groups, rest := r.group()
	if len(groups) > 0 {
		left := make([][]int, len(groups))
		err := parallel(len(groups), func(i int) (err error) {
			left[i], err = r.multi(groups[i])
			return err
		})
		if err != nil {
			return err
		}
		for _, l := range left {
			rest = append(rest, l...)
		}
	}
	if len(rest) == 0 {
		return nil
	}
	return r.single(rest)
}

// group sorts the readable keys and splits them by known region; rest are
// the positions of keys in no known region.
func (r *rowReader) group() (groups [][]int, rest []int) {
	order := make([]int, 0, len(r.keys))
	for i, k := range r.keys {
		if validRowKey(k) { // no other HBase row can exist
			order = append(order, i)
		}
	}
	rs := r.s.regions.regions(r.fq)
	if len(rs) == 0 {
		return nil, order
	}
	slices.SortFunc(order, func(a, b int) int { return bytes.Compare(r.keys[a], r.keys[b]) })
	cur, start := -1, 0
	flush := func(end int) {
		if cur >= 0 && end > start {
			groups = append(groups, order[start:end:end])
		}
	}
	for j, i := range order {
		if cur >= 0 {
			if stop := rs[cur].StopKey(); len(stop) == 0 || bytes.Compare(r.keys[i], stop) < 0 {
				continue
			}
		}
		flush(j)
		cur, start = locate(rs, r.keys[i]), j
		if cur < 0 {
			rest = append(rest, i)
			start = j + 1
		}
	}
	flush(len(order))
	return groups, rest
}

// multi reads the keys at positions idx (sorted by key, one region as far
// as the cache knows) with one multiGet and returns the positions it left.
func (r *rowReader) multi(idx []int) ([]int, error) {
	keys := make([][]byte, len(idx))
	for j, i := range idx {
		keys[j] = r.keys[i]
	}
	m := newMultiGet(r.ctx, r.table, keys)
	msg, err := r.s.rpc.SendRPC(m)
	if err != nil {
		return nil, err
	}
	r.s.regions.learn(r.fq, m.reg)
	return m.results(msg, idx, r.rows)
}

// single reads the keys at positions idx with one gohbase Get each, sent
// concurrently (each written by its caller or queued for gohbase's
// batching writer as Store.beginPoint decides), and records the regions
// they went to.
func (r *rowReader) single(idx []int) error {
	one := func(j int) error {
		cells, reg, err := r.s.getRow(r.ctx, r.table, r.keys[idx[j]])
		if err != nil {
			return err
		}
		r.rows[idx[j]].Cells = cells
		if reg != nil && len(idx) > 1 {
			r.s.regions.learn(r.fq, reg)
		}
		return nil
	}
	if len(idx) == 1 {
		return one(0)
	}
	return parallel(len(idx), one)
}

// validRowKey reports whether an HBase row can have key k (1 to
// maxRowLength bytes).
func validRowKey(k []byte) bool { return len(k) > 0 && len(k) <= maxRowLength }
