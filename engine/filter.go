package engine

import (
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

// evFilter is a restriction evaluated with bound values, applied to rows
// (ALLOW FILTERING, and clustering restrictions that key ranges cannot
// express).
type evFilter struct {
	r     *restriction
	types []*cql.Type
	vals  [][]byte   // EQ/slice/CONTAINS: one value; IN: several
	tups  [][][]byte // multi-column: tuples
	key   []byte     // m[key] op v
}

func (x *execCtx) evalFilters(ti *tableInfo, rs []*restriction) ([]*evFilter, error) {
	out := make([]*evFilter, 0, len(rs))
	for _, r := range rs {
		f := &evFilter{r: r}
		for _, c := range r.cols {
			f.types = append(f.types, ti.cols[c].Type)
		}
		col := ti.cols[r.cols[0]]
		switch {
		case r.multi:
			t, err := x.tupleValues(ti, r)
			if err != nil {
				return nil, err
			}
			f.tups = t
		case r.op == cql.OpContains || r.op == cql.OpContainsKey:
			et := col.Type.Elems[0]
			name := "key(" + col.Name + ")"
			if r.op == cql.OpContains {
				name = "value(" + col.Name + ")"
				if col.Type.Kind == cql.KindMap {
					et = col.Type.Elems[1]
				}
			}
			v, unset, err := x.eval(et, r.value, name)
			if err != nil {
				return nil, err
			}
			if unset {
				return nil, invalidf("Invalid unset value for column %s", col.Name)
			}
			if v == nil {
				return nil, invalidf("Invalid null value for %s", name)
			}
			f.vals = [][]byte{v}
			f.types = []*cql.Type{et}
		case r.key != nil:
			k, unset, err := x.eval(col.Type.Elems[0], r.key, "key("+col.Name+")")
			if err != nil {
				return nil, err
			}
			if unset || k == nil {
				return nil, invalidf("Invalid null value for map key in %s", col.Name)
			}
			v, unset, err := x.eval(col.Type.Elems[1], r.value, "value("+col.Name+")")
			if err != nil {
				return nil, err
			}
			if unset {
				return nil, invalidf("Invalid unset value for column %s", col.Name)
			}
			f.key, f.vals = k, [][]byte{v}
			f.types = []*cql.Type{col.Type.Elems[1]}
		case r.op == cql.OpEq || r.op == cql.OpIn:
			vals, err := x.restrictionValues(ti, r)
			if err != nil {
				return nil, err
			}
			f.vals = vals
		default:
			v, unset, err := x.eval(col.Type, r.value, col.Name)
			if err != nil {
				return nil, err
			}
			if unset {
				return nil, invalidf("Invalid unset value for column %s", col.Name)
			}
			if v == nil {
				return nil, invalidf("Unsupported null value for column %s", col.Name)
			}
			f.vals = [][]byte{v}
		}
		out = append(out, f)
	}
	return out, nil
}

// columnValue returns column i of a row (statics from the static row).
func columnValue(ti *tableInfo, i int, r *cqlRow, statics *cqlRow) []byte {
	col := ti.cols[i]
	switch col.Kind {
	case schema.PartitionKey:
		return r.pk[col.Position]
	case schema.Clustering:
		if col.Position < len(r.ck) {
			return r.ck[col.Position]
		}
		return nil
	case schema.Static:
		if statics == nil || i >= len(statics.cols) || !statics.cols[i].live {
			return nil
		}
		return statics.cols[i].val
	}
	if i >= len(r.cols) || !r.cols[i].live {
		return nil
	}
	return r.cols[i].val
}

func (f *evFilter) match(ti *tableInfo, r *cqlRow, statics *cqlRow) bool {
	if f.r.multi {
		vals := make([][]byte, len(f.r.cols))
		for i, c := range f.r.cols {
			vals[i] = columnValue(ti, c, r, statics)
			if vals[i] == nil {
				return false
			}
		}
		cmpTuple := func(t [][]byte) int {
			for i := range vals {
				if c := cql.Compare(f.types[i], vals[i], t[i]); c != 0 {
					return c
				}
			}
			return 0
		}
		if f.r.op == cql.OpIn {
			for _, t := range f.tups {
				if cmpTuple(t) == 0 {
					return true
				}
			}
			return false
		}
		return opHolds(f.r.op, cmpTuple(f.tups[0]))
	}
	v := columnValue(ti, f.r.cols[0], r, statics)
	if v == nil {
		return false
	}
	colType := ti.cols[f.r.cols[0]].Type
	switch {
	case f.r.op == cql.OpContains || f.r.op == cql.OpContainsKey:
		per := 1
		if colType.Kind == cql.KindMap {
			per = 2
		}
		items, err := splitCollection(v, per)
		if err != nil {
			return false
		}
		for i := 0; i+per <= len(items); i += per {
			e := items[i]
			if f.r.op == cql.OpContains && per == 2 {
				e = items[i+1]
			}
			if cql.Compare(f.types[0], e, f.vals[0]) == 0 {
				return true
			}
		}
		return false
	case f.key != nil:
		items, err := splitCollection(v, 2)
		if err != nil {
			return false
		}
		for i := 0; i+2 <= len(items); i += 2 {
			if cql.Compare(colType.Elems[0], items[i], f.key) == 0 {
				if f.vals[0] == nil {
					return false
				}
				return opHolds(f.r.op, cql.Compare(f.types[0], items[i+1], f.vals[0]))
			}
		}
		return false
	case f.r.op == cql.OpIn:
		for _, w := range f.vals {
			if cql.Compare(colType, v, w) == 0 {
				return true
			}
		}
		return false
	}
	return opHolds(f.r.op, cql.Compare(colType, v, f.vals[0]))
}

func opHolds(op cql.RelOp, c int) bool {
	switch op {
	case cql.OpEq:
		return c == 0
	case cql.OpNeq:
		return c != 0
	case cql.OpLt:
		return c < 0
	case cql.OpLte:
		return c <= 0
	case cql.OpGt:
		return c > 0
	case cql.OpGte:
		return c >= 0
	}
	return false
}

func matchAll(fs []*evFilter, ti *tableInfo, r *cqlRow, statics *cqlRow) bool {
	for _, f := range fs {
		if !f.match(ti, r, statics) {
			return false
		}
	}
	return true
}
