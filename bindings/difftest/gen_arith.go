package difftest

import (
	"fmt"
	"strings"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// arithRead is a read whose selection is arithmetic: operators over the
// table's number columns, random literals and type-hinted bind markers,
// nested and negated, inside scalar functions (abs, cast) and aggregates
// (sum(v + 1)), over aggregates (sum(v) + 1, sum(d) / count(*)), with
// text concatenation. It is its own kind of read (not a corner of
// functionRead) so that every run compares a few hundred of them: the
// decimal rules (BigDecimal scales, int operands through their double)
// and Java's integer wrapping only show with many random values.
func (g *Generator) arithRead(t *table) Step {
	r := g.r
	s := g.newStmt(true)
	a := &arithGen{g: g, s: s}
	for _, c := range t.all() {
		switch {
		case arithOperand[c.typ.Kind]:
			a.nums = append(a.nums, c.name)
		case c.typ.Kind == cql.KindText || c.typ.Kind == cql.KindAscii:
			a.texts = append(a.texts, c.name)
		case c.typ.Kind == cql.KindTimestamp || c.typ.Kind == cql.KindDate:
			a.times = append(a.times, c)
		case c.typ.Kind == cql.KindDuration:
			a.durs = append(a.durs, c.name)
		}
	}
	aggregate := r.IntN(3) == 0
	var sel []string
	for range 1 + r.IntN(4) {
		if aggregate {
			sel = append(sel, a.aggExpr(t))
		} else {
			sel = append(sel, a.rowExpr(2))
		}
	}
	// The WHERE clause's values are bound after the selection's.
	where := func() string { return " WHERE " + strings.Join(eqs(s, t.pk, g.keyTuple(t.pk)), " AND ") }
	var q string
	switch {
	case aggregate && r.IntN(3) == 0: // per partition, over the table
		q = fmt.Sprintf("SELECT %s, %s FROM %s GROUP BY %s", names(t.pk), strings.Join(sel, ", "), t.name, names(t.pk))
	case aggregate:
		q = fmt.Sprintf("SELECT %s FROM %s", strings.Join(sel, ", "), t.name) + where()
	default:
		q = fmt.Sprintf("SELECT %s, %s FROM %s", names(t.pk), strings.Join(sel, ", "), t.name) + where()
	}
	st := g.step(g.ks, &bindings.Request{Query: q, Values: s.vals}, t.name)
	st.Text = s.text(q)
	return st
}

// arithGen draws the expressions of one arithRead.
type arithGen struct {
	g     *Generator
	s     *stmt
	nums  []string  // number columns (arithOperand)
	texts []string  // text and ascii columns
	times []*column // timestamp and date columns
	durs  []string  // duration columns
}

var arithOps = []string{"+", "-", "*", "/", "%"}

// hintKinds are the types a hinted literal or marker takes.
var hintKinds = []cql.Kind{cql.KindInt, cql.KindBigint, cql.KindSmallint, cql.KindTinyint, cql.KindVarint, cql.KindDecimal}

// operand is a number column, an integer or float literal (small, zero,
// or beyond int), or a type-hinted literal or bind marker.
func (a *arithGen) operand() string {
	r := a.g.r
	p := r.IntN(10)
	switch {
	case p < 4 && len(a.nums) > 0:
		return a.nums[r.IntN(len(a.nums))]
	case p < 6:
		return fmt.Sprint(r.IntN(41) - 20)
	case p < 7:
		return fmt.Sprintf("%d.%d", r.IntN(200)-100, r.IntN(1000))
	case p < 8:
		return fmt.Sprint(r.Int64N(1<<40) * int64(1+r.IntN(3000)))
	}
	k := hintKinds[r.IntN(len(hintKinds))]
	t := cql.Scalar(k)
	return "(" + t.String() + ") " + a.s.val(t, a.g.value(t))
}

// rowExpr is an operation over one row's values, depth levels deep at
// most.
func (a *arithGen) rowExpr(depth int) string {
	r := a.g.r
	if len(a.times) > 0 && depth == 2 && r.IntN(4) == 0 { // at the top: not an operand
		return a.temporalExpr()
	}
	if len(a.texts) > 0 && r.IntN(8) == 0 {
		x := a.texts[r.IntN(len(a.texts))]
		if r.IntN(2) == 0 {
			return x + " + " + a.texts[r.IntN(len(a.texts))]
		}
		return x + " + '" + words[1+r.IntN(6)] + "'"
	}
	// Operands are drawn in the order they are written: a drawn marker
	// binds its value at once.
	left := func() string {
		if len(a.nums) > 0 && r.IntN(3) != 0 {
			return a.nums[r.IntN(len(a.nums))] // mostly a column on the left
		}
		return a.operand()
	}
	simple := func() string {
		l := left()
		return l + " " + arithOps[r.IntN(len(arithOps))] + " " + a.operand()
	}
	if depth == 0 {
		return simple()
	}
	switch r.IntN(6) {
	case 0:
		e := "(" + simple() + ") " + arithOps[r.IntN(len(arithOps))]
		return e + " " + a.operand()
	case 1:
		e := a.operand() + " " + arithOps[r.IntN(len(arithOps))]
		return e + " (" + a.rowExpr(depth-1) + ")"
	case 2:
		return "-(" + simple() + ")"
	case 3:
		f := []string{"abs(%s)", "cast(%s as text)", "cast(%s as bigint)", "cast(%s as decimal)"}[r.IntN(4)]
		return fmt.Sprintf(f, a.rowExpr(depth-1))
	}
	return simple()
}

// temporalExpr is a timestamp or date ± a duration: a literal with
// months (GregorianCalendar's month arithmetic), days, or finer units
// (a date refuses those, a timestamp those below a millisecond: both
// must fail alike), or a duration column.
func (a *arithGen) temporalExpr() string {
	r := a.g.r
	c := a.times[r.IntN(len(a.times))]
	op := []string{" + ", " - "}[r.IntN(2)]
	if len(a.durs) > 0 && r.IntN(5) == 0 {
		return c.name + op + a.durs[r.IntN(len(a.durs))]
	}
	var d string
	if r.IntN(2) == 0 {
		d = fmt.Sprintf("%dmo", 1+r.IntN(40))
	}
	if d == "" || r.IntN(2) == 0 {
		d += fmt.Sprintf("%dd", r.IntN(400))
	}
	if c.typ.Kind == cql.KindTimestamp || r.IntN(10) == 0 {
		switch r.IntN(4) {
		case 0:
			d += fmt.Sprintf("%dh%dm", r.IntN(30), r.IntN(60))
		case 1:
			d += fmt.Sprintf("%dms", r.IntN(100000))
		case 2:
			if r.IntN(4) == 0 {
				d += "3us"
			}
		}
	}
	if r.IntN(6) == 0 {
		d = "-" + d
	}
	e := c.name + op + d
	if r.IntN(4) == 0 {
		e = "cast(" + e + " as text)"
	}
	return e
}

// aggExpr is an aggregate of an operation, or an operation or function
// over aggregates.
func (a *arithGen) aggExpr(t *table) string {
	r := a.g.r
	if len(a.nums) == 0 {
		return "count(*) " + arithOps[r.IntN(len(arithOps))] + " " + a.operand()
	}
	n := a.nums[r.IntN(len(a.nums))]
	m := a.nums[r.IntN(len(a.nums))]
	op := arithOps[r.IntN(len(arithOps))]
	switch r.IntN(10) {
	case 0:
		return fmt.Sprintf("sum(%s)", a.rowExpr(1))
	case 1:
		return fmt.Sprintf("avg(%s %s %s)", n, op, a.operand())
	case 2:
		return fmt.Sprintf("abs(sum(%s))", n)
	case 3:
		return fmt.Sprintf("max(%s) - min(%s)", n, n)
	case 4:
		return fmt.Sprintf("sum(%s) / count(*)", n)
	case 5:
		return fmt.Sprintf("cast(avg(%s) as text)", n)
	case 6:
		return fmt.Sprintf("sum(%s) %s %s", n, op, n) // the group's first row
	case 7:
		return fmt.Sprintf("-sum(%s) %s sum(%s)", n, op, m)
	case 8:
		return fmt.Sprintf("count(%s) %s %s", n, op, a.operand())
	}
	return fmt.Sprintf("sum(%s) %s %s", n, op, a.operand())
}
