package difftest

import (
	"fmt"
	"strings"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// User-defined types: the keyspace has two (one nested in the other);
// a table may have UDT columns, frozen and not, kept apart from the
// regular columns (t.udts) so that only this file's statements touch
// them: whole-value writes, field updates and deletions of non-frozen
// UDTs, field selection.

// udtSetup declares the keyspace's types and returns their CREATE TYPE
// steps, in dependency order.
func (g *Generator) udtSetup() []Step {
	u0 := &cql.Type{Kind: cql.KindUDT, Keyspace: g.ks, Name: "u0", Fields: []string{"a", "b"},
		Elems: []*cql.Type{cql.Scalar(cql.KindInt), cql.Scalar(cql.KindText)}}
	u1 := &cql.Type{Kind: cql.KindUDT, Keyspace: g.ks, Name: "u1", Fields: []string{"x", "y", "z"},
		Elems: []*cql.Type{cql.Scalar(cql.KindBigint), cql.FrozenOf(cql.SetOf(cql.Scalar(cql.KindText))), frozenUDT(u0)}}
	g.udtTypes = []*cql.Type{u0, u1}
	var steps []Step
	for _, u := range g.udtTypes {
		fields := make([]string, len(u.Fields))
		for i, f := range u.Fields {
			fields[i] = f + " " + u.Elems[i].String()
		}
		steps = append(steps, g.step(g.ks, &bindings.Request{Query: fmt.Sprintf("CREATE TYPE %s (%s)", u.Name, strings.Join(fields, ", "))}, ""))
	}
	return steps
}

func frozenUDT(u *cql.Type) *cql.Type {
	f := *u
	f.Frozen = true
	return &f
}

// udtColumns draws a table's UDT columns: none a third of the time, else
// one or two, each frozen or not.
func (g *Generator) udtColumns() []*column {
	if len(g.udtTypes) == 0 || g.r.IntN(3) == 0 {
		return nil
	}
	var out []*column
	for i := range 1 + g.r.IntN(2) {
		typ := g.udtTypes[g.r.IntN(len(g.udtTypes))]
		if g.r.IntN(3) == 0 {
			typ = frozenUDT(typ)
		}
		out = append(out, &column{name: fmt.Sprintf("u%d", i), typ: typ})
	}
	return out
}

// udtValue draws a UDT value: every field set or null, and now and then
// the last fields left out (Cassandra reads them as null).
func (g *Generator) udtValue(t *cql.Type) []byte {
	n := len(t.Elems)
	if g.r.IntN(5) == 0 {
		n = g.r.IntN(n + 1)
	}
	var out []byte
	for _, et := range t.Elems[:n] {
		if g.r.IntN(5) == 0 {
			out = append(out, 0xff, 0xff, 0xff, 0xff)
			continue
		}
		v := g.value(et)
		out = append(out, be32(uint32(len(v)))...)
		out = append(out, v...)
	}
	return out
}

// udtAssignment sets a UDT column: a field of a non-frozen one now and
// then, else the whole value.
func (g *Generator) udtAssignment(s *stmt, c *column) string {
	if !c.typ.Frozen && g.r.IntN(2) == 0 {
		i := g.r.IntN(len(c.typ.Fields))
		return fmt.Sprintf("%s.%s = %s", c.name, c.typ.Fields[i], s.val(c.typ.Elems[i], g.value(c.typ.Elems[i])))
	}
	return c.name + " = " + g.valueOrNull(s, c)
}

// udtDeleteTarget deletes a field of a non-frozen UDT now and then, else
// the whole column.
func (g *Generator) udtDeleteTarget(c *column) string {
	if !c.typ.Frozen && g.r.IntN(2) == 0 {
		return c.name + "." + c.typ.Fields[g.r.IntN(len(c.typ.Fields))]
	}
	return c.name
}

// udtRead selects fields of a table's UDT columns (and whole ones) from a
// partition or the whole table.
func (g *Generator) udtRead(t *table) Step {
	s := g.newStmt(true)
	sel := strings.Split(names(t.pk), ", ")
	for _, c := range t.udts {
		switch g.r.IntN(3) {
		case 0:
			sel = append(sel, c.name)
		default:
			sel = append(sel, c.name+"."+c.typ.Fields[g.r.IntN(len(c.typ.Fields))])
		}
	}
	q := "SELECT " + strings.Join(sel, ", ") + " FROM " + g.tableName(t)
	if g.r.IntN(3) != 0 {
		q += " WHERE " + strings.Join(eqs(s, t.pk, g.keyTuple(t.pk)), " AND ")
	}
	st := g.step(g.ks, &bindings.Request{Query: q, Values: s.vals}, t.name)
	st.Text = s.text(q)
	return st
}
