package engine

import (
	"bytes"
	"context"
	"fmt"
	"sync"

	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

// current is the state of one row read before a write: the clustering row
// (nil when the statement targets the header) and the static row.
type current struct {
	part    *partition
	row     *cqlRow // live or not; nil for header-only reads
	statics *cqlRow
}

func (c *current) of(ti *tableInfo, col int) *cqlRow {
	if c == nil {
		return nil
	}
	if ti.cols[col].Kind == schema.Static {
		return c.statics
	}
	if c.row == nil && !ti.hasCK && c.part != nil {
		return c.part.noCK
	}
	return c.row
}

// readCurrent reads a partition header and (when ck is set) one row,
// reconciled, keeping collection element keys.
func (x *execCtx) readCurrent(ctx context.Context, ti *tableInfo, pk, ck [][]byte, keep bool) (*current, error) {
	var extra [][]byte
	if ck != nil && ti.hasCK {
		k, err := ti.codec.RowKey(pk, ck)
		if err != nil {
			return nil, err
		}
		extra = [][]byte{k}
	}
	hkey, err := ti.codec.PartitionKey(pk)
	if err != nil {
		return nil, err
	}
	rows, err := x.e.kv.Get(ctx, ti.spec, append([][]byte{hkey}, extra...))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", ti, err)
	}
	if len(rows) != 1+len(extra) {
		return nil, fmt.Errorf("read %s: store returned %d rows", ti, len(rows))
	}
	hrow := rows[0]
	hrow.Key = hkey
	r, hdr, err := decodeRowOpt(ti, hrow, noDeletion, true, x.nowS, keep)
	if err != nil {
		return nil, err
	}
	hdr.prefix = len(hkey) - 1
	r.pk = pk
	part := &partition{pk: pk, key: hkey, hdr: hdr}
	cur := &current{part: part}
	if !ti.hasCK {
		r.ck = [][]byte{}
		part.noCK = r
		cur.row = r
		return cur, nil
	}
	r.static = true
	cur.statics = r
	if r.live {
		hdr.statics = r
	}
	if len(extra) == 1 {
		kv := rows[1]
		kv.Key = extra[0]
		row, _, err := decodeRowOpt(ti, kv, hdr.rowDeletion(extra[0]), false, x.nowS, keep)
		if err != nil {
			return nil, err
		}
		row.pk, row.ck = pk, ck
		cur.row = row
	}
	return cur, nil
}

// assign adds the cells of one SET operation (or INSERT value).
func (p *modPlan) assign(ctx context.Context, x *execCtx, op setOp, key []byte, cur *current, wp writeParams, mb *mutBuilder) error {
	switch op.op {
	case cql.AssignSet:
		return p.assignValue(x, op, key, wp, mb)
	case cql.AssignAdd, cql.AssignAddTo, cql.AssignPrepend, cql.AssignRemove, cql.AssignRemoveFrom:
		return p.assignAddRemove(x, op, key, cur, wp, mb)
	case cql.AssignField:
		return p.assignField(x, op, key, wp, mb)
	case cql.AssignElement:
		if p.ti.cols[op.col].Type.Kind == cql.KindMap {
			return p.assignMapEntry(x, op, key, wp, mb)
		}
		return p.assignListElement(x, op, key, cur, wp, mb)
	}
	return fmt.Errorf("widecolumn: unexpected assignment %v", op.op)
}

// assignValue writes a whole value: c = v (a collection's earlier
// elements deleted).
func (p *modPlan) assignValue(x *execCtx, op setOp, key []byte, wp writeParams, mb *mutBuilder) error {
	ti := p.ti
	col := ti.cols[op.col]
	t := col.Type
	v, unset, err := x.eval(t, op.value, col.Name)
	if err != nil || unset {
		return err
	}
	if t.MultiCell() {
		mb.add(ti, key, tombCell(collDelQual(col.Name), wp.ts-1, wp.now))
		if v == nil {
			return nil
		}
		cells, err := x.collectionCells(ti, op.col, v, wp, false)
		if err != nil {
			return err
		}
		mb.add(ti, key, cells...)
		return nil
	}
	mb.add(ti, key, mb.liveOrTomb(ti.quals[op.col], wp, v))
	return nil
}

// assignAddRemove applies c = c + v, c = v + c or c = c - v: a counter
// increment or decrement, or elements added to or removed from a
// collection.
func (p *modPlan) assignAddRemove(x *execCtx, op setOp, key []byte, cur *current, wp writeParams, mb *mutBuilder) error {
	ti := p.ti
	col := ti.cols[op.col]
	v, unset, err := x.eval(op.vt, op.value, col.Name)
	if err != nil || unset {
		return err
	}
	remove := op.op == cql.AssignRemove || op.op == cql.AssignRemoveFrom
	if col.Type.Kind == cql.KindCounter {
		if v == nil {
			return invalidf("Invalid null value for counter increment/decrement")
		}
		d := int64(be64u(v))
		if remove {
			d = -d
		}
		mb.addCounter(ti, key, op.col, d)
		return nil
	}
	if v == nil {
		return nil
	}
	if !remove {
		cells, err := x.collectionCells(ti, op.col, v, wp, op.op == cql.AssignPrepend)
		if err != nil {
			return err
		}
		mb.add(ti, key, cells...)
		return nil
	}
	return p.removeElements(x, op, key, v, cur, wp, mb)
}

// assignMapEntry applies m[k] = v (a null v deletes the entry).
func (p *modPlan) assignMapEntry(x *execCtx, op setOp, key []byte, wp writeParams, mb *mutBuilder) error {
	ti := p.ti
	col := ti.cols[op.col]
	t := col.Type
	k, err := x.mapKey(t.Elems[0], op.key, "key("+col.Name+")")
	if err != nil {
		return err
	}
	v, unset, err := x.eval(t.Elems[1], op.value, "value("+col.Name+")")
	if err != nil || unset {
		return err
	}
	mb.add(ti, key, mb.liveOrTomb(elemQual(col.Name, k), wp, v))
	return nil
}

// assignListElement applies l[i] = v to an existing element of a list (a
// null v deletes it).
func (p *modPlan) assignListElement(x *execCtx, op setOp, key []byte, cur *current, wp writeParams, mb *mutBuilder) error {
	ti := p.ti
	col := ti.cols[op.col]
	idx, err := x.listIndex(col, op.key)
	if err != nil {
		return err
	}
	v, unset, err := x.eval(col.Type.Elems[0], op.value, "value("+col.Name+")")
	if err != nil || unset {
		return err
	}
	ek, err := listElementKey(ti, cur, op.col, idx, "set an element on")
	if err != nil {
		return err
	}
	mb.add(ti, key, mb.liveOrTomb(elemQual(col.Name, ek), wp, v))
	return nil
}

// listElementKey returns the cell key of element idx of list column c in
// the current row; what names the operation in errors ("set an element
// on": Attempted to set an element on a list which is null).
func listElementKey(ti *tableInfo, cur *current, c, idx int, what string) ([]byte, error) {
	elems := liveElems(cur.of(ti, c), c)
	if len(elems) == 0 {
		return nil, invalidf("Attempted to %s a list which is null", what)
	}
	if idx < 0 || idx >= len(elems) {
		return nil, invalidf("List index %d out of bound, list has size %d", idx, len(elems))
	}
	return elems[idx].key, nil
}

// mapKey evaluates the key of a map entry (or set element) an operation
// names: neither unset nor null.
func (x *execCtx) mapKey(t *cql.Type, term cql.Term, name string) ([]byte, error) {
	k, unset, err := x.eval(t, term, name)
	if err != nil {
		return nil, err
	}
	if unset {
		return nil, invalidf("Invalid unset map key")
	}
	if k == nil {
		return nil, invalidf("Invalid null map key")
	}
	return k, nil
}

func (x *execCtx) listIndex(col *schema.Column, term cql.Term) (int, error) {
	b, unset, err := x.eval(cql.Scalar(cql.KindInt), term, "idx("+col.Name+")")
	if err != nil {
		return 0, err
	}
	if unset {
		return 0, invalidf("Invalid unset value for list index")
	}
	if b == nil {
		return 0, invalidf("Invalid null value for list index")
	}
	return int(int32(be32u(b))), nil
}

func liveElems(r *cqlRow, col int) []elem {
	if r == nil || r.elems == nil {
		return nil
	}
	return r.elems[col]
}

// removeElements handles c = c - v for sets, maps (v is a set of keys) and
// lists (every element equal to one of v's).
func (p *modPlan) removeElements(x *execCtx, op setOp, key, v []byte, cur *current, wp writeParams, mb *mutBuilder) error {
	ti := p.ti
	col := ti.cols[op.col]
	items, err := splitCollection(v, 1)
	if err != nil {
		return invalidf("Invalid collection value for column %s", col.Name)
	}
	switch col.Type.Kind {
	case cql.KindSet, cql.KindMap:
		for _, it := range items {
			if it != nil {
				mb.add(ti, key, tombCell(elemQual(col.Name, it), wp.ts, wp.now))
			}
		}
	case cql.KindList:
		et := col.Type.Elems[0]
		for _, e := range liveElems(cur.of(ti, op.col), op.col) {
			for _, it := range items {
				if it != nil && cql.Compare(et, e.val, it) == 0 {
					mb.add(ti, key, tombCell(elemQual(col.Name, e.key), wp.ts, wp.now))
					break
				}
			}
		}
	}
	return nil
}

// deleteTarget adds the tombstone of one DELETE target.
func (p *modPlan) deleteTarget(x *execCtx, d delTarget, key []byte, pk [][]byte, cur *current, wp writeParams, mb *mutBuilder) error {
	ti := p.ti
	col := ti.cols[d.col]
	if col.Kind == schema.Static && ti.hasCK {
		var err error
		if key, err = ti.codec.PartitionKey(pk); err != nil {
			return err
		}
	}
	if d.field > 0 {
		mb.add(ti, key, tombCell(elemQual(col.Name, udtFieldKey(d.field-1)), wp.ts, wp.now))
		return nil
	}
	if d.key == nil {
		if col.Type.MultiCell() {
			mb.add(ti, key, tombCell(collDelQual(col.Name), wp.ts, wp.now))
		} else {
			mb.add(ti, key, tombCell(ti.quals[d.col], wp.ts, wp.now))
		}
		return nil
	}
	switch col.Type.Kind {
	case cql.KindList:
		idx, err := x.listIndex(col, d.key)
		if err != nil {
			return err
		}
		ek, err := listElementKey(ti, cur, d.col, idx, "delete an element from")
		if err != nil {
			return err
		}
		mb.add(ti, key, tombCell(elemQual(col.Name, ek), wp.ts, wp.now))
	default:
		name := col.Name
		if col.Type.Kind == cql.KindMap {
			name = "key(" + col.Name + ")"
		}
		k, err := x.mapKey(col.Type.Elems[0], d.key, name)
		if err != nil {
			return err
		}
		mb.add(ti, key, tombCell(elemQual(col.Name, k), wp.ts, wp.now))
	}
	return nil
}

// counterDelta is one counter increment, applied by read-modify-write.
type counterDelta struct {
	ti    *tableInfo
	row   []byte
	col   int
	delta int64
}

func (m *mutBuilder) addCounter(ti *tableInfo, row []byte, col int, delta int64) {
	for i := range m.counters {
		c := &m.counters[i]
		if c.ti == ti && c.col == col && bytes.Equal(c.row, row) {
			c.delta += delta
			return
		}
	}
	m.counters = append(m.counters, counterDelta{ti: ti, row: row, col: col, delta: delta})
}

// writePlans collects and writes the cells of non-conditional statements
// (one, or a batch's children) in one KV.Apply. Statements that read before
// writing (list set by index, list removal) and counter updates run holding
// their partitions (see coord.go), so that concurrent ones, in this process
// or another sharing the store, lose nothing; they then also write at a
// timestamp after every other held write of those partitions.
// writePlans applies the writes of plans; bc, for a batch, is checked
// once the mutations are collected (batch_check.go).
func (e *Engine) writePlans(ctx context.Context, plans []*modPlan, xs []*execCtx, bc *batchCheck) error {
	var refs []partRef
	held := func() error {
		for i, p := range plans {
			if p.counter && p.using.ts != nil {
				return invalidf("Cannot provide custom timestamp for counter updates")
			}
			if !p.readRow && !p.counter && !e.st.Load().hasViews(p.ti) {
				continue
			}
			tg, err := p.targets(xs[i])
			if err != nil {
				return err
			}
			for _, pk := range tg.pks {
				hkey, err := p.ti.codec.PartitionKey(pk)
				if err != nil {
					return err
				}
				refs = append(refs, partRef{ti: p.ti, key: hkey})
			}
		}
		return nil
	}
	if err := held(); err != nil {
		return err
	}
	if len(refs) == 0 {
		// A view created meanwhile makes the write a held one (view_build.go).
		if done, err := e.writeUnheld(ctx, plans, xs, bc); done || err != nil {
			return err
		}
		if err := held(); err != nil {
			return err
		}
	}
	gs, err := e.lockParts(ctx, refs)
	if err != nil {
		return err
	}
	for _, p := range plans {
		if p.counter {
			gs.writeType = "COUNTER"
		}
	}
	ts := gs.timestamp()
	for _, x := range xs {
		if !x.hasTS {
			x.ts, x.hasTS = ts, true
		}
	}
	mb, err := e.collectPlans(ctx, plans, xs, bc)
	if err == nil {
		err = e.resolveCounters(ctx, mb, gs.timestamp)
	}
	if err != nil {
		gs.abort(ctx)
		return err
	}
	return gs.commit(ctx, mb.muts)
}

func (e *Engine) collectPlans(ctx context.Context, plans []*modPlan, xs []*execCtx, bc *batchCheck) (*mutBuilder, error) {
	mb := e.getMutBuilder()
	mb.sizing = bc != nil
	if len(plans) == 1 {
		mb.hint = len(plans[0].sets) + 1
	}
	for i, p := range plans {
		wp, err := xs[i].evalUsing(p.ti, p.using)
		if err != nil {
			return nil, err
		}
		if err := p.collect(ctx, xs[i], wp, mb); err != nil {
			return nil, err
		}
	}
	if bc != nil {
		if err := e.checkBatch(bc, plans, mb); err != nil {
			return nil, err
		}
	}
	return mb, nil
}

func (e *Engine) lockIndex(l *sync.Mutex) int {
	for i := range e.locks {
		if &e.locks[i] == l {
			return i
		}
	}
	return -1
}

// resolveCounters reads the current value of every incremented counter and
// adds a cell with the new total, newer than the cell it replaces. The
// caller holds the counters' partitions.
func (e *Engine) resolveCounters(ctx context.Context, mb *mutBuilder, nextTS func() int64) error {
	if len(mb.counters) == 0 {
		return nil
	}
	x := &execCtx{e: e, now: e.clock()}
	x.nowS = x.now.Unix()
	for _, c := range mb.counters {
		pk, ck, err := c.ti.codec.DecodeRowKey(c.row)
		if err != nil {
			return err
		}
		if len(ck) == 0 {
			ck = nil
		}
		cur, err := x.readCurrent(ctx, c.ti, pk, ck, false)
		if err != nil {
			return err
		}
		r := cur.of(c.ti, c.col)
		var total int64
		ts := nextTS()
		if r != nil {
			if cv := r.cols[c.col]; cv.live {
				total = int64(be64u(cv.val))
				if cv.ts >= ts {
					ts = cv.ts + 1
				}
			}
		}
		total += c.delta
		mb.add(c.ti, c.row, liveCell(c.ti.quals[c.col], writeParams{ts: ts, now: x.nowS}, be64(total)))
	}
	return nil
}
