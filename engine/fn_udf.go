package engine

// User-defined functions and aggregates (CREATE FUNCTION ... LANGUAGE
// java): the catalog holds their definitions (schema.Function,
// schema.Aggregate), engine/udf/java runs their bodies. A call in a selection
// resolves to a fnCall like a native function's; an aggregate to a
// selUDA selector whose state the aggregation threads through its state
// function row by row.

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/engine/udf/java"
	"github.com/dohyo/dohyo/schema"
)

func udfChangeArgs(ch *schema.Change) []string {
	if ch.Target == schema.TargetFunction || ch.Target == schema.TargetAggregate {
		return ch.Args()
	}
	return nil
}

// udfName splits a called name into the keyspace holding its user-defined
// overloads and the name; ok is false for native functions: system.f, or
// an unqualified name of a native function that the table's keyspace
// does not define (Cassandra looks in the keyspace first).
func (b *planner) udfName(called, tableKs string) (ks, name string, ok bool) {
	if i := strings.IndexByte(called, '.'); i >= 0 {
		if called[:i] == "system" {
			return "", "", false
		}
		return called[:i], called[i+1:], true
	}
	if fs, as := b.udfCandidates(tableKs, called); len(fs) > 0 || len(as) > 0 {
		return tableKs, called, true
	}
	if knownFunction(called) || strings.HasPrefix(called, "blobas") || strings.HasSuffix(called, "asblob") {
		return "", "", false
	}
	return tableKs, called, true
}

// udfCandidates returns the functions and aggregates named name in ks.
func (b *planner) udfCandidates(ks, name string) ([]*schema.Function, []*schema.Aggregate) {
	k := b.st.cat.Keyspace(ks)
	if k == nil {
		return nil, nil
	}
	var fs []*schema.Function
	var as []*schema.Aggregate
	for _, f := range k.Functions {
		if f.Name == name {
			fs = append(fs, f)
		}
	}
	for _, a := range k.Aggregates {
		if a.Name == name {
			as = append(as, a)
		}
	}
	return fs, as
}

// argsMatch reports whether typed arguments (nil: a literal, checked by
// its term) fit the parameter types.
func argsMatch(params, types []*cql.Type, term func(int) cql.Term) bool {
	if len(params) != len(types) {
		return false
	}
	for i, p := range params {
		if types[i] == nil {
			if t := term(i); t != nil && !cql.Assignable(p, t) {
				return false
			}
			continue
		}
		if !sameType(p, types[i]) && !valueCompatible(p, types[i]) {
			return false
		}
	}
	return true
}

func udfSignatureText(ks, name string, params []*cql.Type, ret *cql.Type) string {
	parts := make([]string, len(params))
	for i, p := range params {
		parts[i] = p.String()
	}
	return fmt.Sprintf("%s.%s : (%s) -> %s", ks, name, strings.Join(parts, ", "), ret)
}

// pickUDF chooses the overload of a call; err names Cassandra's mismatch.
func pickUDF[T any](ks, name string, cands []T, paramsOf func(T) []*cql.Type, retOf func(T) *cql.Type,
	types []*cql.Type, names []string, term func(int) cql.Term) (T, error) {
	var zero T
	var match []T
	for _, c := range cands {
		if argsMatch(paramsOf(c), types, term) {
			match = append(match, c)
		}
	}
	full := ks + "." + name
	switch {
	case len(match) == 1:
		return match[0], nil
	case len(match) > 1:
		return zero, invalidf("Ambiguous call to function %s (can be matched by following signatures: %s): use type casts to disambiguate", full,
			joinSigs(ks, name, match, paramsOf, retOf))
	case len(cands) == 1:
		params := paramsOf(cands[0])
		if len(params) != len(types) {
			return zero, invalidf("Invalid number of arguments in call to function %s: %d required but %d provided", full, len(params), len(types))
		}
		for i, p := range params {
			if !argsMatch([]*cql.Type{p}, []*cql.Type{types[i]}, func(int) cql.Term { return term(i) }) {
				return zero, invalidf("Type error: %s cannot be passed as argument %d of function %s of type %s", names[i], i, full, p)
			}
		}
	}
	return zero, invalidf("Invalid call to function %s, none of its type signatures match (known type signatures: %s)", full,
		joinSigs(ks, name, cands, paramsOf, retOf))
}

func joinSigs[T any](ks, name string, cs []T, paramsOf func(T) []*cql.Type, retOf func(T) *cql.Type) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = udfSignatureText(ks, name, paramsOf(c), retOf(c))
	}
	return strings.Join(parts, ", ")
}

func fnParams(f *schema.Function) []*cql.Type { return f.ArgTypes }
func fnRet(f *schema.Function) *cql.Type      { return f.ReturnType }
func aggParams(a *schema.Aggregate) []*cql.Type {
	return a.ArgTypes
}
func aggRet(a *schema.Aggregate) *cql.Type { return a.ReturnType }

// compileFunction compiles a function's body (its language is java).
func compileFunction(f *schema.Function) (*java.Func, error) {
	params := make([]java.Param, len(f.ArgNames))
	for i := range params {
		params[i] = java.Param{Name: f.ArgNames[i], Type: f.ArgTypes[i]}
	}
	return java.Compile(f.Keyspace+"."+f.Name, params, f.ReturnType, f.Body, f.CalledOnNull)
}

// checkFunction is the catalog's schema.Options.CheckFunction: a body
// outside the Java subset is refused at CREATE FUNCTION, as Cassandra
// refuses one javac rejects; Unsupported marks the subset's limits.
func checkFunction(f *schema.Function) error {
	if _, err := compileFunction(f); err != nil {
		var ce *java.CompileError
		return &schema.Error{Code: schema.Invalid, Message: err.Error(), Unsupported: errors.As(err, &ce) && ce.Unsupported}
	}
	return nil
}

// udfCall compiles a user-defined function into a fnCall.
func udfCall(f *schema.Function) (*fnCall, error) {
	jf, err := compileFunction(f)
	if err != nil {
		return nil, invalidf("%s", err.Error())
	}
	return &fnCall{
		name: f.Keyspace + "." + f.Name, params: f.ArgTypes, ret: f.ReturnType, nullable: f.CalledOnNull,
		impl: func(_ *fnEnv, args [][]byte) ([]byte, error) {
			out, err := jf.Call(args)
			if err != nil {
				var ee *java.ExecError
				if errors.As(err, &ee) {
					return nil, &bindings.Error{Code: bindings.CodeFunctionFail, Message: ee.Msg}
				}
				return nil, bindings.Errorf(bindings.CodeFunctionFail, "execution of '%s' failed: %s", f.Keyspace+"."+f.Name, err)
			}
			return out, nil
		},
	}, nil
}

// udfArgs compiles a call's arguments: typed expressions, and literals
// (nil entries) typed once the overload is known.
func (b *planner) udfArgs(ti *tableInfo, sl *cql.Selector) ([]expr, []*cql.Type, []string, []int, error) {
	args := make([]expr, len(sl.Args))
	types := make([]*cql.Type, len(sl.Args))
	names := make([]string, len(sl.Args))
	var refs []int
	for i, a := range sl.Args {
		if a == nil {
			return nil, nil, nil, nil, invalidf("Invalid function call %s", sl.Func)
		}
		if a.Kind == cql.SelTerm {
			names[i] = termString(a.Term)
			continue
		}
		e, t, n, r, err := b.compileExpr(ti, a)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		args[i], types[i], names[i] = e, t, n
		refs = append(refs, r...)
	}
	return args, types, names, refs, nil
}

func (b *planner) typeLiterals(ti *tableInfo, sl *cql.Selector, args []expr, params []*cql.Type) {
	for i, a := range sl.Args {
		if args[i] == nil {
			b.walkTerm(a.Term, params[i], "[selection]", ti)
			args[i] = termExpr{term: a.Term, t: params[i], name: "[selection]"}
		}
	}
}

// compileUDFCall compiles a call of a user-defined function in a
// selection; handled is false when the name is a native function's.
func (b *planner) compileUDFCall(ti *tableInfo, sl *cql.Selector) (expr, *cql.Type, string, []int, bool, error) {
	ks, name, ok := b.udfName(strings.ToLower(sl.Func), ti.t.Keyspace)
	if !ok {
		return nil, nil, "", nil, false, nil
	}
	fs, as := b.udfCandidates(ks, name)
	if len(as) > 0 && len(fs) == 0 {
		return nil, nil, "", nil, true, bindings.Unsupported("aggregate %s.%s as a function argument is not supported by dohyo's wide-column engine", ks, name)
	}
	if len(fs) == 0 {
		shown := name
		if strings.Contains(sl.Func, ".") {
			shown = ks + "." + name
		}
		return nil, nil, "", nil, true, invalidf("Unknown function '%s'", shown)
	}
	args, types, names, refs, err := b.udfArgs(ti, sl)
	if err != nil {
		return nil, nil, "", nil, true, err
	}
	f, err := pickUDF(ks, name, fs, fnParams, fnRet, types, names, func(i int) cql.Term { return sl.Args[i].Term })
	if err != nil {
		return nil, nil, "", nil, true, err
	}
	fc, err := udfCall(f)
	if err != nil {
		return nil, nil, "", nil, true, err
	}
	b.typeLiterals(ti, sl, args, f.ArgTypes)
	return callExpr{f: fc, args: args}, f.ReturnType, ks + "." + name + "(" + strings.Join(names, ", ") + ")", refs, true, nil
}

// udaImpl is a compiled user-defined aggregate.
type udaImpl struct {
	state, final *fnCall
	init         []byte
	args         []expr
}

// compileUDA compiles a call of a user-defined aggregate in a selection;
// handled is false when the name is not an aggregate's.
func (b *planner) compileUDA(ti *tableInfo, sl *cql.Selector) (selector, bool, error) {
	ks, name, ok := b.udfName(strings.ToLower(sl.Func), ti.t.Keyspace)
	if !ok {
		return selector{}, false, nil
	}
	_, as := b.udfCandidates(ks, name)
	if len(as) == 0 {
		return selector{}, false, nil
	}
	args, types, names, refs, err := b.udfArgs(ti, sl)
	if err != nil {
		return selector{}, true, err
	}
	a, err := pickUDF(ks, name, as, aggParams, aggRet, types, names, func(i int) cql.Term { return sl.Args[i].Term })
	if err != nil {
		return selector{}, true, err
	}
	b.typeLiterals(ti, sl, args, a.ArgTypes)
	k := b.st.cat.Keyspace(ks)
	u := &udaImpl{args: args}
	sf := k.Function(a.StateFunc, append([]*cql.Type{a.StateType}, a.ArgTypes...))
	if sf == nil {
		return selector{}, true, invalidf("State function %s.%s of aggregate %s.%s does not exist", ks, a.StateFunc, ks, name)
	}
	if u.state, err = udfCall(sf); err != nil {
		return selector{}, true, err
	}
	if a.FinalFunc != "" {
		ff := k.Function(a.FinalFunc, []*cql.Type{a.StateType})
		if ff == nil {
			return selector{}, true, invalidf("Final function %s.%s of aggregate %s.%s does not exist", ks, a.FinalFunc, ks, name)
		}
		if u.final, err = udfCall(ff); err != nil {
			return selector{}, true, err
		}
	}
	if a.InitCond != "" {
		p, perr := cql.Parse("SELECT " + a.InitCond + " FROM t")
		if perr == nil {
			if s, ok := p.Stmt.(*cql.Select); ok && len(s.Selectors) == 1 && s.Selectors[0].Term != nil {
				u.init, err = cql.EncodeTerm(a.StateType, s.Selectors[0].Term, "initcond", cql.NoResolver{})
			}
		}
		if perr != nil || err != nil {
			return selector{}, true, invalidf("Invalid INITCOND %s of aggregate %s.%s", a.InitCond, ks, name)
		}
	}
	spec := ti.specNamed(ks+"."+name+"("+strings.Join(names, ", ")+")", a.ReturnType)
	return selector{kind: selUDA, uda: u, refs: refs, spec: spec}, true, nil
}

// udaAdd folds one row into an aggregate's state.
func (a *aggState) udaAdd(i int, sc selector, c *rowCtx) {
	if a.uda == nil {
		a.uda = make([][]byte, len(a.count))
		a.udaSet = make([]bool, len(a.count))
	}
	if !a.udaSet[i] {
		a.uda[i], a.udaSet[i] = sc.uda.init, true
	}
	vals := make([][]byte, 0, len(sc.uda.args)+1)
	vals = append(vals, a.uda[i])
	for _, e := range sc.uda.args {
		v, err := e.eval(c)
		if err != nil {
			c.env.fail(err)
			return
		}
		if v == nil && !sc.uda.state.nullable {
			return // Cassandra skips the row: the state is unchanged
		}
		vals = append(vals, v)
	}
	st, err := sc.uda.state.call(c.env.fn, vals)
	if err != nil {
		c.env.fail(err)
		return
	}
	a.uda[i] = st
}

// udaResult is an aggregate's value: the final function of its state.
func (a *aggState) udaResult(i int, sc selector) []byte {
	st := sc.uda.init
	if a.udaSet != nil && a.udaSet[i] {
		st = a.uda[i]
	}
	if sc.uda.final == nil {
		return st
	}
	var fn *fnEnv
	if a.env != nil {
		fn = a.env.fn
	}
	v, err := sc.uda.final.call(fn, [][]byte{st})
	if err != nil {
		if a.env != nil {
			a.env.fail(err)
		}
		return nil
	}
	return v
}

func (env *rowEnv) fail(err error) {
	if env.err == nil {
		env.err = err
	}
}
