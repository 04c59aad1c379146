package engine

// Function calls and casts in selections: a selector of kind selExpr
// holds an expression tree over the row (columns, writetime/ttl/
// maxwritetime, token, constants and bind markers typed by the function
// parameter they are passed to) evaluated per row.

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"strings"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

// rowEnv is one execution's state for evaluating selections: the time
// (TTL()), the function environment and bound values; err keeps the first
// evaluation error (the query fails with it).
type rowEnv struct {
	nowS int64
	fn   *fnEnv
	x    *execCtx
	err  error
}

func (x *execCtx) rowEnv() *rowEnv {
	if !x.first.usedEnv {
		x.first.usedEnv = true
		f := &x.first
		f.fn = fnEnv{now: x.now, uuids: x.e.uuids}
		f.env = rowEnv{nowS: x.nowS, x: x, fn: &f.fn}
		return &f.env
	}
	a := &struct { // one allocation for both
		env rowEnv
		fn  fnEnv
	}{fn: fnEnv{now: x.now, uuids: x.e.uuids}}
	a.env = rowEnv{nowS: x.nowS, x: x, fn: &a.fn}
	return &a.env
}

// rowCtx is one row being projected.
type rowCtx struct {
	s          *selection
	ti         *tableInfo
	r, statics *cqlRow
	env        *rowEnv
	// agg: a post-aggregation expression's slot values (fn_postagg.go).
	agg [][]byte
}

type expr interface {
	eval(c *rowCtx) ([]byte, error)
}

// colExpr is a plain selector (column, writetime, ttl, token) inside an
// expression.
type colExpr struct{ sc selector }

func (e colExpr) eval(c *rowCtx) ([]byte, error) {
	return c.s.value(c.ti, e.sc, c.r, c.statics, c.env), nil
}

// termExpr is a constant or bind marker, typed by its receiver.
type termExpr struct {
	term cql.Term
	t    *cql.Type
	name string
}

func (e termExpr) eval(c *rowCtx) ([]byte, error) {
	if c.env.x == nil {
		return cql.EncodeTerm(e.t, e.term, e.name, cql.NoResolver{})
	}
	b, _, err := c.env.x.eval(e.t, e.term, e.name)
	return b, err
}

// callExpr is a resolved function call.
type callExpr struct {
	f    *fnCall
	args []expr
}

func (e callExpr) eval(c *rowCtx) ([]byte, error) {
	args := make([][]byte, len(e.args))
	for i, a := range e.args {
		v, err := a.eval(c)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	return e.f.call(c.env.fn, args)
}

// maxWritetimeExpr is maxwritetime(col): the greatest timestamp of the
// column's cells (every element of a collection).
type maxWritetimeExpr struct{ col int }

func (e maxWritetimeExpr) eval(c *rowCtx) ([]byte, error) {
	src := c.r
	if c.ti.cols[e.col].Kind == schema.Static {
		src = c.statics
	}
	if src == nil || e.col >= len(src.cols) || !src.cols[e.col].live {
		return nil, nil
	}
	cv := src.cols[e.col]
	if cv.et == nil {
		return be64(cv.ts), nil
	}
	if len(cv.et.ts) == 0 {
		return nil, nil
	}
	m := cv.et.ts[0]
	for _, ts := range cv.et.ts[1:] {
		m = max(m, ts)
	}
	return be64(m), nil
}

// exprSelector compiles a function call or cast of the selection clause.
func (b *planner) exprSelector(ti *tableInfo, sl *cql.Selector) (selector, error) {
	e, t, name, refs, err := b.compileExpr(ti, sl)
	if err != nil {
		return selector{}, err
	}
	return selector{kind: selExpr, expr: e, refs: refs, spec: ti.specNamed(name, t)}, nil
}

// compileExpr compiles one selector into an expression, its type, its
// result column name and the columns it reads.
func (b *planner) compileExpr(ti *tableInfo, sl *cql.Selector) (expr, *cql.Type, string, []int, error) {
	e, t, name, refs, err := b.compileExprNode(ti, sl)
	if err == nil && b.consts != nil && b.constSelector(ti, sl) {
		*b.consts = append(*b.consts, e)
	}
	return e, t, name, refs, err
}

func (b *planner) compileExprNode(ti *tableInfo, sl *cql.Selector) (expr, *cql.Type, string, []int, error) {
	if b.aggSlots != nil && sl.Kind != cql.SelTerm && (b.aggregateCall(ti, sl) || !b.hasAggregate(ti, sl)) {
		return b.slotExpr(ti, sl)
	}
	switch sl.Kind {
	case cql.SelColumn, cql.SelWritetime, cql.SelTTL:
		sc, err := b.compileSelector(ti, sl)
		if err != nil {
			return nil, nil, "", nil, err
		}
		return colExpr{sc}, sc.spec.Type, sc.spec.Name, []int{sc.col}, nil
	case cql.SelCast:
		if len(sl.Args) != 1 || sl.Args[0] == nil {
			return nil, nil, "", nil, invalidf("Invalid CAST")
		}
		if sl.Args[0].Kind == cql.SelTerm {
			return nil, nil, "", nil, invalidf("Cannot infer type for term %s in selection clause (try using a cast to force a type)", termString(sl.Args[0].Term))
		}
		e, t, name, refs, err := b.compileExpr(ti, sl.Args[0])
		if err != nil {
			return nil, nil, "", nil, err
		}
		if t.String() == sl.Type.String() && !reversedColumn(ti, sl.Args[0], refs) {
			// Cassandra drops a cast to the type the term already has:
			// the column is the term itself, named as it. (Not for a
			// DESC clustering column, whose stored type is reversed:
			// Cassandra looks the cast function up, as below.)
			return e, t, name, refs, nil
		}
		f, err := resolveCast(t, sl.Type, name, reversedColumn(ti, sl.Args[0], refs))
		if err != nil {
			return nil, nil, "", nil, err
		}
		return callExpr{f: f, args: []expr{e}}, sl.Type, "cast(" + name + " as " + sl.Type.String() + ")", refs, nil
	case cql.SelCall:
		return b.compileCallExpr(ti, sl)
	case cql.SelOp, cql.SelNeg:
		return b.compileOp(ti, sl)
	case cql.SelTerm:
		return nil, nil, "", nil, invalidf("Cannot infer type for term %s in selection clause (try using a cast to force a type)", termString(sl.Term))
	case cql.SelCountStar:
		return nil, nil, "", nil, bindings.Unsupported("count(*) inside a function call is not supported by dohyo's wide-column engine")
	}
	return nil, nil, "", nil, bindings.Unsupported("this selector is not supported inside a function call by dohyo's wide-column engine")
}

func (b *planner) compileCallExpr(ti *tableInfo, sl *cql.Selector) (expr, *cql.Type, string, []int, error) {
	name := canonicalFunc(sl.Func)
	written := strings.TrimPrefix(strings.ToLower(sl.Func), "system.")
	switch name {
	case "token":
		sc, err := compileTokenSelector(ti, sl)
		if err != nil {
			return nil, nil, "", nil, err
		}
		return colExpr{sc}, sc.spec.Type, sc.spec.Name, sc.args, nil
	case "writetime", "ttl":
		sc, err := b.compileCall(ti, sl)
		if err != nil {
			return nil, nil, "", nil, err
		}
		return colExpr{sc}, sc.spec.Type, sc.spec.Name, []int{sc.col}, nil
	case "maxwritetime":
		c, err := b.maxWritetimeColumn(ti, sl)
		if err != nil {
			return nil, nil, "", nil, err
		}
		return maxWritetimeExpr{col: c}, cql.Scalar(cql.KindBigint), "maxwritetime(" + ti.cols[c].Name + ")", []int{c}, nil
	case "count", "min", "max", "sum", "avg":
		return nil, nil, "", nil, bindings.Unsupported("aggregate %s() as a function argument is not supported by dohyo's wide-column engine", name)
	case "fromjson":
		return nil, nil, "", nil, invalidf("fromjson() cannot be used in the selection clause of a SELECT statement")
	}
	if e, t, n, refs, ok, err := b.compileUDFCall(ti, sl); ok {
		return e, t, n, refs, err
	}
	args := make([]expr, len(sl.Args))
	types := make([]*cql.Type, len(sl.Args))
	names := make([]string, len(sl.Args))
	var refs []int
	firstReversed := false
	for i, a := range sl.Args {
		if a == nil {
			return nil, nil, "", nil, invalidf("Invalid function call %s", sl.Func)
		}
		if a.Kind == cql.SelTerm {
			names[i] = termString(a.Term)
			continue
		}
		e, t, n, r, err := b.compileExpr(ti, a)
		if err != nil {
			return nil, nil, "", nil, err
		}
		args[i], types[i], names[i] = e, t, n
		refs = append(refs, r...)
		if i == 0 {
			firstReversed = reversedColumn(ti, a, r)
		}
	}
	if err := checkReversedCollectionArg(name, firstReversed, types, names); err != nil {
		return nil, nil, "", nil, err
	}
	f, err := resolveWithLiterals(name, types, func(i int) cql.Term {
		if args[i] == nil {
			return sl.Args[i].Term
		}
		return nil
	})
	if err != nil {
		return nil, nil, "", nil, withArgNames(err, names)
	}
	for i, a := range sl.Args {
		if args[i] != nil {
			continue
		}
		if i >= len(f.params) {
			return nil, nil, "", nil, invalidf("Invalid number of arguments in call to function %s", f.name)
		}
		pt := f.params[i]
		if !cql.Assignable(pt, a.Term) {
			return nil, nil, "", nil, invalidf("Type error: %s cannot be passed as argument %d of function %s of type %s", names[i], i, f.name, pt)
		}
		recv := "[selection]" // Cassandra's name for markers of the selection clause
		b.walkTerm(a.Term, pt, recv, ti)
		args[i] = termExpr{term: a.Term, t: pt, name: recv}
	}
	switch name {
	case "mask_null", "mask_default", "mask_replace": // typed as their argument
		if firstReversed {
			fc := *f // resolveMask typed it as a non-reversed argument's
			fc.ret = timeuuidAsBlob(types[0], true)
			f = &fc
		}
	}
	return callExpr{f: f, args: args}, f.ret, "system." + written + "(" + strings.Join(names, ", ") + ")", refs, nil
}

// maxWritetimeColumn checks maxwritetime(col): a non-key column.
func (b *planner) maxWritetimeColumn(ti *tableInfo, sl *cql.Selector) (int, error) {
	if len(sl.Args) != 1 || sl.Args[0] == nil || sl.Args[0].Kind != cql.SelColumn {
		return 0, bindings.Unsupported("maxwritetime() with these arguments is not supported by dohyo's wide-column engine")
	}
	c, err := ti.column(sl.Args[0].Column)
	if err != nil {
		return 0, err
	}
	if ti.isKey(c) {
		return 0, invalidf("Cannot use selection function maxwritetime on PRIMARY KEY part %s", ti.cols[c].Name)
	}
	return c, nil
}

// termString renders a term as Cassandra does in result column names
// and messages (literals as written, markers as ?).
func termString(t cql.Term) string {
	switch x := t.(type) {
	case *cql.Literal:
		if x.Kind == cql.LitNull {
			return "NULL"
		}
		if x.Kind == cql.LitString {
			return "'" + strings.ReplaceAll(x.Text, "'", "''") + "'"
		}
		return x.Text
	case *cql.BindMarker:
		if x.Name != "" {
			return ":" + x.Name
		}
		return "?"
	case *cql.CollectionLit:
		return collectionTermString(x)
	}
	return "?"
}

// evalExpr evaluates a selExpr selector, keeping the first error in env.
func (s *selection) evalExpr(ti *tableInfo, sc selector, r, statics *cqlRow, env *rowEnv) []byte {
	v, err := sc.expr.eval(&rowCtx{s: s, ti: ti, r: r, statics: statics, env: env})
	if err != nil {
		if env.err == nil {
			env.err = err
		}
		return nil
	}
	return v
}

// aggregateOfExpr compiles count/min/max/sum/avg of a function call or
// cast: the aggregate accumulates the expression's values.
func (b *planner) aggregateOfExpr(ti *tableInfo, written, name string, arg *cql.Selector) (selector, error) {
	e, t, argName, refs, err := b.compileExpr(ti, arg)
	if err != nil {
		return selector{}, err
	}
	sc := selector{expr: e, refs: refs, argType: t, spec: ti.specNamed("system."+name+"("+argName+")", t)}
	switch name {
	case "count":
		sc.kind, sc.spec.Type = selCount, cql.Scalar(cql.KindBigint)
	case "min", "max":
		sc.kind = selMin
		if name == "max" {
			sc.kind = selMax
		}
	default:
		if !numericKind(t.Kind) && !bigNumberKind(t.Kind) {
			return selector{}, aggSignatureError(written, name)
		}
		sc.kind = selSum
		if name == "avg" {
			sc.kind = selAvg
		}
	}
	return sc, nil
}

// callNative evaluates a native function call in a value position
// (INSERT/UPDATE values, WHERE terms): nested calls are evaluated first
// and give their argument's type; literals and markers take the
// parameter's.
func (x *execCtx) callNative(name string, fn *cql.FuncCall) (*cql.Type, []byte, error) {
	types := make([]*cql.Type, len(fn.Args))
	vals := make([][]byte, len(fn.Args))
	for i, a := range fn.Args {
		if c, ok := a.(*cql.FuncCall); ok {
			t, v, err := x.callFunc(canonicalFunc(c.Name), c)
			if err != nil {
				return nil, nil, err
			}
			types[i], vals[i] = t, v
		}
	}
	f, err := resolveWithLiterals(name, types, func(i int) cql.Term {
		if types[i] == nil {
			return fn.Args[i]
		}
		return nil
	})
	if err != nil {
		names := make([]string, len(fn.Args))
		for i, a := range fn.Args {
			names[i] = termString(a)
		}
		return nil, nil, withArgNames(err, names)
	}
	for i, a := range fn.Args {
		if types[i] != nil {
			continue
		}
		if i >= len(f.params) {
			return nil, nil, invalidf("Invalid number of arguments in call to function %s", f.name)
		}
		v, err := cql.EncodeTerm(f.params[i], a, "arg"+string(rune('0'+i%10))+"("+f.name+")", x)
		if err != nil {
			return nil, nil, err
		}
		vals[i] = v
	}
	v, err := f.call(&fnEnv{now: x.now, uuids: x.e.uuids}, vals)
	return f.ret, v, err
}

// fromJSON is fromJson(text) for a receiver of type t.
func (x *execCtx) fromJSON(fn *cql.FuncCall, t *cql.Type) ([]byte, error) {
	if len(fn.Args) != 1 {
		return nil, invalidf("Invalid number of arguments in call to function system.fromjson: 1 required but %d provided", len(fn.Args))
	}
	if t == nil {
		return nil, invalidf("fromJson() cannot be used here: its receiver has no type")
	}
	raw, err := cql.EncodeTerm(cql.Scalar(cql.KindText), fn.Args[0], "arg0(system.fromjson)", x)
	if err != nil || raw == nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, invalidf("Could not decode JSON string '%s': %v", raw, err)
	}
	// Cassandra answers a value that does not fit the receiver with a
	// FunctionFailure carrying the marshalling error.
	fail := func() error {
		shown := string(raw)
		if str, ok := v.(string); ok {
			shown = str
		}
		return bindings.Errorf(bindings.CodeFunctionFail,
			"org.apache.cassandra.serializers.MarshalException: Unable to make %s from '%s'", t, shown)
	}
	gv, err := jsonToGo(t, v)
	if err != nil {
		return nil, fail()
	}
	b, err := cql.EncodeGo(t, gv)
	if err == nil && b != nil {
		b, err = cql.Canonicalize(t, b)
	}
	if err != nil {
		return nil, fail()
	}
	return b, nil
}

// resolveWithLiterals resolves a call whose untyped arguments are
// term(i) (nil for typed ones); when that is ambiguous, literals take
// their preferred type (an integer is an int, a float a double, a string
// text, ...) as Cassandra's exact matches do.
func resolveWithLiterals(name string, types []*cql.Type, term func(int) cql.Term) (*fnCall, error) {
	if _, ok := similarityFuncs[name]; ok {
		typed := append([]*cql.Type(nil), types...)
		for i := range typed {
			if typed[i] == nil {
				typed[i] = similarityLiteralType(term(i))
			}
		}
		return resolveFunction(name, typed)
	}
	f, err := resolveFunction(name, types)
	if err == nil {
		return f, nil
	}
	pref := append([]*cql.Type(nil), types...)
	changed := false
	for i := range pref {
		if l, ok := term(i).(*cql.Literal); ok && pref[i] == nil {
			if t := preferredLiteralType(l); t != nil {
				pref[i], changed = t, true
			}
		}
	}
	if !changed {
		return nil, err
	}
	if f, err2 := resolveFunction(name, pref); err2 == nil {
		return f, nil
	}
	return nil, err
}

// preferredLiteralType is the type a literal matches exactly.
func preferredLiteralType(l *cql.Literal) *cql.Type {
	switch l.Kind {
	case cql.LitInteger:
		if n, ok := new(big.Int).SetString(l.Text, 10); ok {
			switch {
			case n.IsInt64() && n.Int64() >= math.MinInt32 && n.Int64() <= math.MaxInt32:
				return cql.Scalar(cql.KindInt)
			case n.IsInt64():
				return cql.Scalar(cql.KindBigint)
			}
			return cql.Scalar(cql.KindVarint)
		}
	case cql.LitFloat:
		return cql.Scalar(cql.KindDouble)
	case cql.LitString:
		return cql.Scalar(cql.KindText)
	case cql.LitBool:
		return cql.Scalar(cql.KindBoolean)
	case cql.LitUUID:
		return cql.Scalar(cql.KindUUID)
	case cql.LitBlob:
		return cql.Scalar(cql.KindBlob)
	case cql.LitDuration:
		return cql.Scalar(cql.KindDuration)
	}
	return nil
}

// checkReversedCollectionArg refuses a collection function of a DESC
// clustering column: Cassandra 5.0 sees its type wrapped as reversed and
// not as a collection.
func checkReversedCollectionArg(name string, reversed bool, types []*cql.Type, names []string) error {
	if !reversed || nativeFunctions[name] == nil || types[0] == nil {
		return nil
	}
	if _, coll := map[string]bool{"map_keys": true, "map_values": true, "collection_count": true, "collection_min": true,
		"collection_max": true, "collection_sum": true, "collection_avg": true}[name]; !coll {
		return nil
	}
	return invalidf("Function system.%s requires a %s argument, but found argument %s of type %s", name, wantColl(name), names[0], types[0])
}

// reversedColumn reports whether a selector is a bare DESC clustering
// column.
func reversedColumn(ti *tableInfo, sl *cql.Selector, refs []int) bool {
	if sl.Kind != cql.SelColumn || len(refs) != 1 {
		return false
	}
	c := ti.cols[refs[0]]
	return c.Kind == schema.Clustering && c.Desc
}
