package difftest

import (
	"fmt"
	"strings"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// functionRead selects native function calls of the table's columns in
// one partition: blob conversions, CAST, toJson, math, time, collection
// and masking functions, writetime/maxwritetime. Functions whose result
// depends on floating-point library rounding (exp, log) stay out: Java's
// and Go's last bits may differ without either being wrong.
func (g *Generator) functionRead(t *table) Step {
	r := g.r
	s := g.newStmt(true)
	cols := t.all()
	sel := []string{names(t.pk)}
	for range 1 + r.IntN(4) {
		c := cols[r.IntN(len(cols))]
		if calls := functionCalls(t, c); len(calls) > 0 {
			sel = append(sel, calls[r.IntN(len(calls))])
		}
	}
	if r.IntN(2) == 0 {
		sel = append(sel, g.operations(cols)...)
	}
	q := fmt.Sprintf("SELECT %s FROM %s WHERE %s", strings.Join(sel, ", "), t.name, strings.Join(eqs(s, t.pk, g.keyTuple(t.pk)), " AND "))
	st := g.step(g.ks, &bindings.Request{Query: q, Values: s.vals}, t.name)
	st.Text = s.text(q)
	return st
}

// functionCalls lists calls that Cassandra 5.0 accepts for column c.
func functionCalls(t *table, c *column) []string {
	n := c.name
	k := c.typ.Kind
	regular := false
	for _, x := range append(append([]*column{}, t.statics...), t.regulars...) {
		regular = regular || x == c
	}
	var out []string
	if regular {
		out = append(out, "writetime("+n+")", "maxwritetime("+n+")")
	}
	if c.typ.IsCollection() {
		out = append(out, "collection_count("+n+")", "mask_default("+n+")", "mask_null("+n+")")
		if et := c.typ.Elems[len(c.typ.Elems)-1].Kind; et != cql.KindDouble && et != cql.KindFloat {
			out = append(out, "toJson("+n+")")
		}
		switch {
		case k == cql.KindMap:
			out = append(out, "map_keys("+n+")", "map_values("+n+")")
		default:
			out = append(out, "collection_min("+n+")", "collection_max("+n+")")
			if c.typ.Elems[0].Kind == cql.KindInt {
				out = append(out, "collection_sum("+n+")", "collection_avg("+n+")")
			}
		}
		return out
	}
	out = append(out, "mask_null("+n+")", "mask_hash("+n+")")
	if k != cql.KindDouble && k != cql.KindFloat {
		// Java 17's Double.toString is not always the shortest form
		// (JDK-4511638): floating-point text stays out.
		out = append(out, "toJson("+n+")")
	}
	if k != cql.KindDuration {
		out = append(out, "mask_default("+n+")")
	}
	if k != cql.KindBlob {
		out = append(out, fmt.Sprintf("%sAsBlob(%s)", k, n), fmt.Sprintf("blobAs%s(%sAsBlob(%s))", k, k, n))
	}
	switch k {
	case cql.KindInt, cql.KindBigint, cql.KindSmallint, cql.KindTinyint, cql.KindVarint:
		out = append(out, "abs("+n+")", "round("+n+")", "cast("+n+" as text)", "cast("+n+" as bigint)",
			"cast("+n+" as tinyint)", "cast("+n+" as double)", "cast("+n+" as decimal)")
	case cql.KindDouble, cql.KindFloat:
		out = append(out, "abs("+n+")", "round("+n+")", "cast("+n+" as int)", "cast("+n+" as bigint)")
	case cql.KindDecimal:
		// exp/log/log10 of a decimal are BigDecimal computations to 32
		// digits (not the floating-point library's), so they are compared.
		out = append(out, "abs("+n+")", "cast("+n+" as bigint)", "cast("+n+" as text)", "exp("+n+")", "log("+n+")", "log10("+n+")")
	case cql.KindText, cql.KindAscii:
		out = append(out, "mask_inner("+n+", 1, 1)", "mask_outer("+n+", 2, 0, '#')", "mask_replace("+n+", 'x')")
	case cql.KindTimestamp:
		out = append(out, "toDate("+n+")", "toUnixTimestamp("+n+")", "cast("+n+" as text)", "minTimeuuid("+n+")")
	case cql.KindTimeuuid:
		out = append(out, "toTimestamp("+n+")", "toDate("+n+")", "toUnixTimestamp("+n+")", "cast("+n+" as text)")
	case cql.KindDate:
		out = append(out, "toTimestamp("+n+")", "toUnixTimestamp("+n+")", "cast("+n+" as text)")
	case cql.KindBoolean, cql.KindUUID, cql.KindInet, cql.KindTime:
		out = append(out, "cast("+n+" as text)")
	}
	return out
}

// arithOperand lists the number types operators are drawn over; float
// and double are left out of decimal results' text only through
// Double.toString, which Java 17 does not always print shortest.
var arithOperand = map[cql.Kind]bool{cql.KindInt: true, cql.KindBigint: true, cql.KindSmallint: true,
	cql.KindTinyint: true, cql.KindVarint: true, cql.KindDecimal: true}

// operations draws arithmetic over the table's number columns and random
// literals: every operator, mixed types, nesting, negation (a zero
// divisor is drawn too: both must fail alike).
func (g *Generator) operations(cols []*column) []string {
	r := g.r
	var nums []string
	for _, c := range cols {
		if arithOperand[c.typ.Kind] {
			nums = append(nums, c.name)
		}
	}
	if len(nums) == 0 {
		return nil
	}
	operand := func() string {
		switch r.IntN(6) {
		case 0:
			return fmt.Sprint(r.IntN(2001) - 1000)
		case 1:
			return fmt.Sprintf("%d.%d", r.IntN(200)-100, r.IntN(1000))
		case 2:
			return fmt.Sprint(r.Int64N(1<<40) * int64(1+r.IntN(3000)))
		}
		return nums[r.IntN(len(nums))]
	}
	ops := []string{"+", "-", "*", "/", "%"}
	var out []string
	for range 1 + r.IntN(3) {
		e := nums[r.IntN(len(nums))] + " " + ops[r.IntN(len(ops))] + " " + operand()
		switch r.IntN(4) {
		case 0:
			e = "(" + e + ") " + ops[r.IntN(len(ops))] + " " + operand()
		case 1:
			e = "-(" + e + ")"
		}
		out = append(out, e)
	}
	return out
}
