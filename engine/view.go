package engine

import (
	"bytes"
	"context"
	"fmt"
	"sort"

	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/engine/kv"
	"github.com/dohyo/dohyo/schema"
)

// Materialized views are stored as tables of their own (one KV table per
// view, TableSpec ID = the view's id). A view row is a function of exactly
// one base row (the view's key holds every base key column), so it is
// maintained by the writes to that base row: every write to a base table
// with views holds the base partition (coord.go, as LWTs and counters do),
// reads the affected base rows, reconciles them before and after the
// write's cells, and brings each affected view row to the one derived from
// the base row after the write: the changed cells with their base
// timestamps when the stored view row holds nothing newer (incremental),
// else a replacement: a row tombstone at V-1 and the row's cells at V,
// where V is the write's timestamp, or one past the newest cell of the
// view rows involved, so the replacement always wins over earlier
// maintenance of that view row. A view row whose key changed (or whose
// base row died) gets a row tombstone at V. Cells keep the base cells'
// expiry, so TTLs carry over.

var errViewWrite = invalidf("Cannot directly modify a materialized view")

// viewInfo links a view to its base table.
type viewInfo struct {
	vt   *tableInfo
	base *tableInfo
	src  []int // per view column: the base column index
	// keyReg is the base index of the regular column in the view key, or -1.
	keyReg  int
	filters []viewFilter
}

// viewFilter is a restriction of the view's WHERE on a base key column.
type viewFilter struct {
	col  int // base column index
	op   cql.RelOp
	vals [][]byte
}

// linkViews builds the views of every base table of st (by base table id).
func (st *state) linkViews() error {
	for _, ti := range st.tables {
		v := ti.t.View
		if v == nil {
			continue
		}
		base := st.tables[tableKey{ti.t.Keyspace, v.BaseTable}]
		if base == nil {
			return fmt.Errorf("view %s: base table %s missing", ti, v.BaseTable)
		}
		vi := &viewInfo{vt: ti, base: base, keyReg: -1, src: make([]int, len(ti.cols))}
		for i, c := range ti.cols {
			bi, ok := base.colIdx[c.Name]
			if !ok {
				return fmt.Errorf("view %s: column %s missing from base", ti, c.Name)
			}
			vi.src[i] = bi
			if ti.isKey(i) && !base.isKey(bi) {
				vi.keyReg = bi
			}
		}
		if err := vi.parseFilters(v.Where); err != nil {
			return fmt.Errorf("view %s: %w", ti, err)
		}
		if st.views == nil {
			st.views = map[string][]*viewInfo{}
		}
		st.views[base.t.ID] = append(st.views[base.t.ID], vi)
	}
	return nil
}

func (vi *viewInfo) parseFilters(where string) error {
	if where == "" {
		return nil
	}
	p, err := cql.Parse("SELECT * FROM t WHERE " + where)
	if err != nil {
		return err
	}
	for _, r := range p.Stmt.(*cql.Select).Where {
		if r.Op == cql.OpIsNotNull || len(r.Columns) != 1 {
			continue
		}
		bi, ok := vi.base.colIdx[r.Columns[0]]
		if !ok {
			return fmt.Errorf("unknown column %s", r.Columns[0])
		}
		f := viewFilter{col: bi, op: r.Op}
		terms := r.In
		if r.Op != cql.OpIn {
			terms = []cql.Term{r.Value}
		}
		for _, t := range terms {
			b, err := cql.EncodeTerm(vi.base.cols[bi].Type, t, r.Columns[0], nil)
			if err != nil {
				return err
			}
			f.vals = append(f.vals, b)
		}
		vi.filters = append(vi.filters, f)
	}
	return nil
}

// match reports whether a base key value passes the filter.
func (f *viewFilter) match(t *cql.Type, v []byte) bool {
	if f.op == cql.OpIn {
		for _, w := range f.vals {
			if cql.Compare(t, v, w) == 0 {
				return true
			}
		}
		return false
	}
	c := cql.Compare(t, v, f.vals[0])
	switch f.op {
	case cql.OpEq:
		return c == 0
	case cql.OpLt:
		return c < 0
	case cql.OpLte:
		return c <= 0
	case cql.OpGt:
		return c > 0
	case cql.OpGte:
		return c >= 0
	case cql.OpNeq:
		return c != 0
	}
	return false
}

// hasViews reports whether the table has materialized views in st.
func (st *state) hasViews(ti *tableInfo) bool { return len(st.views[ti.t.ID]) > 0 }

// baseRow is one reconciled base row with what view rows need.
type baseRow struct {
	pk, ck [][]byte
	r      *cqlRow
	// exp is when the row stops being live through its marker or cells
	// (0: never); meaningful when r.live.
	exp int64
}

// partState is the base rows of one partition, by row key.
type partState map[string]*baseRow

// viewMutations derives the view updates of base mutations; the caller
// holds the base partitions. ts is the write's timestamp.
func (e *Engine) viewMutations(ctx context.Context, st *state, muts []kv.Mutation, ts int64) ([]kv.Mutation, error) {
	type group struct {
		ti   *tableInfo
		hkey []byte
		muts []*kv.Mutation
	}
	var groups []*group
	byKey := map[string]*group{}
	for i := range muts {
		m := &muts[i]
		ti := st.byID[m.Table.ID]
		if ti == nil || !st.hasViews(ti) {
			continue
		}
		pk, _, err := ti.codec.DecodeRowKey(m.Row)
		if err != nil {
			return nil, err
		}
		hkey, err := ti.codec.PartitionKey(pk)
		if err != nil {
			return nil, err
		}
		k := ti.t.ID + "\x00" + string(hkey)
		g := byKey[k]
		if g == nil {
			g = &group{ti: ti, hkey: hkey}
			byKey[k] = g
			groups = append(groups, g)
		}
		g.muts = append(g.muts, m)
	}
	var out []kv.Mutation
	for _, g := range groups {
		gts := ts
		if len(groups) > 1 {
			gts = 0
			for _, m := range g.muts {
				for _, c := range m.Cells {
					gts = max(gts, c.Timestamp)
				}
			}
		}
		before, err := e.readBase(ctx, g.ti, g.hkey, g.muts)
		if err != nil {
			return nil, err
		}
		after := mergeRows(before, g.muts)
		now := e.nowSeconds()
		bs, err := decodePart(g.ti, g.hkey, before, now)
		if err != nil {
			return nil, err
		}
		as, err := decodePart(g.ti, g.hkey, after, now)
		if err != nil {
			return nil, err
		}
		for _, vi := range st.views[g.ti.t.ID] {
			ms, err := vi.updates(ctx, e, bs, as, gts, now)
			if err != nil {
				return nil, err
			}
			out = append(out, ms...)
		}
	}
	return out, nil
}

// readBase reads the KV rows of a partition that muts can change: the
// header and the rows written, or the whole partition when a partition or
// range tombstone is written.
func (e *Engine) readBase(ctx context.Context, ti *tableInfo, hkey []byte, muts []*kv.Mutation) ([]kv.Row, error) {
	whole := false
	keys := [][]byte{hkey}
	seen := map[string]bool{string(hkey): true}
	for _, m := range muts {
		if !seen[string(m.Row)] {
			seen[string(m.Row)] = true
			keys = append(keys, m.Row)
		}
		if ti.hasCK && bytes.Equal(m.Row, hkey) {
			for _, c := range m.Cells {
				if len(c.Qualifier) > 0 && (c.Qualifier[0] == qRowDel || c.Qualifier[0] == qRange) {
					whole = true
				}
			}
		}
	}
	if !whole {
		rows, err := e.kv.Get(ctx, ti.spec, keys)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", ti, err)
		}
		for i := range rows {
			rows[i].Key = keys[i]
		}
		return rows, nil
	}
	return e.scanPartition(ctx, ti, hkey)
}

// scanPartition reads every KV row of a partition, header first.
func (e *Engine) scanPartition(ctx context.Context, ti *tableInfo, hkey []byte) ([]kv.Row, error) {
	prefix, err := ti.codec.PartitionPrefix(hkey)
	if err != nil {
		return nil, err
	}
	it, err := e.kv.Scan(ctx, ti.spec, kv.ScanRange{Start: prefix, Stop: prefixEnd(prefix)})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", ti, err)
	}
	defer it.Close()
	rows := []kv.Row{{Key: hkey}}
	for {
		r, ok := it.Next(ctx)
		if !ok {
			break
		}
		if bytes.Equal(r.Key, hkey) {
			rows[0] = r
			continue
		}
		rows = append(rows, r)
	}
	return rows, it.Err()
}

// mergeRows returns rows with the mutations' cells merged in (the winner
// per qualifier by Resolve), plus rows the mutations create.
func mergeRows(rows []kv.Row, muts []*kv.Mutation) []kv.Row {
	out := make([]kv.Row, 0, len(rows)+len(muts))
	idx := map[string]int{}
	for _, r := range rows {
		idx[string(r.Key)] = len(out)
		out = append(out, kv.Row{Key: r.Key, Cells: append([]kv.Cell(nil), r.Cells...)})
	}
	for _, m := range muts {
		i, ok := idx[string(m.Row)]
		if !ok {
			i = len(out)
			idx[string(m.Row)] = i
			out = append(out, kv.Row{Key: m.Row})
		}
		cells := out[i].Cells
		for _, c := range m.Cells {
			j := sort.Search(len(cells), func(j int) bool { return bytes.Compare(cells[j].Qualifier, c.Qualifier) >= 0 })
			if j < len(cells) && bytes.Equal(cells[j].Qualifier, c.Qualifier) {
				cells[j] = kv.Resolve(cells[j], c)
				continue
			}
			cells = append(cells, kv.Cell{})
			copy(cells[j+1:], cells[j:])
			cells[j] = c
		}
		out[i].Cells = cells
	}
	return out
}

// decodePart reconciles the KV rows of one partition (header first) into
// its live CQL rows.
func decodePart(ti *tableInfo, hkey []byte, rows []kv.Row, now int64) (partState, error) {
	ps := partState{}
	var hdr *partHeader
	for i, kv := range rows {
		header := bytes.Equal(kv.Key, hkey)
		if i == 0 && !header {
			return nil, fmt.Errorf("widecolumn: view maintenance: partition header missing")
		}
		outer := noDeletion
		if !header {
			outer = hdr.rowDeletion(kv.Key)
		}
		r, h, err := decodeRowOpt(ti, kv, outer, header, now, true)
		if err != nil {
			return nil, err
		}
		if header {
			hdr = h
			hdr.prefix = len(hkey) - 1
			if ti.hasCK {
				continue
			}
		}
		if !r.live {
			continue
		}
		pk, ck, err := ti.codec.DecodeRowKey(kv.Key)
		if err != nil {
			return nil, err
		}
		del := outer
		if header {
			del = hdr.del
		}
		ps[string(kv.Key)] = &baseRow{pk: pk, ck: ck, r: r, exp: rowExpiry(ti, kv, r, del, now)}
	}
	return ps, nil
}

// rowExpiry is when a live row dies if nothing is written to it: never (0)
// when its marker or one of its cells does not expire, else the latest
// expiry among them.
func rowExpiry(ti *tableInfo, row kv.Row, r *cqlRow, del, now int64) int64 {
	var exp int64
	for _, c := range row.Cells {
		if len(c.Qualifier) == 1 && c.Qualifier[0] == qMarker && c.Timestamp > del {
			v, err := kv.DecodeCellValue(c.Value)
			if err == nil && v.Live(now) {
				if v.TTL == 0 {
					return 0
				}
				exp = max(exp, v.Expiry)
			}
		}
	}
	for i, cv := range r.cols {
		if !cv.live || ti.isKey(i) {
			continue
		}
		if cv.et != nil {
			for _, x := range cv.et.exp {
				if x == 0 {
					return 0
				}
				exp = max(exp, x)
			}
			continue
		}
		if cv.ttl == 0 {
			return 0
		}
		exp = max(exp, cv.exp)
	}
	return exp
}

// viewRow is a derived view row: its key and its cells, with the base
// cells' timestamps (the marker's is unset).
type viewRow struct {
	key   []byte
	cells []kv.Cell
}

// derive returns the view row of a live base row, or nil when the row has
// none (a view key column is null, or the view's WHERE excludes it).
func (vi *viewInfo) derive(br *baseRow, now int64) (*viewRow, error) {
	base, vt := vi.base, vi.vt
	value := func(bi int) []byte {
		c := base.cols[bi]
		switch c.Kind {
		case schema.PartitionKey:
			return br.pk[c.Position]
		case schema.Clustering:
			if c.Position < len(br.ck) {
				return br.ck[c.Position]
			}
			return nil
		}
		if cv := br.r.cols[bi]; cv.live {
			return cv.val
		}
		return nil
	}
	for i := range vi.filters {
		f := &vi.filters[i]
		v := value(f.col)
		if v == nil || !f.match(base.cols[f.col].Type, v) {
			return nil, nil
		}
	}
	vpk := make([][]byte, len(vt.pk))
	vck := make([][]byte, len(vt.ck))
	for pos, i := range vt.pk {
		if vpk[pos] = value(vi.src[i]); vpk[pos] == nil {
			return nil, nil
		}
	}
	for pos, i := range vt.ck {
		if vck[pos] = value(vi.src[i]); vck[pos] == nil {
			return nil, nil
		}
	}
	var key []byte
	var err error
	if vt.hasCK {
		key, err = vt.codec.RowKey(vpk, vck)
	} else {
		key, err = vt.codec.PartitionKey(vpk)
	}
	if err != nil {
		return nil, err
	}
	// The row lives as long as the base row, or as its regular key column.
	exp := br.exp
	if vi.keyReg >= 0 {
		if cv := br.r.cols[vi.keyReg]; cv.ttl > 0 {
			exp = cv.exp
		} else {
			exp = 0
		}
	}
	expiring := func(cellExp int64) kv.CellValue {
		if exp > 0 && (cellExp == 0 || exp < cellExp) {
			cellExp = exp
		}
		if cellExp == 0 {
			return kv.CellValue{}
		}
		return kv.CellValue{TTL: int32(max(1, cellExp-now)), Expiry: cellExp}
	}
	row := &viewRow{key: key}
	marker := expiring(0)
	row.cells = append(row.cells, kv.Cell{Qualifier: qualMarker, Value: marker.Encode()})
	for i, bi := range vi.src {
		if vt.isKey(i) {
			continue
		}
		cv := br.r.cols[bi]
		if !cv.live {
			continue
		}
		if !base.cols[bi].Type.MultiCell() {
			v := expiring(cv.exp)
			if cv.ttl > 0 && v.Expiry == cv.exp {
				v.TTL = cv.ttl
			}
			v.Data = cv.val
			row.cells = append(row.cells, kv.Cell{Qualifier: vt.quals[i], Timestamp: cv.ts, Value: v.Encode()})
			continue
		}
		for _, el := range br.r.elems[bi] {
			v := expiring(el.exp)
			v.Data = el.val
			q := append(append([]byte(nil), vt.elemPrefix[i]...), el.key...)
			row.cells = append(row.cells, kv.Cell{Qualifier: q, Timestamp: el.ts, Value: v.Encode()})
		}
	}
	return row, nil
}

// same reports whether two derived rows are identical (key and cells).
func (r *viewRow) same(o *viewRow) bool {
	if !bytes.Equal(r.key, o.key) || len(r.cells) != len(o.cells) {
		return false
	}
	for i := range r.cells {
		if !bytes.Equal(r.cells[i].Qualifier, o.cells[i].Qualifier) || !bytes.Equal(r.cells[i].Value, o.cells[i].Value) {
			return false
		}
	}
	return true
}

// updates returns the view mutations turning the view rows of before into
// those of after. ts is the write's timestamp; the rows are written at ts,
// or just after the newest cell their view rows already hold when that is
// later (a write with an older timestamp), so a replacement always wins.
func (vi *viewInfo) updates(ctx context.Context, e *Engine, before, after partState, ts, now int64) ([]kv.Mutation, error) {
	keys := make([]string, 0, len(before)+len(after))
	for k := range before {
		keys = append(keys, k)
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	type change struct{ old, cur *viewRow }
	var changes []change
	var touched [][]byte
	for _, k := range keys {
		var ch change
		var err error
		if br := before[k]; br != nil {
			if ch.old, err = vi.derive(br, now); err != nil {
				return nil, err
			}
		}
		if br := after[k]; br != nil {
			if ch.cur, err = vi.derive(br, now); err != nil {
				return nil, err
			}
		}
		if ch.old == nil && ch.cur == nil || ch.old != nil && ch.cur != nil && ch.old.same(ch.cur) {
			continue
		}
		changes = append(changes, ch)
		if ch.old != nil {
			touched = append(touched, ch.old.key)
		}
		if ch.cur != nil && (ch.old == nil || !bytes.Equal(ch.old.key, ch.cur.key)) {
			touched = append(touched, ch.cur.key)
		}
	}
	if len(changes) == 0 {
		return nil, nil
	}
	rows, err := e.kv.Get(ctx, vi.vt.spec, touched)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", vi.vt, err)
	}
	existing := make(map[string]kv.Row, len(rows))
	for i, r := range rows {
		existing[string(touched[i])] = r
	}
	wts := ts
	for _, r := range rows {
		for _, c := range r.Cells {
			ts = max(ts, c.Timestamp+1)
		}
	}
	var out []kv.Mutation
	for _, ch := range changes {
		if ch.old != nil && (ch.cur == nil || !bytes.Equal(ch.old.key, ch.cur.key)) {
			out = append(out, kv.Mutation{Table: vi.vt.spec, Row: ch.old.key, Cells: []kv.Cell{tombCell(qualRowDel, ts, now)}})
		}
		if ch.cur == nil {
			continue
		}
		if cells, ok := ch.cur.incremental(existing[string(ch.cur.key)], wts, now); ok {
			if len(cells) > 0 {
				out = append(out, kv.Mutation{Table: vi.vt.spec, Row: ch.cur.key, Cells: cells})
			}
			continue
		}
		out = append(out, ch.cur.mutation(vi.vt.spec, ts, now))
	}
	return out, nil
}

// incremental returns the cells that turn the stored view row ex into r
// keeping the base cells' timestamps (so WRITETIME() of a view column is
// its base cell's), or false when the stored row holds a cell too new for
// that (after a replacement, or a base write with an older timestamp):
// then the row is replaced. ts is the write's timestamp.
func (r *viewRow) incremental(ex kv.Row, ts, now int64) ([]kv.Cell, bool) {
	del := noDeletion
	have := make(map[string]kv.Cell, len(ex.Cells))
	for _, c := range ex.Cells {
		if len(c.Qualifier) == 1 && c.Qualifier[0] == qRowDel {
			del = c.Timestamp
			continue
		}
		have[string(c.Qualifier)] = c
	}
	var out []kv.Cell
	want := make(map[string]bool, len(r.cells))
	for _, c := range r.cells {
		want[string(c.Qualifier)] = true
		cur, ok := have[string(c.Qualifier)]
		if ok && cur.Timestamp > del && bytes.Equal(cur.Value, c.Value) {
			continue // unchanged
		}
		if len(c.Qualifier) == 1 && c.Qualifier[0] == qMarker {
			c.Timestamp = max(ts, del+1)
			if ok {
				c.Timestamp = max(c.Timestamp, cur.Timestamp+1)
			}
			out = append(out, c)
			continue
		}
		if c.Timestamp <= del || ok && c.Timestamp <= cur.Timestamp {
			return nil, false
		}
		out = append(out, c)
	}
	for q, c := range have {
		if want[q] || c.Timestamp <= del {
			continue
		}
		if v, err := kv.DecodeCellValue(c.Value); err != nil || v.Tombstone {
			continue
		}
		if c.Timestamp > ts {
			return nil, false
		}
		out = append(out, tombCell([]byte(q), ts, now))
	}
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(out[i].Qualifier, out[j].Qualifier) < 0 })
	return out, true
}

// mutation writes the row as a replacement: a row tombstone just before ts
// and the cells at ts.
func (r *viewRow) mutation(spec *kv.TableSpec, ts, now int64) kv.Mutation {
	cells := make([]kv.Cell, 0, len(r.cells)+1)
	cells = append(cells, tombCell(qualRowDel, ts-1, now))
	for _, c := range r.cells {
		c.Timestamp = ts
		cells = append(cells, c)
	}
	sort.Slice(cells, func(i, j int) bool { return bytes.Compare(cells[i].Qualifier, cells[j].Qualifier) < 0 })
	return kv.Mutation{Table: spec, Row: r.key, Cells: cells}
}

// withViews adds the view updates of muts; the caller holds their
// partitions. The view rows are written at the write's own timestamp (see
// viewInfo.updates).
func (gs *guards) withViews(ctx context.Context, muts []kv.Mutation) ([]kv.Mutation, error) {
	e := gs.e
	st := e.st.Load()
	if len(st.views) == 0 {
		return muts, nil
	}
	need := false
	var ts int64
	for _, m := range muts {
		if ti := st.byID[m.Table.ID]; ti != nil && st.hasViews(ti) {
			need = true
		}
		for _, c := range m.Cells {
			ts = max(ts, c.Timestamp)
		}
	}
	if !need {
		return muts, nil
	}
	vm, err := e.viewMutations(ctx, st, muts, ts)
	if err != nil {
		return nil, err
	}
	return append(muts, vm...), nil
}
