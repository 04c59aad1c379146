package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

type modKind int

const (
	modInsert modKind = iota
	modUpdate
	modDelete
)

func (k modKind) String() string { return [...]string{"INSERT", "UPDATE", "DELETE"}[k] }

// setOp is one assignment (UPDATE SET, or an INSERT value).
type setOp struct {
	col   int
	op    cql.AssignOp
	key   cql.Term // element key or list index
	value cql.Term
	vt    *cql.Type // type of value
	field int       // AssignField: UDT field index + 1
}

// delTarget is one DELETE target: a column or an element of it.
type delTarget struct {
	col   int
	key   cql.Term
	field int // UDT field index + 1; 0: not a field
}

// modPlan is a planned INSERT, UPDATE or DELETE.
type modPlan struct {
	kind       modKind
	ti         *tableInfo
	w          *where
	ck         *ckPlan
	sets       []setOp
	dels       []delTarget
	marker     bool // INSERT: write the row marker
	using      usingPlan
	staticOnly bool // touches only static columns: the header row
	ifNotExist bool
	ifExists   bool
	conds      []*condPlan
	readRow    bool // needs the current row (list by index, list removal)
	counter    bool
	json       *jsonInsert // INSERT JSON
}

func (p *modPlan) conditional() bool { return p.ifNotExist || p.ifExists || len(p.conds) > 0 }

func (b *planner) planInsert(s *cql.Insert) (plan, error) {
	ti, err := b.writeTable(s.Keyspace, s.Table)
	if err != nil {
		return nil, err
	}
	if s.JSON == nil && len(s.Columns) != len(s.Values) {
		return nil, invalidf("Unmatched column names/values")
	}
	if ti.counter {
		return nil, invalidf("INSERT statements are not allowed on counter tables, use UPDATE instead")
	}
	if s.JSON != nil {
		p := &modPlan{kind: modInsert, ti: ti, marker: true, ifNotExist: s.IfNotExists}
		if err := b.planInsertJSON(ti, s, p); err != nil {
			return nil, err
		}
		p.using = b.planUsing(ti, s.Using)
		if p.ifNotExist && p.using.ts != nil {
			return nil, invalidf("Cannot provide custom timestamp for conditional updates")
		}
		return p, nil
	}
	if len(s.Columns) != len(s.Values) {
		return nil, invalidf("Unmatched column names/values")
	}
	p := &modPlan{kind: modInsert, ti: ti, marker: true, ifNotExist: s.IfNotExists}
	w := &where{pk: make([][]*restriction, len(ti.pk)), ck: make([][]*restriction, len(ti.ck))}
	seen := map[int]bool{}
	hasRegular := false
	for i, name := range s.Columns {
		c, err := ti.column(name)
		if err != nil {
			return nil, err
		}
		if seen[c] {
			return nil, invalidf("The column names contains duplicates")
		}
		seen[c] = true
		col := ti.cols[c]
		v := s.Values[i]
		switch col.Kind {
		case schema.PartitionKey:
			w.pk[col.Position] = []*restriction{{cols: []int{c}, op: cql.OpEq, value: v}}
			b.walkTerm(v, col.Type, col.Name, ti)
			b.noteEq(ti, c, v)
		case schema.Clustering:
			w.ck[col.Position] = []*restriction{{cols: []int{c}, op: cql.OpEq, value: v}}
			b.walkTerm(v, col.Type, col.Name, ti)
		default:
			if col.Kind == schema.Regular {
				hasRegular = true
			}
			p.sets = append(p.sets, setOp{col: c, op: cql.AssignSet, value: v, vt: col.Type})
			b.walkTerm(v, col.Type, col.Name, ti)
		}
	}
	if missing := w.missingPK(ti); len(missing) > 0 {
		return nil, invalidf("Some partition key parts are missing: %s", strings.Join(missing, ", "))
	}
	var missingCK []string
	for i, rs := range w.ck {
		if len(rs) == 0 {
			missingCK = append(missingCK, ti.cols[ti.ck[i]].Name)
		}
	}
	if len(missingCK) > 0 {
		if len(missingCK) < len(ti.ck) || hasRegular {
			return nil, invalidf("Some clustering keys are missing: %s", strings.Join(missingCK, ", "))
		}
		// Only static columns (or nothing) besides the partition key.
		p.staticOnly = true
		p.marker = false
	}
	p.w = w
	p.ck = planClustering(ti, w)
	p.using = b.planUsing(ti, s.Using)
	if p.ifNotExist && p.using.ts != nil {
		return nil, invalidf("Cannot provide custom timestamp for conditional updates")
	}
	return p, nil
}

// writeTable is the table a write statement names, which a write may
// not address when it is a materialized view.
func (b *planner) writeTable(ks, table string) (*tableInfo, error) {
	ti, err := b.st.lookupTable(b.ks, ks, table)
	if err != nil {
		return nil, err
	}
	b.table = ti
	if ti.t.IsView() {
		return nil, errViewWrite
	}
	return ti, nil
}

func (b *planner) planUpdate(s *cql.Update) (plan, error) {
	ti, err := b.writeTable(s.Keyspace, s.Table)
	if err != nil {
		return nil, err
	}
	p := &modPlan{kind: modUpdate, ti: ti, ifExists: s.IfExists, counter: ti.counter}
	onlyStatic := true
	for _, a := range s.Set {
		op, err := b.planAssignment(ti, p, a)
		if err != nil {
			return nil, err
		}
		if ti.cols[op.col].Kind != schema.Static {
			onlyStatic = false
		}
		p.sets = append(p.sets, op)
	}
	p.staticOnly = onlyStatic && ti.hasCK
	p.using = b.planUsing(ti, s.Using)
	if p.counter && s.Using.TTL != nil {
		return nil, invalidf("Cannot provide custom TTL for counter updates")
	}
	if err := b.planModWhere(ti, p, s.Where); err != nil {
		return nil, err
	}
	if err := b.planConditions(ti, p, s.If); err != nil {
		return nil, err
	}
	return p, nil
}

// planAssignment checks one SET item against the column type.
func (b *planner) planAssignment(ti *tableInfo, p *modPlan, a cql.Assignment) (setOp, error) {
	c, err := ti.column(a.Column)
	if err != nil {
		return setOp{}, err
	}
	col := ti.cols[c]
	if ti.isKey(c) {
		return setOp{}, invalidf("PRIMARY KEY part %s found in SET part", col.Name)
	}
	t := col.Type
	op := setOp{col: c, op: a.Op, key: a.Key, value: a.Value, vt: t}
	bad := func(what string) error {
		return invalidf("Invalid operation (%s) for %s column %s", assignText(a), what, col.Name)
	}
	switch a.Op {
	case cql.AssignSet:
		if t.Kind == cql.KindCounter {
			return setOp{}, invalidf("Cannot set the value of counter column %s (counters can only be incremented/decremented, not set)", col.Name)
		}
	case cql.AssignAdd, cql.AssignAddTo, cql.AssignRemove, cql.AssignRemoveFrom:
		switch {
		case t.Kind == cql.KindCounter:
			op.vt = cql.Scalar(cql.KindBigint)
		case t.Kind == cql.KindTuple:
			return setOp{}, bad("tuple")
		case !t.IsCollection():
			return setOp{}, bad("non counter")
		case !t.MultiCell():
			return setOp{}, bad("frozen collection")
		case (a.Op == cql.AssignRemove || a.Op == cql.AssignRemoveFrom) && t.Kind == cql.KindMap:
			op.vt = cql.SetOf(t.Elems[0])
		}
		if t.Kind == cql.KindList && (a.Op == cql.AssignRemove || a.Op == cql.AssignRemoveFrom) {
			p.readRow = true
		}
	case cql.AssignPrepend:
		switch {
		case t.Kind != cql.KindList:
			return setOp{}, bad("non list")
		case !t.MultiCell():
			return setOp{}, bad("frozen list")
		}
	case cql.AssignElement:
		switch {
		case !t.IsCollection():
			return setOp{}, bad("non collection")
		case !t.MultiCell():
			return setOp{}, bad("frozen collection")
		case t.Kind == cql.KindSet:
			return setOp{}, bad("set")
		case t.Kind == cql.KindMap:
			b.walkTerm(a.Key, t.Elems[0], "key("+col.Name+")", ti)
			op.vt = t.Elems[1]
			b.walkTerm(a.Value, op.vt, "value("+col.Name+")", ti)
			return op, nil
		default:
			b.walkTerm(a.Key, cql.Scalar(cql.KindInt), "idx("+col.Name+")", ti)
			op.vt = t.Elems[0]
			b.walkTerm(a.Value, op.vt, "value("+col.Name+")", ti)
			p.readRow = true
			return op, nil
		}
	case cql.AssignField:
		if ti.counter {
			return setOp{}, invalidf("Cannot mix counter and non counter columns in the same table")
		}
		return b.planFieldAssign(ti, c, a, op)
	default:
		return setOp{}, bindings.Unsupported("this assignment is not supported by dohyo's wide-column engine")
	}
	if ti.counter && t.Kind != cql.KindCounter {
		return setOp{}, invalidf("Cannot mix counter and non counter columns in the same table")
	}
	b.walkTerm(a.Value, op.vt, col.Name, ti)
	return op, nil
}

func (b *planner) planDelete(s *cql.Delete) (plan, error) {
	ti, err := b.writeTable(s.Keyspace, s.Table)
	if err != nil {
		return nil, err
	}
	if s.Using.TTL != nil {
		return nil, invalidf("A TTL is not allowed on DELETE statements")
	}
	p := &modPlan{kind: modDelete, ti: ti, ifExists: s.IfExists}
	onlyStatic := len(s.Targets) > 0
	for _, t := range s.Targets {
		c, err := ti.column(t.Column)
		if err != nil {
			return nil, err
		}
		col := ti.cols[c]
		if ti.isKey(c) {
			return nil, invalidf("Invalid identifier %s for deletion (should not be a PRIMARY KEY part)", col.Name)
		}
		field := 0
		if t.Field != "" {
			if field, err = planFieldDelete(col, t.Field); err != nil {
				return nil, err
			}
		}
		if t.Key != nil {
			switch {
			case !col.Type.IsCollection():
				return nil, invalidf("Invalid deletion operation for non collection column %s", col.Name)
			case !col.Type.MultiCell():
				return nil, invalidf("Invalid deletion operation for frozen collection column %s", col.Name)
			case col.Type.Kind == cql.KindList:
				b.walkTerm(t.Key, cql.Scalar(cql.KindInt), "idx("+col.Name+")", ti)
				p.readRow = true
			case col.Type.Kind == cql.KindMap:
				b.walkTerm(t.Key, col.Type.Elems[0], "key("+col.Name+")", ti)
			default:
				b.walkTerm(t.Key, col.Type.Elems[0], "value("+col.Name+")", ti)
			}
		}
		if col.Kind != schema.Static {
			onlyStatic = false
		}
		p.dels = append(p.dels, delTarget{col: c, key: t.Key, field: field})
	}
	p.staticOnly = onlyStatic && ti.hasCK
	p.using = b.planUsing(ti, s.Using)
	if err := b.planModWhere(ti, p, s.Where); err != nil {
		return nil, err
	}
	if err := b.planConditions(ti, p, s.If); err != nil {
		return nil, err
	}
	return p, nil
}

// planModWhere validates the WHERE clause of UPDATE and DELETE.
func (b *planner) planModWhere(ti *tableInfo, p *modPlan, rels []cql.Relation) error {
	w, err := b.analyzeWhere(ti, rels)
	if err != nil {
		return err
	}
	if len(w.token) > 0 {
		return invalidf("The token function cannot be used in WHERE clauses for %s statements", p.kind)
	}
	if len(w.others) > 0 {
		var names []string
		for _, r := range w.others {
			names = append(names, ti.cols[r.cols[0]].Name)
		}
		return invalidf("Non PRIMARY KEY columns found in where clause: %s ", strings.Join(names, ", "))
	}
	if missing := w.missingPK(ti); len(missing) > 0 {
		return invalidf("Some partition key parts are missing: %s", strings.Join(missing, ", "))
	}
	for _, rs := range w.pk {
		for _, r := range rs {
			if !r.isEQorIN() {
				return invalidf("Only EQ and IN relation are supported on the partition key (unless you use the token() function) for %s statements", p.kind)
			}
			if r.op == cql.OpEq {
				b.noteEq(ti, r.cols[0], r.value)
			}
		}
	}
	p.w = w
	p.ck = planClustering(ti, w)
	if len(p.ck.leftover) > 0 {
		if err := p.ck.filteringError(ti, w); err != errRequiresFiltering {
			return err
		}
		return invalidf("Only EQ and IN relation are supported on the clustering columns")
	}
	slice := p.ck.lower != nil || p.ck.upper != nil
	full := p.ck.full(len(ti.ck))
	if p.staticOnly && w.hasCK() {
		return invalidf("Invalid restrictions on clustering columns since the %s statement modifies only static columns", p.kind)
	}
	switch p.kind {
	case modUpdate:
		if slice {
			return invalidf("Slice restrictions are not supported on the clustering columns in UPDATE statements")
		}
		if !full && !p.staticOnly {
			return invalidf("Some clustering keys are missing: %s", strings.Join(missingCK(ti, p.ck), ", "))
		}
	case modDelete:
		if len(p.dels) > 0 && !p.staticOnly && !full {
			return invalidf("Range deletions are not supported for specific columns")
		}
	}
	return nil
}

func missingCK(ti *tableInfo, ck *ckPlan) []string {
	var out []string
	for pos := ck.prefixLen; pos < len(ti.ck); pos++ {
		out = append(out, ti.cols[ti.ck[pos]].Name)
	}
	return out
}

// execute runs a single modification statement.
func (p *modPlan) execute(ctx context.Context, x *execCtx) (*bindings.Result, error) {
	if p.conditional() {
		return x.executeCAS(ctx, []*modPlan{p}, []*execCtx{x}, false)
	}
	err := x.e.writePlans(ctx, []*modPlan{p}, []*execCtx{x}, nil)
	// The store is done with the write's memory, or says when it is
	// (recycleExecCtx); the result below is not x's.
	x.spent = true
	if err != nil {
		return nil, err
	}
	return &bindings.Result{Kind: bindings.ResultVoid}, nil
}

// targetRows evaluates the keys of a modification: the partitions and, per
// partition, the clustering prefixes (full rows) or slices.
type modTargets struct {
	pks []([][]byte)
	ev  *ckEval
}

// targets evaluates the statement's partitions and clustering restriction
// (returned by value: one allocation less per write).
func (p *modPlan) targets(x *execCtx) (modTargets, error) {
	if err := p.bindJSON(x); err != nil {
		return modTargets{}, err
	}
	pks, err := x.partitionKeys(p.ti, p.w)
	if err != nil {
		return modTargets{}, err
	}
	ev, err := x.evalClustering(p.ti, p.ck)
	if err != nil {
		return modTargets{}, err
	}
	return modTargets{pks: pks, ev: ev}, nil
}

// collect adds the statement's cells to mb.
func (p *modPlan) collect(ctx context.Context, x *execCtx, wp writeParams, mb *mutBuilder) error {
	tg, err := p.targets(x)
	if err != nil {
		return err
	}
	ti := p.ti
	for _, pk := range tg.pks {
		hkey, err := x.partitionKey(ti, pk)
		if err != nil {
			return err
		}
		if p.kind == modDelete && len(p.dels) == 0 && !tg.ev.full && ti.hasCK {
			if err := p.rangeDelete(ti, pk, hkey, tg.ev, wp, mb); err != nil {
				return err
			}
			continue
		}
		if p.staticOnly || !ti.hasCK {
			if err := p.rowCells(ctx, x, pk, nil, hkey, wp, mb); err != nil {
				return err
			}
			continue
		}
		for _, ck := range tg.ev.prefixes {
			rkey, err := ti.codec.RowKey(pk, ck)
			if err != nil {
				return err
			}
			if err := p.rowCells(ctx, x, pk, ck, rkey, wp, mb); err != nil {
				return err
			}
		}
	}
	return nil
}

// rangeDelete writes a partition tombstone (no clustering restriction) or
// range tombstones (a prefix or slice) into the header row.
func (p *modPlan) rangeDelete(ti *tableInfo, pk [][]byte, hkey []byte, ev *ckEval, wp writeParams, mb *mutBuilder) error {
	if len(ev.prefixes) == 1 && len(ev.prefixes[0]) == 0 && ev.lower == nil && ev.upper == nil {
		mb.add(ti, hkey, tombCell(qualRowDel, wp.ts, wp.now))
		return nil
	}
	if mb.sizing {
		mb.noteRanges(ti, hkey, ev)
	}
	_, ranges, err := ev.ranges(ti, pk)
	if err != nil {
		return err
	}
	plen := len(hkey) - 1
	for _, r := range ranges {
		if len(r.Start) < plen || len(r.Stop) < plen {
			return fmt.Errorf("widecolumn: range bound outside its partition")
		}
		mb.add(ti, hkey, tombCell(rangeQual(r.Start[plen:], r.Stop[plen:]), wp.ts, wp.now))
	}
	return nil
}

// rowCells adds the cells of one row (key is the row key, or the header key
// for static-only statements and tables without clustering columns).
func (p *modPlan) rowCells(ctx context.Context, x *execCtx, pk, ck [][]byte, key []byte, wp writeParams, mb *mutBuilder) error {
	ti := p.ti
	var cur *current
	if p.readRow {
		var err error
		if cur, err = x.readCurrent(ctx, ti, pk, ck, true); err != nil {
			return err
		}
	}
	switch p.kind {
	case modInsert:
		if p.marker {
			mb.add(ti, key, mb.live(qualMarker, wp, nil))
		}
	case modDelete:
		if len(p.dels) == 0 {
			mb.add(ti, key, tombCell(qualRowDel, wp.ts, wp.now))
			return nil
		}
		for _, d := range p.dels {
			if err := p.deleteTarget(x, d, key, pk, cur, wp, mb); err != nil {
				return err
			}
		}
		return nil
	}
	hkey := key
	for _, op := range p.sets {
		target := key
		if ti.cols[op.col].Kind == schema.Static {
			if ck != nil || ti.hasCK {
				var err error
				if hkey, err = ti.codec.PartitionKey(pk); err != nil {
					return err
				}
			}
			target = hkey
		}
		if err := p.assign(ctx, x, op, target, cur, wp, mb); err != nil {
			return err
		}
	}
	return nil
}
