package systemks

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"sort"
	"strings"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// A small query engine for the virtual tables: the SELECT shapes drivers
// and cqlsh send (column selection, COUNT(*), DISTINCT, equality / IN /
// range filters on any column, ORDER BY, LIMIT, paging), over rows held in
// memory. Filtering never needs ALLOW FILTERING here: tables are tiny.

// vquery is a SELECT compiled against one virtual table.
type vquery struct {
	t       *vtable
	sel     *cql.Select
	bind    []bindings.ColumnSpec // by marker index
	columns []bindings.ColumnSpec // result columns
	proj    []projItem
	filters []vfilter
	count   bool // aggregate: one row
}

type projItem struct {
	col   int // index in t.meta.Columns; -1 for COUNT(*)
	count bool
}

type vfilter struct {
	col   int
	op    cql.RelOp
	value cql.Term   // single value, or a bound list for IN ?
	in    []cql.Term // IN (a, b, ...)
}

func unsupportedOnSystem(what string) error {
	return bindings.Unsupported("%s is not supported on dohyo's system tables", what)
}

func compileSelect(t *vtable, sel *cql.Select, parsed *cql.Parsed) (*vquery, error) {
	switch {
	case sel.JSON:
		return nil, unsupportedOnSystem("SELECT JSON")
	case len(sel.GroupBy) > 0:
		return nil, unsupportedOnSystem("GROUP BY")
	case sel.PerPartitionLimit != nil:
		return nil, unsupportedOnSystem("PER PARTITION LIMIT")
	}
	m := t.meta
	q := &vquery{t: t, sel: sel, bind: make([]bindings.ColumnSpec, len(parsed.Markers))}
	spec := func(name string, typ *cql.Type) bindings.ColumnSpec {
		return bindings.ColumnSpec{Keyspace: m.Keyspace, Table: m.Name, Name: name, Type: typ}
	}
	colIndex := func(name string) (int, error) {
		for i, c := range m.Columns {
			if c.Name == name {
				return i, nil
			}
		}
		return -1, bindings.Errorf(bindings.CodeInvalid, "Undefined column name %s in table %s.%s", name, m.Keyspace, m.Name)
	}
	if sel.Star {
		for i, c := range m.Columns {
			q.proj = append(q.proj, projItem{col: i})
			q.columns = append(q.columns, spec(c.Name, c.Type))
		}
	}
	for _, s := range sel.Selectors {
		switch s.Kind {
		case cql.SelColumn:
			i, err := colIndex(s.Column)
			if err != nil {
				return nil, err
			}
			q.proj = append(q.proj, projItem{col: i})
			q.columns = append(q.columns, spec(cmp(s.Alias, s.Column), m.Columns[i].Type))
		case cql.SelCountStar:
			q.count = true
			q.proj = append(q.proj, projItem{col: -1, count: true})
			q.columns = append(q.columns, spec(cmp(s.Alias, "count"), cql.Scalar(cql.KindBigint)))
		default:
			return nil, unsupportedOnSystem("this selector")
		}
	}
	// mark gives a bind marker its spec (its name, or the receiver's).
	mark := func(term cql.Term, name string, typ *cql.Type) {
		if bm, ok := term.(*cql.BindMarker); ok && bm.Index >= 0 && bm.Index < len(q.bind) {
			if bm.Name != "" {
				name = bm.Name
			}
			q.bind[bm.Index] = spec(name, typ)
		}
	}
	for _, r := range sel.Where {
		if len(r.Columns) != 1 || r.Token || r.Key != nil {
			return nil, unsupportedOnSystem("this relation")
		}
		i, err := colIndex(r.Columns[0])
		if err != nil {
			return nil, err
		}
		col := m.Columns[i]
		switch r.Op {
		case cql.OpEq, cql.OpLt, cql.OpLte, cql.OpGt, cql.OpGte:
			mark(r.Value, col.Name, col.Type)
		case cql.OpIn:
			if r.In == nil {
				mark(r.Value, "in("+col.Name+")", cql.ListOf(col.Type))
			}
			for _, e := range r.In {
				mark(e, col.Name, col.Type)
			}
		default:
			return nil, unsupportedOnSystem(r.Op.String() + " restrictions")
		}
		q.filters = append(q.filters, vfilter{col: i, op: r.Op, value: r.Value, in: r.In})
	}
	for _, o := range sel.OrderBy {
		if _, err := colIndex(o.Column); err != nil {
			return nil, err
		}
	}
	if sel.Limit != nil {
		mark(sel.Limit, "[limit]", cql.Scalar(cql.KindInt))
	}
	for _, b := range q.bind {
		if b.Type == nil {
			return nil, unsupportedOnSystem("a bind marker in this position")
		}
	}
	return q, nil
}

func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// pkIndexes lists, in partition key order, the bind markers of equality
// restrictions on the partition key (for token-aware drivers), or nil.
func (q *vquery) pkIndexes() []uint16 {
	var out []uint16
	for _, pk := range q.t.meta.PartitionKey {
		found := false
		for _, r := range q.sel.Where {
			if r.Op == cql.OpEq && len(r.Columns) == 1 && r.Columns[0] == pk.Name {
				if bm, ok := r.Value.(*cql.BindMarker); ok {
					out = append(out, uint16(bm.Index))
					found = true
				}
			}
		}
		if !found {
			return nil
		}
	}
	return out
}

// boundValues orders the request's values by marker index, matching names
// when the client sent named values.
func (q *vquery) boundValues(req *bindings.Request) ([]bindings.Value, error) {
	if req.Names == nil {
		if len(req.Values) != len(q.bind) {
			return nil, bindings.Errorf(bindings.CodeInvalid,
				"There were %d markers(?) in CQL but %d bound variables", len(q.bind), len(req.Values))
		}
		return req.Values, nil
	}
	out := make([]bindings.Value, len(q.bind))
	for i, b := range q.bind {
		found := false
		for j, n := range req.Names {
			if j < len(req.Values) && strings.EqualFold(n, b.Name) {
				out[i], found = req.Values[j], true
				break
			}
		}
		if !found {
			return nil, bindings.Errorf(bindings.CodeInvalid, "No value provided for bind marker %s", b.Name)
		}
	}
	return out, nil
}

// boundResolver feeds bound values to cql.EncodeTerm.
type boundResolver []bindings.Value

func (r boundResolver) Bind(m *cql.BindMarker, t *cql.Type) ([]byte, bool, error) {
	if m.Index < 0 || m.Index >= len(r) {
		return nil, false, &cql.ValueError{Msg: "No value bound for a bind marker"}
	}
	v := r[m.Index]
	if v.Unset {
		return nil, true, nil
	}
	if v.Bytes != nil {
		if err := cql.Validate(t, v.Bytes); err != nil {
			return nil, false, err
		}
	}
	return v.Bytes, false, nil
}

func (boundResolver) Call(fn *cql.FuncCall, _ *cql.Type) ([]byte, error) {
	return nil, &cql.ValueError{Msg: "Function " + fn.Name + "() is not supported on dohyo's system tables"}
}

func encodeValue(t *cql.Type, term cql.Term, recv string, r cql.Resolver) ([]byte, error) {
	b, err := cql.EncodeTerm(t, term, recv, r)
	if errors.Is(err, cql.ErrUnset) {
		return nil, bindings.Errorf(bindings.CodeInvalid, "Invalid unset value for column %s", recv)
	}
	var ve *cql.ValueError
	if errors.As(err, &ve) {
		return nil, bindings.Errorf(bindings.CodeInvalid, "%s", ve.Msg)
	}
	return b, err
}

// selectRows runs a SELECT on a virtual table.
func (v *Backend) selectRows(ctx context.Context, sel *cql.Select, parsed *cql.Parsed, req *bindings.Request) (*bindings.Result, error) {
	t, err := v.table(keyspaceOf(sel.Keyspace, req.Keyspace), sel.Table)
	if err != nil {
		return nil, err
	}
	q, err := compileSelect(t, sel, parsed)
	if err != nil {
		return nil, err
	}
	vals, err := q.boundValues(req)
	if err != nil {
		return nil, err
	}
	res := boundResolver(vals)
	match, err := q.matcher(res)
	if err != nil {
		return nil, err
	}
	limit := -1
	if sel.Limit != nil {
		b, err := encodeValue(cql.Scalar(cql.KindInt), sel.Limit, "[limit]", res)
		if err != nil {
			return nil, err
		}
		if len(b) != 4 || int32(binary.BigEndian.Uint32(b)) <= 0 {
			return nil, bindings.Errorf(bindings.CodeInvalid, "LIMIT must be strictly positive")
		}
		limit = int(int32(binary.BigEndian.Uint32(b)))
	}
	all, err := v.rowsOf(ctx, t)
	if err != nil {
		return nil, err
	}
	var rows [][][]byte
	for _, r := range all {
		if match(r) {
			rows = append(rows, r)
		}
	}
	q.order(rows)
	out := q.project(rows)
	if limit >= 0 && len(out) > limit {
		out = out[:limit]
	}
	return page(&bindings.Result{Kind: bindings.ResultRows, Columns: q.columns, Rows: out}, req)
}

// matcher resolves the filters' values and returns the row predicate.
func (q *vquery) matcher(r cql.Resolver) (func([][]byte) bool, error) {
	type cond struct {
		col  int
		op   cql.RelOp
		vals [][]byte
	}
	cols := q.t.meta.Columns
	conds := make([]cond, 0, len(q.filters))
	for _, f := range q.filters {
		c := cond{col: f.col, op: f.op}
		typ, name := cols[f.col].Type, cols[f.col].Name
		switch {
		case f.op == cql.OpIn && f.in == nil:
			b, err := encodeValue(cql.ListOf(typ), f.value, "in("+name+")", r)
			if err != nil {
				return nil, err
			}
			if c.vals, err = splitList(b); err != nil {
				return nil, bindings.Errorf(bindings.CodeInvalid, "Invalid list value for in(%s)", name)
			}
		case f.op == cql.OpIn:
			for _, term := range f.in {
				b, err := encodeValue(typ, term, name, r)
				if err != nil {
					return nil, err
				}
				c.vals = append(c.vals, b)
			}
		default:
			b, err := encodeValue(typ, f.value, name, r)
			if err != nil {
				return nil, err
			}
			if b == nil {
				return nil, bindings.Errorf(bindings.CodeInvalid, "Invalid null value in condition for column %s", name)
			}
			c.vals = [][]byte{b}
		}
		conds = append(conds, c)
	}
	return func(row [][]byte) bool {
		for _, c := range conds {
			cell := row[c.col]
			if cell == nil {
				return false
			}
			typ := cols[c.col].Type
			ok := false
			switch c.op {
			case cql.OpIn:
				for _, v := range c.vals {
					if v != nil && cql.Compare(typ, cell, v) == 0 {
						ok = true
						break
					}
				}
			default:
				d := cql.Compare(typ, cell, c.vals[0])
				switch c.op {
				case cql.OpEq:
					ok = d == 0
				case cql.OpLt:
					ok = d < 0
				case cql.OpLte:
					ok = d <= 0
				case cql.OpGt:
					ok = d > 0
				case cql.OpGte:
					ok = d >= 0
				}
			}
			if !ok {
				return false
			}
		}
		return true
	}, nil
}

// errShortList: a serialized list ends before its elements do.
var errShortList = errors.New("not enough bytes to read")

// splitList splits a serialized list ([int] n, then n [bytes]) into its
// elements: a null element is nil, an empty one is empty and not nil.
func splitList(b []byte) ([][]byte, error) {
	if b == nil {
		return nil, nil
	}
	if len(b) < 4 {
		return nil, errShortList
	}
	n := int32(binary.BigEndian.Uint32(b))
	b = b[4:]
	if n < 0 || int(n)*4 > len(b) {
		return nil, errShortList
	}
	out := make([][]byte, 0, n)
	for i := 0; i < int(n); i++ {
		if len(b) < 4 {
			return nil, errShortList
		}
		l := int32(binary.BigEndian.Uint32(b))
		b = b[4:]
		switch {
		case l < 0:
			out = append(out, nil)
		case int(l) > len(b):
			return nil, errShortList
		default:
			out = append(out, b[:l:l])
			b = b[l:]
		}
	}
	return out, nil
}

// order sorts rows by ORDER BY (rows already come in primary key order).
func (q *vquery) order(rows [][][]byte) {
	if len(q.sel.OrderBy) == 0 {
		return
	}
	cols := q.t.meta.Columns
	idx := make([]int, len(q.sel.OrderBy))
	for i, o := range q.sel.OrderBy {
		for j, c := range cols {
			if c.Name == o.Column {
				idx[i] = j
			}
		}
	}
	sort.SliceStable(rows, func(a, b int) bool {
		for i, o := range q.sel.OrderBy {
			c := idx[i]
			if d := cql.Compare(cols[c].Type, rows[a][c], rows[b][c]); d != 0 {
				return (d < 0) != o.Desc
			}
		}
		return false
	})
}

// project builds the output rows: the selected columns, one aggregated
// row for COUNT(*), duplicates removed for DISTINCT.
func (q *vquery) project(rows [][][]byte) [][][]byte {
	if q.count {
		row := make([][]byte, len(q.proj))
		for i, p := range q.proj {
			switch {
			case p.count:
				row[i] = binary.BigEndian.AppendUint64(nil, uint64(len(rows)))
			case len(rows) > 0:
				row[i] = rows[0][p.col]
			}
		}
		return [][][]byte{row}
	}
	out := make([][][]byte, 0, len(rows))
	for _, r := range rows {
		row := make([][]byte, len(q.proj))
		for i, p := range q.proj {
			row[i] = r[p.col]
		}
		if q.sel.Distinct && len(out) > 0 && sameRow(out[len(out)-1], row) {
			continue
		}
		out = append(out, row)
	}
	return out
}

func sameRow(a, b [][]byte) bool {
	for i := range a {
		if (a[i] == nil) != (b[i] == nil) || !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// Paging state of a virtual table: a marker and the offset of the next row.
var vpageMagic = []byte("dv1")

// page cuts res to the request's page size.
func page(res *bindings.Result, req *bindings.Request) (*bindings.Result, error) {
	start := 0
	if req.PagingState != nil {
		ps := req.PagingState
		if len(ps) != len(vpageMagic)+4 || !bytes.HasPrefix(ps, vpageMagic) {
			return nil, bindings.Errorf(bindings.CodeInvalid, "Invalid value for the paging state")
		}
		start = int(binary.BigEndian.Uint32(ps[len(vpageMagic):]))
		if start > len(res.Rows) {
			start = len(res.Rows)
		}
	}
	rows := res.Rows[start:]
	if n := int(req.PageSize); n > 0 && len(rows) > n {
		rows = rows[:n]
		res.PagingState = binary.BigEndian.AppendUint32(append([]byte(nil), vpageMagic...), uint32(start+n))
	}
	res.Rows = rows
	return res, nil
}
