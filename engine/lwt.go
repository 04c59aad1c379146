package engine

import (
	"bytes"
	"context"
	"sort"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

// condPlan is one IF condition.
type condPlan struct {
	col   int
	op    cql.RelOp
	key   cql.Term // element condition: map key or list index
	value cql.Term
	in    []cql.Term
	vt    *cql.Type // type of the compared value
	field int       // UDT field condition (c.f): field index + 1
}

func (b *planner) planConditions(ti *tableInfo, p *modPlan, conds []cql.Condition) error {
	if !p.conditional() && len(conds) == 0 {
		return nil
	}
	if ti.counter {
		return invalidf("Conditional updates are not supported on counter tables")
	}
	if p.using.ts != nil {
		return invalidf("Cannot provide custom timestamp for conditional updates")
	}
	for _, c := range conds {
		i, err := ti.column(c.Column)
		if err != nil {
			return err
		}
		col := ti.cols[i]
		if ti.isKey(i) {
			return invalidf("PRIMARY KEY column '%s' cannot have IF conditions", col.Name)
		}
		cp := &condPlan{col: i, op: c.Op, key: c.Key, value: c.Value, in: c.In, vt: col.Type}
		name := col.Name
		if c.Field != "" {
			f, err := fieldOf(col, c.Field)
			if err != nil {
				return err
			}
			cp.field, cp.vt = f+1, col.Type.Elems[f]
			name = col.Name + "." + c.Field
		}
		if c.Key != nil {
			switch col.Type.Kind {
			case cql.KindMap:
				b.walkTerm(c.Key, col.Type.Elems[0], "key("+col.Name+")", ti)
				cp.vt = col.Type.Elems[1]
			case cql.KindList:
				b.walkTerm(c.Key, cql.Scalar(cql.KindInt), "idx("+col.Name+")", ti)
				cp.vt = col.Type.Elems[0]
			default:
				return invalidf("Invalid element access syntax for %s column %s", col.Type, col.Name)
			}
			name = "value(" + col.Name + ")"
		}
		switch c.Op {
		case cql.OpContains, cql.OpContainsKey:
			if !col.Type.IsCollection() || c.Key != nil {
				return invalidf("Cannot use %s on non-collection column %s", c.Op, col.Name)
			}
			cp.vt = col.Type.Elems[0]
			if c.Op == cql.OpContains && col.Type.Kind == cql.KindMap {
				cp.vt = col.Type.Elems[1]
			}
			if c.Op == cql.OpContainsKey && col.Type.Kind != cql.KindMap {
				return invalidf("Cannot use CONTAINS KEY on non-map column %s", col.Name)
			}
		case cql.OpLike, cql.OpIsNotNull:
			return invalidf("Unsupported operator %s in condition on %s", c.Op, col.Name)
		case cql.OpLt, cql.OpLte, cql.OpGt, cql.OpGte:
			if cp.vt.Kind == cql.KindDuration {
				return invalidf("Slice conditions ( %s ) are not supported on durations", c.Op)
			}
		}
		if c.Op == cql.OpIn {
			if c.In == nil {
				b.walkTerm(c.Value, cql.ListOf(cp.vt), "in("+col.Name+")", ti)
			}
			for _, v := range c.In {
				b.walkTerm(v, cp.vt, name, ti)
			}
		} else {
			b.walkTerm(c.Value, cp.vt, name, ti)
		}
		p.conds = append(p.conds, cp)
	}
	return nil
}

// holds evaluates a condition against the current row.
func (x *execCtx) condHolds(ti *tableInfo, c *condPlan, cur *current) (bool, error) {
	col := ti.cols[c.col]
	var v []byte
	if r := cur.of(ti, c.col); r != nil && r.cols[c.col].live {
		v = r.cols[c.col].val
	}
	if c.key != nil {
		var err error
		if v, err = x.element(col, c.key, v); err != nil {
			return false, err
		}
	}
	if c.field > 0 {
		v = udtField(v, c.field-1)
	}
	switch c.op {
	case cql.OpIn:
		return x.condInHolds(col, c, v)
	case cql.OpContains, cql.OpContainsKey:
		return x.condContainsHolds(col, c, v)
	}
	w, err := x.condOperand(col, c, c.value)
	if err != nil {
		return false, err
	}
	switch c.op {
	case cql.OpEq:
		return condEqual(c.vt, v, w), nil
	case cql.OpNeq:
		return !condEqual(c.vt, v, w), nil
	}
	if w == nil {
		return false, invalidf("Invalid comparison with null for operator \"%s\"", c.op)
	}
	if v == nil {
		return false, nil
	}
	return opHolds(c.op, cql.Compare(c.vt, v, w)), nil
}

// condOperand evaluates a value a condition on col compares with.
func (x *execCtx) condOperand(col *schema.Column, c *condPlan, t cql.Term) ([]byte, error) {
	b, unset, err := x.eval(c.vt, t, col.Name)
	if err != nil {
		return nil, err
	}
	if unset {
		return nil, invalidf("Invalid 'unset' value in condition")
	}
	return b, nil
}

// condInHolds evaluates c IN (...) or c IN ? for v, the column's value.
func (x *execCtx) condInHolds(col *schema.Column, c *condPlan, v []byte) (bool, error) {
	var cands [][]byte
	if c.in != nil {
		for _, t := range c.in {
			b, err := x.condOperand(col, c, t)
			if err != nil {
				return false, err
			}
			cands = append(cands, b)
		}
	} else {
		list, unset, err := x.eval(cql.ListOf(c.vt), c.value, "in("+col.Name+")")
		if err != nil {
			return false, err
		}
		if unset {
			return false, invalidf("Invalid 'unset' value in condition")
		}
		if list != nil {
			if cands, err = splitCollection(list, 1); err != nil {
				return false, invalidf("Invalid list value for IN condition on %s", col.Name)
			}
		}
	}
	for _, w := range cands {
		if condEqual(c.vt, v, w) {
			return true, nil
		}
	}
	return false, nil
}

// condContainsHolds evaluates c CONTAINS w or c CONTAINS KEY w for v, the
// collection's value.
func (x *execCtx) condContainsHolds(col *schema.Column, c *condPlan, v []byte) (bool, error) {
	w, err := x.condOperand(col, c, c.value)
	if err != nil {
		return false, err
	}
	if w == nil {
		return false, invalidf("Invalid null value for %s condition", c.op)
	}
	if v == nil {
		return false, nil
	}
	per := 1
	if col.Type.Kind == cql.KindMap {
		per = 2
	}
	items, err := splitCollection(v, per)
	if err != nil {
		return false, nil
	}
	for i := 0; i+per <= len(items); i += per {
		e := items[i]
		if c.op == cql.OpContains && per == 2 {
			e = items[i+1]
		}
		if cql.Compare(c.vt, e, w) == 0 {
			return true, nil
		}
	}
	return false, nil
}

// condEqual compares for conditions: null equals null and an empty
// collection.
func condEqual(t *cql.Type, a, b []byte) bool {
	if isNullish(t, a) || isNullish(t, b) {
		return isNullish(t, a) && isNullish(t, b)
	}
	return cql.Compare(t, a, b) == 0
}

func isNullish(t *cql.Type, v []byte) bool {
	if v == nil {
		return true
	}
	return t.IsCollection() && len(v) == 4 && bytes.Equal(v, []byte{0, 0, 0, 0})
}

// element returns m[key] or l[index] of a current collection value.
func (x *execCtx) element(col *schema.Column, key cql.Term, v []byte) ([]byte, error) {
	if col.Type.Kind == cql.KindList {
		idx, err := x.listIndex(col, key)
		if err != nil {
			return nil, err
		}
		if v == nil {
			return nil, nil
		}
		items, err := splitCollection(v, 1)
		if err != nil || idx < 0 || idx >= len(items) {
			return nil, nil
		}
		return items[idx], nil
	}
	k, unset, err := x.eval(col.Type.Elems[0], key, "key("+col.Name+")")
	if err != nil {
		return nil, err
	}
	if unset {
		return nil, invalidf("Invalid 'unset' value in condition")
	}
	if k == nil {
		return nil, invalidf("Invalid null value for map element access")
	}
	if v == nil {
		return nil, nil
	}
	items, err := splitCollection(v, 2)
	if err != nil {
		return nil, nil
	}
	for i := 0; i+1 < len(items); i += 2 {
		if cql.Compare(col.Type.Elems[0], items[i], k) == 0 {
			return items[i+1], nil
		}
	}
	return nil, nil
}

// casTarget is the row one conditional statement applies to.
type casTarget struct {
	p   *modPlan
	x   *execCtx
	pk  [][]byte
	ck  [][]byte // nil: the static row / partition
	key []byte   // row key (header key when ck is nil)
	cur *current
}

// executeCAS runs conditional statements (one, or a batch's) on one
// partition under its stripe lock: read, check every condition, and write
// everything only when all hold.
func (x *execCtx) executeCAS(ctx context.Context, plans []*modPlan, xs []*execCtx, isBatch bool) (*bindings.Result, error) {
	var targets []*casTarget
	var ti *tableInfo
	var partKey []byte
	for i, p := range plans {
		px := xs[i]
		tg, err := p.targets(px)
		if err != nil {
			return nil, err
		}
		what := "updates"
		if p.kind == modDelete {
			what = "deletions"
		}
		if len(tg.pks) != 1 {
			return nil, invalidf("IN on the partition key is not supported with conditional %s", what)
		}
		if len(tg.ev.prefixes) != 1 {
			return nil, invalidf("IN on the clustering key columns is not supported with conditional %s", what)
		}
		if p.kind == modDelete && len(p.dels) == 0 && p.ti.hasCK && !tg.ev.full {
			return nil, invalidf("DELETE statements must restrict all PRIMARY KEY columns with equality relations in order to delete non static columns")
		}
		hkey, err := p.ti.codec.PartitionKey(tg.pks[0])
		if err != nil {
			return nil, err
		}
		if ti == nil {
			ti, partKey = p.ti, hkey
		} else if ti != p.ti {
			return nil, invalidf("Batch with conditions cannot span multiple tables")
		} else if !bytes.Equal(partKey, hkey) {
			return nil, invalidf("Batch with conditions cannot span multiple partitions")
		}
		t := &casTarget{p: p, x: px, pk: tg.pks[0], key: hkey}
		if p.ti.hasCK && !p.staticOnly && tg.ev.full {
			t.ck = tg.ev.prefixes[0]
			if t.key, err = p.ti.codec.RowKey(t.pk, t.ck); err != nil {
				return nil, err
			}
		}
		for _, o := range targets {
			if !bytes.Equal(o.key, t.key) || !o.p.conditional() || !t.p.conditional() {
				continue
			}
			if (o.p.ifExists && t.p.ifNotExist) || (o.p.ifNotExist && t.p.ifExists) {
				return nil, invalidf("Cannot mix IF EXISTS and IF NOT EXISTS conditions for the same row")
			}
			if (o.p.ifNotExist && len(t.p.conds) > 0) || (t.p.ifNotExist && len(o.p.conds) > 0) {
				return nil, invalidf("Cannot mix IF conditions and IF NOT EXISTS for the same row")
			}
		}
		targets = append(targets, t)
	}
	gs, err := x.e.lockParts(ctx, []partRef{{ti: ti, key: partKey}})
	if err != nil {
		return nil, err
	}
	gs.writeType = "CAS"
	applied, err := x.casApply(ctx, gs, ti, targets)
	if err != nil {
		return nil, err
	}
	return casResult(ti, targets, applied, isBatch), nil
}

// casApply evaluates the conditions of targets on the held partition and,
// when all hold, commits their writes; it always releases gs.
func (x *execCtx) casApply(ctx context.Context, gs *guards, ti *tableInfo, targets []*casTarget) (bool, error) {
	applied := true
	for _, t := range targets {
		if !t.p.conditional() {
			continue
		}
		cur, err := t.x.readCurrent(ctx, ti, t.pk, t.ck, t.p.readRow)
		if err != nil {
			gs.abort(ctx)
			return false, err
		}
		t.cur = cur
		ok, err := t.x.casHolds(t, cur)
		if err != nil {
			gs.abort(ctx)
			return false, err
		}
		applied = applied && ok
	}
	if !applied {
		gs.abort(ctx)
		return false, nil
	}
	ts := gs.timestamp()
	mb := &mutBuilder{}
	for _, t := range targets {
		t.x.ts, t.x.hasTS = ts, true
		wp, err := t.x.evalUsing(ti, t.p.using)
		if err == nil {
			err = t.p.collect(ctx, t.x, wp, mb)
		}
		if err != nil {
			gs.abort(ctx)
			return false, err
		}
	}
	if err := gs.commit(ctx, mb.muts); err != nil {
		return false, err
	}
	return true, nil
}

func (x *execCtx) casHolds(t *casTarget, cur *current) (bool, error) {
	p := t.p
	var row *cqlRow
	if t.ck == nil {
		row = cur.statics
		if !p.ti.hasCK {
			row = cur.row
		}
	} else {
		row = cur.row
	}
	exists := row != nil && row.live
	if p.ifNotExist && exists {
		return false, nil
	}
	if p.ifExists && !exists {
		return false, nil
	}
	for _, c := range p.conds {
		ok, err := x.condHolds(p.ti, c, cur)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// casResult builds Cassandra's LWT result: [applied], and when not applied
// the current values of the rows the conditions read.
func casResult(ti *tableInfo, targets []*casTarget, applied bool, isBatch bool) *bindings.Result {
	appliedSpec := ti.specNamed("[applied]", cql.Scalar(cql.KindBoolean))
	res := &bindings.Result{Kind: bindings.ResultRows, Columns: []bindings.ColumnSpec{appliedSpec}}
	if applied {
		res.Rows = [][][]byte{{boolTrue}}
		return res
	}
	// Selected columns: every column when an IF [NOT] EXISTS is involved,
	// else (batches: the primary key, then) the condition columns, regular
	// before static, in IF order.
	wildcard := false
	var cols []int
	seen := map[int]bool{}
	addCol := func(c int) {
		if !seen[c] {
			seen[c] = true
			cols = append(cols, c)
		}
	}
	for _, t := range targets {
		if t.p.ifExists || t.p.ifNotExist {
			wildcard = true
		}
	}
	if wildcard {
		for i := range ti.cols {
			addCol(i)
		}
	} else {
		if isBatch {
			for _, c := range ti.pk {
				addCol(c)
			}
			for _, c := range ti.ck {
				addCol(c)
			}
		}
		for _, t := range targets {
			for _, static := range []bool{false, true} {
				for _, c := range t.p.conds {
					if (ti.cols[c.col].Kind == schema.Static) == static {
						addCol(c.col)
					}
				}
			}
		}
	}
	fetchStatics := false
	for _, c := range cols {
		if ti.cols[c].Kind == schema.Static {
			fetchStatics = true
		}
	}
	for _, c := range cols {
		res.Columns = append(res.Columns, ti.colSpec(c))
	}
	// Rows read by the conditions, in clustering order, once each.
	var rows []*cqlRow
	var statics *cqlRow
	seenKey := map[string]bool{}
	for _, t := range targets {
		if t.cur == nil {
			continue
		}
		if t.cur.statics != nil && t.cur.statics.live {
			statics = t.cur.statics
		}
		r := t.cur.row
		if r == nil || !r.live || seenKey[string(r.key)] {
			continue
		}
		seenKey[string(r.key)] = true
		rows = append(rows, r)
	}
	sort.SliceStable(rows, func(i, j int) bool { return bytes.Compare(rows[i].key, rows[j].key) < 0 })
	if !fetchStatics {
		statics = nil
	}
	if len(rows) == 0 && statics != nil && ti.hasCK {
		rows = append(rows, statics)
	}
	sel := &selection{}
	for _, c := range cols {
		sel.sels = append(sel.sels, selector{kind: selColumn, col: c})
	}
	res.Rows = [][][]byte{}
	for _, r := range rows {
		vals := sel.project(ti, r, statics, &rowEnv{})
		res.Rows = append(res.Rows, append([][]byte{boolFalse}, vals...))
	}
	if len(res.Rows) == 0 {
		res.Columns = res.Columns[:1]
		res.Rows = [][][]byte{{boolFalse}}
	}
	return res
}
