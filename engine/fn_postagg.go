package engine

// Aggregates inside scalar functions and operators (abs(sum(v)),
// sum(v) + 1, cast(avg(d) as text), count(*) * 2, sum(i) + i): Cassandra
// 5.0 evaluates such a selector once per group, after aggregation. The
// selector (selPostAgg) keeps an inner selection of "slots": each
// aggregate of the expression and each maximal aggregate-free subtree
// reading the row (a column, writetime(c), abs(c), ...). The inner
// selection is aggregated like any other (a plain slot keeps the group's
// first row, as Cassandra's simple selectors do), then the expression is
// evaluated over the slots' values.

import (
	"strings"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// aggRefExpr is slot i of a post-aggregation expression.
type aggRefExpr struct{ i int }

func (e aggRefExpr) eval(c *rowCtx) ([]byte, error) {
	if e.i >= len(c.agg) {
		return nil, nil
	}
	return c.agg[e.i], nil
}

// aggregateCall reports a selector that is itself an aggregate: count(*),
// count/min/max/sum/avg or a user-defined aggregate.
func (b *planner) aggregateCall(ti *tableInfo, sl *cql.Selector) bool {
	switch sl.Kind {
	case cql.SelCountStar:
		return true
	case cql.SelCall:
	default:
		return false
	}
	switch strings.TrimPrefix(strings.ToLower(sl.Func), "system.") {
	case "count", "min", "max", "sum", "avg":
		return true
	}
	ks, name, ok := b.udfName(strings.ToLower(sl.Func), ti.t.Keyspace)
	if !ok {
		return false
	}
	fs, as := b.udfCandidates(ks, name)
	return len(as) > 0 && len(fs) == 0
}

// hasAggregate reports an aggregate anywhere in a selector.
func (b *planner) hasAggregate(ti *tableInfo, sl *cql.Selector) bool {
	if sl == nil {
		return false
	}
	if b.aggregateCall(ti, sl) {
		return true
	}
	for _, a := range sl.Args {
		if b.hasAggregate(ti, a) {
			return true
		}
	}
	return false
}

// checkAggregateArgs refuses an aggregate of an aggregate, as Cassandra.
func (b *planner) checkAggregateArgs(ti *tableInfo, sl *cql.Selector) error {
	for _, a := range sl.Args {
		if b.hasAggregate(ti, a) {
			return invalidf("aggregate functions cannot be used as arguments of aggregate functions")
		}
	}
	return nil
}

// postAggSelector compiles a function call, cast or operation over
// aggregates.
func (b *planner) postAggSelector(ti *tableInfo, sl *cql.Selector) (selector, error) {
	var slots []selector
	b.aggSlots = &slots
	e, t, name, refs, err := b.compileExpr(ti, sl)
	b.aggSlots = nil
	if err != nil {
		return selector{}, err
	}
	return selector{kind: selPostAgg, expr: e, refs: refs, spec: ti.specNamed(name, t),
		inner: &selection{sels: slots, aggregate: true}}, nil
}

// slotExpr compiles an aggregate, or a subtree free of aggregates, of a
// post-aggregation expression into a slot of the inner selection.
func (b *planner) slotExpr(ti *tableInfo, sl *cql.Selector) (expr, *cql.Type, string, []int, error) {
	slots := b.aggSlots
	b.aggSlots = nil
	sc, err := b.compileSelector(ti, sl)
	b.aggSlots = slots
	if err != nil {
		return nil, nil, "", nil, err
	}
	if sc.kind == selPostAgg {
		return nil, nil, "", nil, bindings.Unsupported("this selector is not supported by dohyo's wide-column engine")
	}
	*slots = append(*slots, sc)
	return aggRefExpr{i: len(*slots) - 1}, sc.spec.Type, sc.spec.Name, selectorRefs(sc), nil
}

// selectorRefs lists the columns a compiled selector reads.
func selectorRefs(sc selector) []int {
	switch {
	case sc.expr != nil || sc.kind == selToken:
		return sc.refs
	case sc.kind == selCountStar || sc.kind == selUDA:
		return nil
	}
	return []int{sc.col}
}

// postAggAdd feeds a row to selector i's inner aggregation.
func (a *aggState) postAggAdd(i int, sc selector, ti *tableInfo, r, statics *cqlRow, env *rowEnv) {
	if a.sub == nil {
		a.sub = make([]*aggState, len(a.count))
	}
	if a.sub[i] == nil {
		a.sub[i] = newAggState(sc.inner)
	}
	a.sub[i].add(sc.inner, ti, r, statics, env)
}

// postAggResult evaluates selector i over its slots' aggregated values
// (an empty group aggregates nothing: count 0, sum 0, min NULL).
func (a *aggState) postAggResult(i int, s *selection, sc selector, ti *tableInfo, env *rowEnv) []byte {
	var sub *aggState
	if a.sub != nil {
		sub = a.sub[i]
	}
	if sub == nil {
		sub = newAggState(sc.inner)
	}
	vals := sub.result(sc.inner, ti, env)
	v, err := sc.expr.eval(&rowCtx{s: s, ti: ti, env: env, agg: vals})
	if err != nil {
		env.fail(err)
		return nil
	}
	return v
}

// aggSignatures are Cassandra 5.0.9's known type signatures of sum and
// avg, in the order its messages list them.
var aggSignatures = map[string][]string{
	"sum": {"bigint", "smallint", "int", "double", "varint", "counter", "decimal", "tinyint", "float"},
	"avg": {"tinyint", "float", "varint", "counter", "int", "smallint", "double", "bigint", "decimal"},
}

// aggSignatureError is FunctionResolver's refusal of sum or avg of a
// non-number; written is the function as the statement names it (sum,
// SUM or system.sum).
func aggSignatureError(written, name string) error {
	sigs := make([]string, len(aggSignatures[name]))
	for i, t := range aggSignatures[name] {
		sigs[i] = "system." + name + " : (" + t + ") -> " + t
	}
	return invalidf("Invalid call to function %s, none of its type signatures match (known type signatures: %s)",
		strings.ToLower(written), strings.Join(sigs, ", "))
}
