package engine

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

// restriction is one WHERE relation bound to columns of a table.
type restriction struct {
	cols  []int // one column, or several for a multi-column relation
	op    cql.RelOp
	value cql.Term   // =, <, ..., CONTAINS; or the single marker of IN ?
	in    []cql.Term // IN (a, b, ...)
	key   cql.Term   // m[key] = v
	multi bool
	token bool
}

func (r *restriction) isSlice() bool {
	switch r.op {
	case cql.OpLt, cql.OpLte, cql.OpGt, cql.OpGte:
		return true
	}
	return false
}

func (r *restriction) isEQorIN() bool {
	return (r.op == cql.OpEq || r.op == cql.OpIn) && r.key == nil
}

// where is a WHERE clause sorted by column role.
type where struct {
	pk     [][]*restriction // per partition key position
	ck     [][]*restriction // per clustering position (single-column)
	multi  []*restriction   // multi-column relations (clustering columns)
	others []*restriction   // static and regular columns
	token  []*restriction
}

func (w *where) hasPK() bool {
	for _, rs := range w.pk {
		if len(rs) > 0 {
			return true
		}
	}
	return false
}

func (w *where) hasCK() bool {
	if len(w.multi) > 0 {
		return true
	}
	for _, rs := range w.ck {
		if len(rs) > 0 {
			return true
		}
	}
	return false
}

// pkExact reports whether every partition key column has exactly one EQ or
// IN restriction (a partition-list query).
func (w *where) pkExact() bool {
	for _, rs := range w.pk {
		if len(rs) != 1 || !rs[0].isEQorIN() {
			return false
		}
	}
	return true
}

func (w *where) missingPK(ti *tableInfo) []string {
	var out []string
	for i, rs := range w.pk {
		if len(rs) == 0 {
			out = append(out, ti.cols[ti.pk[i]].Name)
		}
	}
	return out
}

// analyzeWhere binds relations to columns, registers marker specs, and
// rejects what Cassandra rejects regardless of the statement kind.
func (b *planner) analyzeWhere(ti *tableInfo, rels []cql.Relation) (*where, error) {
	w := &where{pk: make([][]*restriction, len(ti.pk)), ck: make([][]*restriction, len(ti.ck))}
	for i := range rels {
		rel := &rels[i]
		if rel.Token {
			if err := b.tokenRelation(ti, w, rel); err != nil {
				return nil, err
			}
			continue
		}
		r := &restriction{op: rel.Op, value: rel.Value, in: rel.In, key: rel.Key, multi: len(rel.Columns) > 1 || tupleNotation(rel)}
		for _, name := range rel.Columns {
			c, err := ti.column(name)
			if err != nil {
				return nil, err
			}
			r.cols = append(r.cols, c)
		}
		if len(r.cols) == 0 {
			return nil, invalidf("Invalid relation")
		}
		if len(r.cols) == 1 && ti.cols[r.cols[0]].Type.Kind == cql.KindTuple {
			r.multi = false
		}
		if r.op == cql.OpLike {
			return nil, invalidf("LIKE restriction is only supported on properly indexed columns. %s LIKE %s is not valid.", ti.cols[r.cols[0]].Name, termText(r.value))
		}
		if r.op == cql.OpNeq {
			return nil, invalidf("Unsupported \"!=\" relation: %s != %s", ti.cols[r.cols[0]].Name, termText(r.value))
		}
		if r.op == cql.OpIsNotNull {
			return nil, invalidf("Unsupported restriction: %s IS NOT NULL", ti.cols[r.cols[0]].Name)
		}
		if r.multi {
			if err := b.multiRestriction(ti, w, r); err != nil {
				return nil, err
			}
			continue
		}
		c := r.cols[0]
		col := ti.cols[c]
		if err := b.bindRestriction(ti, r); err != nil {
			return nil, err
		}
		switch col.Kind {
		case schema.PartitionKey:
			if err := addSingle(&w.pk[col.Position], r, col.Name); err != nil {
				return nil, err
			}
		case schema.Clustering:
			if err := addSingle(&w.ck[col.Position], r, col.Name); err != nil {
				return nil, err
			}
		default:
			w.others = append(w.others, r)
		}
	}
	for _, m := range w.multi {
		for _, c := range m.cols {
			pos := ti.cols[c].Position
			for _, s := range w.ck[pos] {
				if m.op == cql.OpEq || m.op == cql.OpIn || s.op == cql.OpEq || s.op == cql.OpIn {
					return nil, invalidf("%s cannot be restricted by more than one relation if it includes an Equal", ti.cols[c].Name)
				}
				return nil, invalidf("Column \"%s\" cannot be restricted by both a tuple notation inequality and a single column inequality (%s)", ti.cols[c].Name, relText(ti, s))
			}
		}
	}
	return w, nil
}

// tupleNotation reports a one-column multi-column relation: (c) > (1).
func tupleNotation(rel *cql.Relation) bool {
	if len(rel.Columns) != 1 || rel.Key != nil {
		return false
	}
	if _, ok := rel.Value.(*cql.TupleLit); ok {
		return true
	}
	if len(rel.In) > 0 {
		_, ok := rel.In[0].(*cql.TupleLit)
		return ok
	}
	return false
}

func relText(ti *tableInfo, r *restriction) string {
	return fmt.Sprintf("%s %s %s", ti.cols[r.cols[0]].Name, r.op, "?")
}

// addSingle adds a single-column restriction, applying Cassandra's rules on
// combining restrictions of one column.
func addSingle(list *[]*restriction, r *restriction, name string) error {
	for _, o := range *list {
		if o.key != nil || r.key != nil || o.op == cql.OpContains || o.op == cql.OpContainsKey ||
			r.op == cql.OpContains || r.op == cql.OpContainsKey {
			continue
		}
		switch {
		case o.op == cql.OpEq:
			return invalidf("%s cannot be restricted by more than one relation if it includes an Equal", name)
		case o.op == cql.OpIn:
			return invalidf("%s cannot be restricted by more than one relation if it includes a IN", name)
		case o.isSlice() && !r.isSlice():
			return invalidf("Column \"%s\" cannot be restricted by both an equality and an inequality relation", name)
		case o.isSlice() && r.isSlice():
			if isLower(o.op) == isLower(r.op) {
				side := "end"
				if isLower(r.op) {
					side = "start"
				}
				return invalidf("More than one restriction was found for the %s bound on %s", side, name)
			}
		}
	}
	*list = append(*list, r)
	return nil
}

func isLower(op cql.RelOp) bool { return op == cql.OpGt || op == cql.OpGte }

// bindRestriction registers the marker specs of a single-column relation
// and checks operator/type combinations.
func (b *planner) bindRestriction(ti *tableInfo, r *restriction) error {
	col := ti.cols[r.cols[0]]
	t := col.Type
	switch r.op {
	case cql.OpContains:
		if !t.IsCollection() {
			return invalidf("Cannot use CONTAINS on non-collection column %s", col.Name)
		}
		et := t.Elems[0]
		if t.Kind == cql.KindMap {
			et = t.Elems[1]
		}
		b.walkTerm(r.value, et, "value("+col.Name+")", ti)
		return nil
	case cql.OpContainsKey:
		if t.Kind != cql.KindMap {
			return invalidf("Cannot use CONTAINS KEY on non-map column %s", col.Name)
		}
		b.walkTerm(r.value, t.Elems[0], "key("+col.Name+")", ti)
		return nil
	}
	if r.key != nil {
		if t.Kind != cql.KindMap || !t.MultiCell() {
			return invalidf("Column %s cannot be used as a map", col.Name)
		}
		b.walkTerm(r.key, t.Elems[0], "key("+col.Name+")", ti)
		t = t.Elems[1]
		b.walkTerm(r.value, t, "value("+col.Name+")", ti)
		return nil
	}
	if r.op == cql.OpIn {
		if r.in == nil {
			b.walkTerm(r.value, cql.ListOf(t), "in("+col.Name+")", ti)
			return nil
		}
		for _, v := range r.in {
			b.walkTerm(v, t, col.Name, ti)
		}
		return nil
	}
	if t.Kind == cql.KindDuration && r.isSlice() {
		return invalidf("Slice restrictions are not supported on duration columns")
	}
	if t.MultiCell() && r.op != cql.OpEq && r.op != cql.OpNeq {
		return invalidf("Collection column '%s' (%s) cannot be restricted by a '%s' relation", col.Name, t, r.op)
	}
	b.walkTerm(r.value, t, col.Name, ti)
	return nil
}

func (b *planner) multiRestriction(ti *tableInfo, w *where, r *restriction) error {
	names := make([]string, len(r.cols))
	types := make([]*cql.Type, len(r.cols))
	for i, c := range r.cols {
		col := ti.cols[c]
		names[i] = col.Name
		types[i] = col.Type
		if col.Kind != schema.Clustering {
			return invalidf("Multi-column relations can only be applied to clustering columns but was applied to: %s", col.Name)
		}
		if i > 0 && col.Position != ti.cols[r.cols[i-1]].Position+1 {
			return invalidf("Clustering columns must appear in the PRIMARY KEY order in multi-column relations: (%s)", strings.Join(names[:i+1], ", "))
		}
	}
	switch r.op {
	case cql.OpEq, cql.OpIn, cql.OpLt, cql.OpLte, cql.OpGt, cql.OpGte:
	default:
		return invalidf("Unsupported \"%s\" relation on multi-column restriction (%s)", r.op, strings.Join(names, ", "))
	}
	tupleName := "(" + strings.Join(names, ",") + ")"
	tt := cql.TupleOf(types...)
	walkTuple := func(term cql.Term, name string) {
		if tl, ok := term.(*cql.TupleLit); ok {
			for i, e := range tl.Elems {
				if i < len(types) {
					b.walkTerm(e, types[i], names[i], ti)
				}
			}
			return
		}
		b.walkTerm(term, tt, name, ti)
	}
	if r.op == cql.OpIn {
		if r.in == nil {
			b.walkTerm(r.value, cql.ListOf(tt), "in("+tupleName+")", ti)
		} else {
			for _, v := range r.in {
				walkTuple(v, tupleName)
			}
		}
	} else {
		walkTuple(r.value, tupleName)
	}
	for _, o := range w.multi {
		if o.op == cql.OpEq || o.op == cql.OpIn || r.op == cql.OpEq || r.op == cql.OpIn {
			return invalidf("%s cannot be restricted by more than one relation if it includes an Equal", names[0])
		}
		if ti.cols[o.cols[0]].Position != ti.cols[r.cols[0]].Position {
			return bindings.Unsupported("multi-column slices starting at different clustering columns are not supported")
		}
		if isLower(o.op) == isLower(r.op) {
			side := "end"
			if isLower(r.op) {
				side = "start"
			}
			return invalidf("More than one restriction was found for the %s bound on %s", side, names[0])
		}
	}
	w.multi = append(w.multi, r)
	return nil
}

func pkNames(ti *tableInfo) string {
	names := make([]string, len(ti.pk))
	for i, c := range ti.pk {
		names[i] = ti.cols[c].Name
	}
	return strings.Join(names, ", ")
}

// ---- evaluation ----

// values evaluates an EQ or IN restriction on one column: the listed
// values, not deduplicated. Nulls and unset values are Cassandra's errors.
func (x *execCtx) restrictionValues(ti *tableInfo, r *restriction) ([][]byte, error) {
	col := ti.cols[r.cols[0]]
	one := func(term cql.Term) ([]byte, error) { return x.restrictionValue(col, term) }
	if r.op == cql.OpEq {
		v, err := one(r.value)
		if err != nil {
			return nil, err
		}
		return [][]byte{v}, nil
	}
	if r.in != nil {
		out := make([][]byte, 0, len(r.in))
		for _, t := range r.in {
			v, err := one(t)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	list, unset, err := x.eval(cql.ListOf(col.Type), r.value, "in("+col.Name+")")
	if err != nil {
		return nil, err
	}
	if unset {
		return nil, invalidf("Invalid unset value for column %s", col.Name)
	}
	if list == nil {
		return nil, invalidf("Invalid null value for column %s", col.Name)
	}
	items, err := splitCollection(list, 1)
	if err != nil {
		return nil, invalidf("Invalid list value for IN restriction on %s", col.Name)
	}
	for _, it := range items {
		if it == nil {
			return nil, invalidf("Invalid null value in condition for column %s", col.Name)
		}
	}
	return items, nil
}

// tupleValues evaluates the tuple(s) of a multi-column relation.
func (x *execCtx) tupleValues(ti *tableInfo, r *restriction) ([][][]byte, error) {
	types := make([]*cql.Type, len(r.cols))
	names := make([]string, len(r.cols))
	for i, c := range r.cols {
		types[i] = ti.cols[c].Type
		names[i] = ti.cols[c].Name
	}
	tupleName := "(" + strings.Join(names, ",") + ")"
	one := func(term cql.Term) ([][]byte, error) {
		var comps [][]byte
		if tl, ok := term.(*cql.TupleLit); ok {
			if len(tl.Elems) != len(types) {
				return nil, invalidf("Expected %d elements in value tuple, but got %d: %s", len(types), len(tl.Elems), tupleName)
			}
			for i, e := range tl.Elems {
				v, unset, err := x.eval(types[i], e, names[i])
				if err != nil {
					return nil, err
				}
				if unset {
					return nil, invalidf("Invalid unset value for tuple field number %d", i)
				}
				comps = append(comps, v)
			}
		} else {
			v, unset, err := x.eval(cql.TupleOf(types...), term, tupleName)
			if err != nil {
				return nil, err
			}
			if unset || v == nil {
				return nil, invalidf("Invalid null value in condition for column %s", tupleName)
			}
			if comps, err = splitTuple(v); err != nil {
				return nil, invalidf("Invalid tuple value for %s", tupleName)
			}
		}
		if len(comps) != len(types) {
			return nil, invalidf("Expected %d elements in value tuple, but got %d: %s", len(types), len(comps), tupleName)
		}
		for i, c := range comps {
			if c == nil {
				return nil, invalidf("Invalid null value in condition for column %s", names[i])
			}
		}
		return comps, nil
	}
	switch {
	case r.op != cql.OpIn:
		t, err := one(r.value)
		if err != nil {
			return nil, err
		}
		return [][][]byte{t}, nil
	case r.in != nil:
		var out [][][]byte
		for _, term := range r.in {
			t, err := one(term)
			if err != nil {
				return nil, err
			}
			out = append(out, t)
		}
		return out, nil
	}
	list, unset, err := x.eval(cql.ListOf(cql.TupleOf(types...)), r.value, "in("+tupleName+")")
	if err != nil {
		return nil, err
	}
	if unset || list == nil {
		return nil, invalidf("Invalid null value in condition for column %s", tupleName)
	}
	items, err := splitCollection(list, 1)
	if err != nil {
		return nil, invalidf("Invalid list value for IN restriction on %s", tupleName)
	}
	var out [][][]byte
	for _, it := range items {
		comps, err := splitTuple(it)
		if err != nil || len(comps) != len(types) {
			return nil, invalidf("Invalid tuple value for %s", tupleName)
		}
		out = append(out, comps)
	}
	return out, nil
}

// cartesian extends every prefix with every value set.
func cartesian(prefixes [][][]byte, vals [][][]byte) ([][][]byte, error) {
	if len(prefixes)*len(vals) > 100000 {
		return nil, invalidf("IN restrictions produce %d combinations, more than the maximum 100000", len(prefixes)*len(vals))
	}
	out := make([][][]byte, 0, len(prefixes)*len(vals))
	for _, p := range prefixes {
		for _, v := range vals {
			n := make([][]byte, 0, len(p)+len(v))
			n = append(append(n, p...), v...)
			out = append(out, n)
		}
	}
	return out, nil
}

// partitionKeys evaluates an exact partition-key restriction into the list
// of partition keys, sorted by the key types' order and deduplicated (as
// Cassandra orders the partitions of an IN query).
func (x *execCtx) partitionKeys(ti *tableInfo, w *where) ([][][]byte, error) {
	if len(w.pk) == 1 && w.pk[0][0].op == cql.OpEq {
		keys, err := x.onePartitionKey(ti, w.pk[0][0])
		if err != nil || len(w.token) == 0 {
			return keys, err
		}
		return x.filterByToken(ti, w.token, keys)
	}
	keys := [][][]byte{nil}
	for _, rs := range w.pk {
		vals, err := x.restrictionValues(ti, rs[0])
		if err != nil {
			return nil, err
		}
		if len(vals) == 1 && len(keys) == 1 {
			if keys[0] == nil {
				keys[0] = vals[:1:1] // a fresh slice: one allocation less
			} else {
				keys[0] = append(keys[0], vals[0])
			}
			continue
		}
		wrapped := make([][][]byte, len(vals))
		for j, v := range vals {
			wrapped[j] = [][]byte{v}
		}
		if keys, err = cartesian(keys, wrapped); err != nil {
			return nil, err
		}
	}
	if len(keys) > 1 {
		types := make([]*cql.Type, len(ti.pk))
		for i, c := range ti.pk {
			types[i] = ti.cols[c].Type
		}
		keys = sortUniqueTuples(types, keys)
	}
	if len(w.token) > 0 {
		return x.filterByToken(ti, w.token, keys)
	}
	return keys, nil
}

func sortUniqueTuples(types []*cql.Type, keys [][][]byte) [][][]byte {
	cmp := func(a, b [][]byte) int {
		for i := range a {
			if c := cql.Compare(types[i], a[i], b[i]); c != 0 {
				return c
			}
		}
		return 0
	}
	sort.SliceStable(keys, func(i, j int) bool { return cmp(keys[i], keys[j]) < 0 })
	out := keys[:0]
	for i, k := range keys {
		if i > 0 && cmp(out[len(out)-1], k) == 0 {
			continue
		}
		out = append(out, k)
	}
	return out
}

// sortUniqueKeys sorts encoded keys and drops duplicates.
func sortUniqueKeys(keys [][]byte) [][]byte {
	sort.Slice(keys, func(i, j int) bool { return bytes.Compare(keys[i], keys[j]) < 0 })
	out := keys[:0]
	for i, k := range keys {
		if i > 0 && bytes.Equal(out[len(out)-1], k) {
			continue
		}
		out = append(out, k)
	}
	return out
}
