package engine

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/internal/murmur3"
)

// token() restrictions, as Cassandra 5.0 plans and executes them.
//
// A token relation bounds the Murmur3 token of the partition key:
// token(k1, k2) op bigint | token(v1, v2). Used alone (or with partition key
// filters under ALLOW FILTERING) it is a range scan over the ring in token
// order (scanRanges, scan.go); with every partition key column restricted
// by = or IN it filters the listed partitions instead (partitionKeys).
// The two modes read the bounds differently, exactly as Cassandra does:
//
//   - range scan: the minimum token -2^63 is the ring's start and its end,
//     so as an upper bound (or the value of token = ?) it means "to the end
//     of the ring"; bounds that cross, or meet with one side exclusive,
//     select nothing.
//   - partition filter: bounds are plain bigint comparisons, and bounds
//     that cross wrap around the ring (token < hi OR token > lo).

// tokenRelation binds a token relation to the table and merges it into
// w.token with Cassandra's checks and messages.
func (b *planner) tokenRelation(ti *tableInfo, w *where, rel *cql.Relation) error {
	if rel.Op == cql.OpNeq {
		return invalidf("Unsupported \"!=\" relation: token(%s) != %s", strings.Join(rel.Columns, ", "), termText(rel.Value))
	}
	cols := make([]int, len(rel.Columns))
	for i, name := range rel.Columns {
		c, err := ti.column(name)
		if err != nil {
			return err
		}
		cols[i] = c
	}
	if !slices.Equal(cols, ti.pk) {
		// Cassandra's order of checks (TokenRelation.toReceivers).
		for _, c := range ti.pk {
			if !slices.Contains(cols, c) {
				return invalidf("The token() function must be applied to all partition key components or none of them")
			}
		}
		for i, c := range cols {
			if slices.Contains(cols[:i], c) {
				return invalidf("The token() function contains duplicate partition key components")
			}
		}
		if len(cols) != len(ti.pk) {
			return invalidf("The token() function must contains only partition key components")
		}
		return invalidf("The token function arguments must be in the partition key order: %s", pkNames(ti))
	}
	switch rel.Op {
	case cql.OpEq, cql.OpLt, cql.OpLte, cql.OpGt, cql.OpGte:
	default:
		return invalidf("%s cannot be used with the token function", rel.Op)
	}
	if fn, ok := tokenCall(rel.Value); ok {
		if len(fn.Args) != len(ti.pk) {
			return invalidf("Invalid number of arguments in call to function system.token: %d required but %d provided", len(ti.pk), len(fn.Args))
		}
		for i, a := range fn.Args {
			t := ti.cols[ti.pk[i]].Type
			if !cql.Assignable(t, a) {
				return invalidf("Type error: %s cannot be passed as argument %d of function system.token of type %s", termText(a), i, t)
			}
			// Markers take their partition key column's type, named as
			// Cassandra names function arguments.
			b.walkTerm(a, t, fmt.Sprintf("arg%d(system.token)", i), ti)
		}
	} else {
		b.walkTerm(rel.Value, cql.Scalar(cql.KindBigint), "partition key token", ti)
	}
	r := &restriction{cols: cols, op: rel.Op, value: rel.Value, token: true}
	names := pkNames(ti)
	for _, o := range w.token {
		switch {
		case o.op == cql.OpEq:
			return invalidf("%s cannot be restricted by more than one relation if it includes an Equal", names)
		case r.op == cql.OpEq:
			return invalidf("Columns \"%s\" cannot be restricted by both an equality and an inequality relation", names)
		case isLower(o.op) == isLower(r.op):
			side := "end"
			if isLower(r.op) {
				side = "start"
			}
			return invalidf("More than one restriction was found for the %s bound on %s", side, names)
		}
	}
	w.token = append(w.token, r)
	return nil
}

// tokenCall reports a token(...) call used as a token bound.
func tokenCall(t cql.Term) (*cql.FuncCall, bool) {
	fn, ok := t.(*cql.FuncCall)
	if !ok || canonicalFunc(fn.Name) != "token" {
		return nil, false
	}
	return fn, true
}

// tokenSpan is an evaluated token restriction: optional lower and upper
// bounds (an equality sets both, inclusive).
type tokenSpan struct {
	hasLo, hasHi bool
	loInc, hiInc bool
	lo, hi       int64
}

// evalTokenSpan evaluates the token restrictions of a query (at most one
// per side, or one equality, as tokenRelation ensures).
func (x *execCtx) evalTokenSpan(ti *tableInfo, rs []*restriction) (tokenSpan, error) {
	var s tokenSpan
	for _, r := range rs {
		b, err := x.tokenValue(ti, r.value)
		if err != nil {
			return s, err
		}
		t := int64(be64u(b))
		switch r.op {
		case cql.OpEq:
			s.hasLo, s.lo, s.loInc = true, t, true
			s.hasHi, s.hi, s.hiInc = true, t, true
		case cql.OpGt, cql.OpGte:
			s.hasLo, s.lo, s.loInc = true, t, r.op == cql.OpGte
		case cql.OpLt, cql.OpLte:
			s.hasHi, s.hi, s.hiInc = true, t, r.op == cql.OpLte
		}
	}
	return s, nil
}

// ringRange returns the inclusive token interval a range scan reads, as
// Cassandra's getPartitionKeyBoundsForTokenRestrictions computes it; ok is
// false when it selects nothing.
func (s tokenSpan) ringRange() (lo, hi int64, ok bool) {
	lo, loInc := int64(math.MinInt64), true
	hi, hiInc := int64(math.MinInt64), true
	if s.hasLo {
		lo, loInc = s.lo, s.loInc
	}
	if s.hasHi {
		hi, hiInc = s.hi, s.hiInc
	}
	if hi == math.MinInt64 {
		// The minimum token as the end bound is the end of the ring.
		hi, hiInc = math.MaxInt64, true
	} else if lo != math.MinInt64 && (lo > hi || (lo == hi && (!loInc || !hiInc))) {
		// Cassandra does not wrap around the ring here (CASSANDRA-5573).
		return 0, 0, false
	}
	if !loInc {
		if lo == math.MaxInt64 {
			return 0, 0, false
		}
		lo++
	}
	if !hiInc {
		hi-- // hi > MinInt64 here
	}
	return lo, hi, lo <= hi
}

// contains reports whether a partition with token t passes the
// restriction used as a filter of listed partitions (Cassandra's
// TokenFilter): plain comparisons; crossing bounds wrap around the ring.
func (s tokenSpan) contains(t int64) bool {
	above := !s.hasLo || t > s.lo || (s.loInc && t == s.lo)
	below := !s.hasHi || t < s.hi || (s.hiInc && t == s.hi)
	if !s.hasLo || !s.hasHi {
		return above && below
	}
	switch {
	case s.lo == s.hi && (!s.loInc || !s.hiInc):
		return false
	case s.lo <= s.hi:
		return above && below
	}
	return above || below
}

// filterByToken keeps the partition keys whose token passes the token
// restrictions (partition list queries).
func (x *execCtx) filterByToken(ti *tableInfo, rs []*restriction, keys [][][]byte) ([][][]byte, error) {
	span, err := x.evalTokenSpan(ti, rs)
	if err != nil {
		return nil, err
	}
	out := keys[:0]
	for _, k := range keys {
		if span.contains(murmur3.Token(SerializePartitionKey(k))) {
			out = append(out, k)
		}
	}
	return out, nil
}

// tokenValue evaluates the bound of a token restriction: a bigint, or
// token(...) of partition key values. Null is Cassandra's error (token()
// of a null is null).
func (x *execCtx) tokenValue(ti *tableInfo, term cql.Term) ([]byte, error) {
	errNull := invalidf("Invalid null token value")
	fn, ok := tokenCall(term)
	if !ok {
		b, unset, err := x.eval(cql.Scalar(cql.KindBigint), term, "partition key token")
		if err != nil {
			return nil, err
		}
		if unset {
			return nil, invalidf("Invalid unset value for partition key token")
		}
		if b == nil {
			return nil, errNull
		}
		if len(b) != 8 {
			return nil, invalidf("Invalid token value: expected 8 bytes, got %d", len(b))
		}
		return b, nil
	}
	if len(fn.Args) != len(ti.pk) {
		return nil, invalidf("Invalid number of arguments in call to function system.token: %d required but %d provided", len(ti.pk), len(fn.Args))
	}
	comps := make([][]byte, len(fn.Args))
	for i, a := range fn.Args {
		col := ti.cols[ti.pk[i]]
		v, unset, err := x.eval(col.Type, a, fmt.Sprintf("arg%d(system.token)", i))
		if err != nil {
			return nil, err
		}
		if unset {
			return nil, invalidf("Invalid unset value for argument in call to function token")
		}
		if v == nil {
			return nil, errNull
		}
		comps[i] = v
	}
	ser := SerializePartitionKey(comps)
	if ser == nil && len(comps) > 1 {
		return nil, invalidf("Invalid value in call to function system.token: a partition key component is longer than %d bytes", math.MaxUint16)
	}
	return be64(murmur3.Token(ser)), nil
}

// compileTokenSelector compiles token(...) in a selection. Cassandra's
// token() is a function of values of the partition key types: usually the
// partition key columns, but any columns of the same types are accepted
// (token(c) of an int clustering column on an int partition key).
func compileTokenSelector(ti *tableInfo, sl *cql.Selector) (selector, error) {
	if len(sl.Args) != len(ti.pk) {
		return selector{}, invalidf("Invalid number of arguments in call to function system.token: %d required but %d provided", len(ti.pk), len(sl.Args))
	}
	names := make([]string, len(sl.Args))
	args := make([]int, len(sl.Args))
	for i, a := range sl.Args {
		if a.Kind != cql.SelColumn {
			return selector{}, bindings.Unsupported("token() of expressions other than columns is not supported by dohyo's wide-column engine")
		}
		c, err := ti.column(a.Column)
		if err != nil {
			return selector{}, err
		}
		want := ti.cols[ti.pk[i]].Type
		if got := ti.cols[c].Type; !got.Equal(want) {
			return selector{}, invalidf("Type error: %s cannot be passed as argument %d of function system.token of type %s", a.Column, i, want)
		}
		names[i], args[i] = a.Column, c
	}
	sc := selector{kind: selToken, spec: ti.specNamed("system.token("+strings.Join(names, ", ")+")", cql.Scalar(cql.KindBigint))}
	if !slices.Equal(args, ti.pk) {
		sc.args = args
	}
	return sc, nil
}

// tokenOfColumns computes token() of arbitrary columns of a row; a null
// argument gives null, as for every native function.
func tokenOfColumns(ti *tableInfo, args []int, r *cqlRow, statics *cqlRow) []byte {
	comps := make([][]byte, len(args))
	for i, c := range args {
		if comps[i] = columnValue(ti, c, r, statics); comps[i] == nil {
			return nil
		}
	}
	ser := SerializePartitionKey(comps)
	if ser == nil && len(comps) > 1 {
		return nil
	}
	return be64(murmur3.Token(ser))
}
