package schema

import (
	"strings"

	"github.com/dohyo/dohyo/cql"
)

// describeType renders a function type as DESCRIBE does: a top-level
// tuple without its implicit frozen<>.
func describeType(t *cql.Type) string {
	if t.Kind == cql.KindTuple {
		parts := make([]string, len(t.Elems))
		for i, e := range t.Elems {
			parts[i] = TypeString(e)
		}
		return "tuple<" + strings.Join(parts, ", ") + ">"
	}
	return TypeString(t)
}

func describeTypes(ts []*cql.Type) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = describeType(t)
	}
	return strings.Join(parts, ", ")
}

// DescribeName is the function's name with its argument types, as
// DESCRIBE lists it: f(int, text).
func (f *Function) DescribeName() string {
	return cql.QuoteIdent(f.Name) + "(" + describeTypes(f.ArgTypes) + ")"
}

// Describe is the function's CREATE statement, as DESCRIBE prints it.
func (f *Function) Describe() string {
	args := make([]string, len(f.ArgNames))
	for i, n := range f.ArgNames {
		args[i] = cql.QuoteIdent(n) + " " + describeType(f.ArgTypes[i])
	}
	onNull := "RETURNS NULL ON NULL INPUT"
	if f.CalledOnNull {
		onNull = "CALLED ON NULL INPUT"
	}
	return "CREATE FUNCTION " + cql.QuoteIdent(f.Keyspace) + "." + cql.QuoteIdent(f.Name) + "(" + strings.Join(args, ", ") + ")\n" +
		"    " + onNull + "\n    RETURNS " + describeType(f.ReturnType) + "\n    LANGUAGE " + f.Language + "\n    AS $$" + f.Body + "$$;"
}

// DescribeName is the aggregate's name with its argument types.
func (a *Aggregate) DescribeName() string {
	return cql.QuoteIdent(a.Name) + "(" + describeTypes(a.ArgTypes) + ")"
}

// Describe is the aggregate's CREATE statement, as DESCRIBE prints it.
func (a *Aggregate) Describe() string {
	var b strings.Builder
	b.WriteString("CREATE AGGREGATE " + cql.QuoteIdent(a.Keyspace) + "." + a.DescribeName() + "\n")
	b.WriteString("    SFUNC " + cql.QuoteIdent(a.StateFunc) + "\n    STYPE " + describeType(a.StateType))
	if a.FinalFunc != "" {
		b.WriteString("\n    FINALFUNC " + cql.QuoteIdent(a.FinalFunc))
	}
	if a.InitCond != "" {
		b.WriteString("\n    INITCOND " + a.InitCond)
	}
	b.WriteString(";")
	return b.String()
}
