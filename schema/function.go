package schema

import (
	"slices"
	"strings"

	"github.com/dohyo/dohyo/cql"
)

// Function is a user-defined function of a keyspace. ArgTypes and
// ReturnType are resolved (UDT references filled in).
type Function struct {
	Keyspace     string
	Name         string
	ArgNames     []string
	ArgTypes     []*cql.Type
	ReturnType   *cql.Type
	CalledOnNull bool
	Language     string
	Body         string
}

// Aggregate is a user-defined aggregate. InitCond is the initial state as
// CQL literal text ("" when absent); ReturnType is the final function's
// return type or the state type.
type Aggregate struct {
	Keyspace   string
	Name       string
	ArgTypes   []*cql.Type
	StateFunc  string
	StateType  *cql.Type
	FinalFunc  string
	InitCond   string
	ReturnType *cql.Type
}

// Schema change targets of function and aggregate DDL.
const (
	TargetFunction  = "FUNCTION"
	TargetAggregate = "AGGREGATE"
)

// Signature renders name(type, ...), as Cassandra's messages do.
func Signature(ks, name string, types []*cql.Type) string {
	parts := make([]string, len(types))
	for i, t := range types {
		parts[i] = t.String()
	}
	return ks + "." + name + "(" + strings.Join(parts, ", ") + ")"
}

func sameTypes(a, b []*cql.Type) bool {
	return slices.EqualFunc(a, b, func(x, y *cql.Type) bool { return x.String() == y.String() })
}

// Function returns the function name with exactly these argument types.
func (k *Keyspace) Function(name string, types []*cql.Type) *Function {
	for _, f := range k.Functions {
		if f.Name == name && sameTypes(f.ArgTypes, types) {
			return f
		}
	}
	return nil
}

// Aggregate returns the aggregate name with exactly these argument types.
func (k *Keyspace) Aggregate(name string, types []*cql.Type) *Aggregate {
	for _, a := range k.Aggregates {
		if a.Name == name && sameTypes(a.ArgTypes, types) {
			return a
		}
	}
	return nil
}

func (c *Catalog) udfKeyspace(ks, current string) (*Keyspace, *Error) {
	name, err := tableKeyspace(ks, current)
	if err != nil {
		return nil, err
	}
	k := c.Keyspaces[name]
	if k == nil {
		return nil, invalidf("Keyspace '%s' doesn't exist", name)
	}
	return k, nil
}

func (c *Catalog) udfTypes(ks *Keyspace, raw []*cql.Type) ([]*cql.Type, *Error) {
	out := make([]*cql.Type, len(raw))
	for i, r := range raw {
		t, err := prepareType(r, ks.Name, ks.Types)
		if err != nil {
			return nil, err
		}
		if t.Kind == cql.KindUDT {
			t = resolveUDTs(t, ks.Types)
		}
		if t == nil {
			return nil, invalidf("Unknown type %s.%s", ks.Name, r.Name)
		}
		out[i] = t
	}
	return out, nil
}

func (c *Catalog) createFunction(s *cql.CreateFunction, current string) (*Keyspace, *Change, *Error) {
	if s.OrReplace && s.IfNotExists {
		return nil, nil, invalidf("Cannot use both 'OR REPLACE' and 'IF NOT EXISTS' directives")
	}
	ks, err := c.udfKeyspace(s.Keyspace, current)
	if err != nil {
		return nil, nil, err
	}
	if s.Language != "java" {
		return nil, nil, invalidf("Currently only Java UDFs are available in Cassandra. For more information - CASSANDRA-18252 and CASSANDRA-17281")
	}
	f := &Function{Keyspace: ks.Name, Name: s.Name, CalledOnNull: s.CalledOnNull, Language: s.Language, Body: s.Body}
	raw := make([]*cql.Type, len(s.Args))
	seen := map[string]bool{}
	dup := false
	for i, a := range s.Args {
		if a.Type.Frozen && a.Type.Kind != cql.KindTuple {
			return nil, nil, invalidf("Argument '%s' cannot be frozen; remove frozen<> modifier from '%s'", a.Type, a.Type)
		}
		raw[i] = a.Type
		f.ArgNames = append(f.ArgNames, a.Name)
		dup = dup || seen[a.Name]
		seen[a.Name] = true
	}
	if dup {
		return nil, nil, invalidf("Duplicate argument names for given function %s with argument names [%s]", s.Name, strings.Join(f.ArgNames, ", "))
	}
	if f.ArgTypes, err = c.udfTypes(ks, raw); err != nil {
		return nil, nil, err
	}
	rt, err := c.udfTypes(ks, []*cql.Type{s.Returns})
	if err != nil {
		return nil, nil, err
	}
	f.ReturnType = rt[0]
	if ks.Aggregate(s.Name, f.ArgTypes) != nil {
		return nil, nil, invalidf("Function '%s' cannot replace an aggregate", s.Name)
	}
	if old := ks.Function(s.Name, f.ArgTypes); old != nil {
		switch {
		case s.IfNotExists:
			return nil, nil, nil
		case !s.OrReplace:
			return nil, nil, invalidf("Function '%s' already exists", s.Name)
		case old.CalledOnNull != f.CalledOnNull:
			directive := "RETURNS NULL ON NULL INPUT"
			if f.CalledOnNull {
				directive = "CALLED ON NULL INPUT"
			}
			return nil, nil, invalidf("Function '%s' must have %s directive", s.Name, directive)
		case old.ReturnType.String() != f.ReturnType.String():
			return nil, nil, invalidf("Cannot replace function '%s', the new return type %s is not compatible with the return type %s of existing function",
				s.Name, f.ReturnType, old.ReturnType)
		}
	}
	if err := c.opts.checkFunction(f); err != nil {
		return nil, nil, err
	}
	change := ChangeCreated
	n := *ks
	n.Functions = slices.DeleteFunc(slices.Clone(ks.Functions), func(o *Function) bool {
		if o.Name == f.Name && sameTypes(o.ArgTypes, f.ArgTypes) {
			change = ChangeUpdated
			return true
		}
		return false
	})
	n.Functions = append(n.Functions, f)
	sortFunctions(n.Functions)
	return &n, &Change{Type: change, Target: TargetFunction, Keyspace: ks.Name, Table: s.Name, ArgTypes: strings.Join(typeNames(f.ArgTypes), ArgSep)}, nil
}

func typeNames(ts []*cql.Type) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = TypeString(t)
	}
	return out
}

func sortFunctions(fs []*Function) {
	slices.SortStableFunc(fs, func(a, b *Function) int {
		return strings.Compare(a.Name+"("+strings.Join(typeNames(a.ArgTypes), ",")+")", b.Name+"("+strings.Join(typeNames(b.ArgTypes), ",")+")")
	})
}

func sortAggregates(as []*Aggregate) {
	slices.SortStableFunc(as, func(a, b *Aggregate) int {
		return strings.Compare(a.Name+"("+strings.Join(typeNames(a.ArgTypes), ",")+")", b.Name+"("+strings.Join(typeNames(b.ArgTypes), ",")+")")
	})
}

// dropTarget finds the one overload a DROP FUNCTION/AGGREGATE names.
func dropTarget[T any](items []T, nameOf func(T) string, typesOf func(T) []*cql.Type, name string, hasArgs bool, types []*cql.Type) (int, int) {
	found, count := -1, 0
	for i, it := range items {
		if nameOf(it) != name || (hasArgs && !sameTypes(typesOf(it), types)) {
			continue
		}
		found = i
		count++
	}
	return found, count
}

// dropOne finds the one function or aggregate (kind "Function" or
// "Aggregate") a DROP names: its keyspace and index in list, or ok=false
// with the error to answer (nil for IF EXISTS with nothing to drop).
func dropOne[T any](c *Catalog, s *cql.DropFunction, current, kind string, list func(*Keyspace) []T,
	nameOf func(T) string, typesOf func(T) []*cql.Type) (*Keyspace, int, bool, *Error) {
	ks, err := c.udfKeyspace(s.Keyspace, current)
	if err != nil {
		if s.IfExists && c.Keyspaces[s.Keyspace] == nil && s.Keyspace != "" {
			return nil, 0, false, nil
		}
		return nil, 0, false, err
	}
	types, err := c.udfTypes(ks, s.ArgTypes)
	if err != nil {
		return nil, 0, false, err
	}
	i, n := dropTarget(list(ks), nameOf, typesOf, s.Name, s.HasArgs, types)
	switch {
	case n == 0 && s.IfExists:
		return nil, 0, false, nil
	case n == 0 && s.HasArgs:
		return nil, 0, false, invalidf("%s '%s' doesn't exist", kind, Signature(ks.Name, s.Name, types))
	case n == 0:
		return nil, 0, false, invalidf("%s '%s.%s' doesn't exist", kind, ks.Name, s.Name)
	case n > 1:
		stmt := "DROP " + strings.ToUpper(kind)
		return nil, 0, false, invalidf("'%s %s' matches multiple function definitions; specify the argument types by issuing a statement like "+
			"'%s %s (type, type, ...)'. You can use cqlsh 'DESCRIBE %s %s' command to find all overloads", stmt, s.Name, stmt, s.Name, strings.ToUpper(kind), s.Name)
	}
	return ks, i, true, nil
}

func (c *Catalog) dropFunction(s *cql.DropFunction, current string) (*Keyspace, *Change, *Error) {
	ks, i, ok, err := dropOne(c, s, current, "Function", func(ks *Keyspace) []*Function { return ks.Functions },
		func(f *Function) string { return f.Name }, func(f *Function) []*cql.Type { return f.ArgTypes })
	if !ok {
		return nil, nil, err
	}
	f := ks.Functions[i]
	var users []string
	for _, a := range ks.Aggregates {
		if a.StateFunc == f.Name && sameTypes(f.ArgTypes, append([]*cql.Type{a.StateType}, a.ArgTypes...)) ||
			a.FinalFunc == f.Name && sameTypes(f.ArgTypes, []*cql.Type{a.StateType}) {
			users = append(users, a.Keyspace+"."+a.Name)
		}
	}
	if len(users) > 0 {
		return nil, nil, invalidf("Function '%s.%s' is still referenced by aggregates %s", ks.Name, f.Name, strings.Join(users, ", "))
	}
	k := *ks
	k.Functions = slices.Delete(slices.Clone(ks.Functions), i, i+1)
	return &k, &Change{Type: ChangeDropped, Target: TargetFunction, Keyspace: ks.Name, Table: f.Name, ArgTypes: strings.Join(typeNames(f.ArgTypes), ArgSep)}, nil
}

func (c *Catalog) createAggregate(s *cql.CreateAggregate, current string) (*Keyspace, *Change, *Error) {
	if s.OrReplace && s.IfNotExists {
		return nil, nil, invalidf("Cannot use both 'OR REPLACE' and 'IF NOT EXISTS' directives")
	}
	ks, err := c.udfKeyspace(s.Keyspace, current)
	if err != nil {
		return nil, nil, err
	}
	a := &Aggregate{Keyspace: ks.Name, Name: s.Name, StateFunc: s.StateFunc, FinalFunc: s.FinalFunc}
	if a.ArgTypes, err = c.udfTypes(ks, s.ArgTypes); err != nil {
		return nil, nil, err
	}
	st, err := c.udfTypes(ks, []*cql.Type{s.StateType})
	if err != nil {
		return nil, nil, err
	}
	a.StateType = st[0]
	sTypes := append([]*cql.Type{a.StateType}, a.ArgTypes...)
	sf := ks.Function(s.StateFunc, sTypes)
	if sf == nil {
		return nil, nil, invalidf("State function %s doesn't exist", Signature(ks.Name, s.StateFunc, sTypes))
	}
	if sf.ReturnType.String() != a.StateType.String() {
		return nil, nil, invalidf("State function %s return type must be the same as the first argument type - check STYPE, argument and return types",
			Signature(ks.Name, s.StateFunc, sTypes))
	}
	a.ReturnType = a.StateType
	if s.FinalFunc != "" {
		ff := ks.Function(s.FinalFunc, []*cql.Type{a.StateType})
		if ff == nil {
			return nil, nil, invalidf("Final function %s doesn't exist", Signature(ks.Name, s.FinalFunc, []*cql.Type{a.StateType}))
		}
		a.ReturnType = ff.ReturnType
	}
	if s.InitCond != nil {
		b, eerr := cql.EncodeTerm(a.StateType, s.InitCond, "(dummy)", cql.NoResolver{})
		if eerr != nil {
			return nil, nil, invalidf("%s", eerr.Error())
		}
		a.InitCond = cql.FormatValue(a.StateType, b)
		if b == nil {
			a.InitCond = ""
		}
	}
	if ks.Function(s.Name, a.ArgTypes) != nil {
		return nil, nil, invalidf("Aggregate '%s' cannot replace a function", s.Name)
	}
	change := ChangeCreated
	if old := ks.Aggregate(s.Name, a.ArgTypes); old != nil {
		switch {
		case s.IfNotExists:
			return nil, nil, nil
		case !s.OrReplace:
			return nil, nil, invalidf("Aggregate '%s' already exists", s.Name)
		}
		change = ChangeUpdated
	}
	n := *ks
	n.Aggregates = slices.DeleteFunc(slices.Clone(ks.Aggregates), func(o *Aggregate) bool {
		return o.Name == a.Name && sameTypes(o.ArgTypes, a.ArgTypes)
	})
	n.Aggregates = append(n.Aggregates, a)
	sortAggregates(n.Aggregates)
	return &n, &Change{Type: change, Target: TargetAggregate, Keyspace: ks.Name, Table: s.Name, ArgTypes: strings.Join(typeNames(a.ArgTypes), ArgSep)}, nil
}

func (c *Catalog) dropAggregate(s *cql.DropAggregate, current string) (*Keyspace, *Change, *Error) {
	ks, i, ok, err := dropOne(c, (*cql.DropFunction)(s), current, "Aggregate", func(ks *Keyspace) []*Aggregate { return ks.Aggregates },
		func(a *Aggregate) string { return a.Name }, func(a *Aggregate) []*cql.Type { return a.ArgTypes })
	if !ok {
		return nil, nil, err
	}
	a := ks.Aggregates[i]
	k := *ks
	k.Aggregates = slices.Delete(slices.Clone(ks.Aggregates), i, i+1)
	return &k, &Change{Type: ChangeDropped, Target: TargetAggregate, Keyspace: ks.Name, Table: a.Name, ArgTypes: strings.Join(typeNames(a.ArgTypes), ArgSep)}, nil
}

// checkTypeUnusedByFunctions refuses to drop a user type a function or an
// aggregate of the keyspace takes, returns or keeps as state.
func checkTypeUnusedByFunctions(ks *Keyspace, name string) *Error {
	uses := func(ts ...*cql.Type) bool {
		for _, t := range ts {
			if usesType(t, name) {
				return true
			}
		}
		return false
	}
	var fs, as []string
	for _, f := range ks.Functions {
		if uses(append([]*cql.Type{f.ReturnType}, f.ArgTypes...)...) {
			fs = append(fs, ks.Name+"."+f.Name)
		}
	}
	for _, a := range ks.Aggregates {
		if uses(append([]*cql.Type{a.StateType, a.ReturnType}, a.ArgTypes...)...) {
			as = append(as, ks.Name+"."+a.Name)
		}
	}
	switch {
	case len(fs) > 0:
		return invalidf("Cannot drop user type '%s.%s' as it is still used by functions %s", ks.Name, name, strings.Join(slices.Compact(fs), ", "))
	case len(as) > 0:
		return invalidf("Cannot drop user type '%s.%s' as it is still used by aggregates %s", ks.Name, name, strings.Join(slices.Compact(as), ", "))
	}
	return nil
}
