package graphql

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/graphql-go/graphql"
	"github.com/graphql-go/graphql/language/ast"

	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

// Aggregations as Stargate has them: every table type has the fields
// _int_function, _bigint_function, ... (one per result type), each taking
// a CQL function name and its column arguments; a query's groupBy
// argument names the primary key columns of GROUP BY. The fields become
// `name(cols) AS "$<response key>"` in the SELECT, so two aggregates with
// different aliases never collide, and their values are read back by that
// key.

// aggregateFields are the aggregation fields and the CQL type of their
// result.
var aggregateFields = []struct {
	field string
	kind  cql.Kind
}{
	{"_int_function", cql.KindInt}, {"_double_function", cql.KindDouble},
	{"_bigint_function", cql.KindBigint}, {"_decimal_function", cql.KindDecimal},
	{"_varint_function", cql.KindVarint}, {"_float_function", cql.KindFloat},
	{"_smallint_function", cql.KindSmallint}, {"_tinyint_function", cql.KindTinyint},
}

// aggregatePrefix starts the result column names of aggregates ("$" is in
// no GraphQL name, so no table field is ever read by mistake).
const aggregatePrefix = "$"

// isAggregateField tells whether a GraphQL field name is an aggregation.
func isAggregateField(name string) bool {
	for _, a := range aggregateFields {
		if a.field == name {
			return true
		}
	}
	return false
}

// addAggregateFields adds the aggregation fields to a table type's fields.
func addAggregateFields(types *typeCache, fields graphql.Fields, order []string) ([]string, error) {
	for _, a := range aggregateFields {
		if _, taken := fields[a.field]; taken {
			continue // a column of that name wins
		}
		out, err := types.output(&cql.Type{Kind: a.kind})
		if err != nil {
			return nil, err
		}
		fields[a.field] = &graphql.Field{
			Type:        out,
			Description: "The result of a CQL aggregate function (e.g. max, count) applied to the columns named by args.",
			ArgOrder:    []string{"name", "args"},
			Args: graphql.FieldConfigArgument{
				"name": {Type: graphql.NewNonNull(graphql.String)},
				"args": {Type: graphql.NewNonNull(graphql.NewList(graphql.NewNonNull(graphql.String)))},
			},
			Resolve: func(p graphql.ResolveParams) (any, error) {
				row, _ := p.Source.(map[string]any)
				return row[aggregatePrefix+responseKey(p.Info.FieldASTs[0])], nil
			},
		}
		order = append(order, a.field)
	}
	return order, nil
}

// functionName is what a CQL function name may be here.
var functionName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// aggregateSelector renders one aggregation field of a query's values as
// a SELECT selector; args name table fields (GraphQL names) or "*".
func aggregateSelector(ti *tableInfo, f *ast.Field, vars map[string]any) (string, error) {
	var name string
	var args []string
	for _, a := range f.Arguments {
		if a.Name == nil {
			continue
		}
		v := astValue(a.Value, vars)
		switch a.Name.Value {
		case "name":
			name, _ = v.(string)
		case "args":
			switch x := v.(type) {
			case []any:
				for _, e := range x {
					s, _ := e.(string)
					args = append(args, s)
				}
			case string:
				args = append(args, x)
			}
		}
	}
	if !functionName.MatchString(name) {
		return "", fmt.Errorf("Invalid aggregate function name %q", name)
	}
	if !ti.isAggregate(name) {
		// Stargate leaves an unknown function out of the SELECT and then
		// fails reading its result: by the alias, as a missing column;
		// without one, naming the arguments (Java's Map.toString).
		if f.Alias != nil && f.Alias.Value != "" {
			return "", fmt.Errorf("Column '%s' is not defined in the Row's metadata.", f.Alias.Value)
		}
		return "", fmt.Errorf("The function for arguments: {name=%s, args=[%s]} does not exists.", name, strings.Join(args, ", "))
	}
	cols := make([]string, 0, len(args))
	for _, a := range args {
		if a == "*" {
			cols = append(cols, "*")
			continue
		}
		c := ti.fields[a]
		if c == nil {
			return "", fmt.Errorf("Unknown column %q in the args of %s", a, name)
		}
		cols = append(cols, cql.QuoteIdent(c.Name))
	}
	return fmt.Sprintf("%s(%s) AS %s", name, strings.Join(cols, ", "),
		cql.QuoteIdent(aggregatePrefix+responseKey(f))), nil
}

// nativeAggregates are CQL's aggregate functions, the ones Stargate's
// aggregation fields accept (by name, in any case).
var nativeAggregates = []string{"count", "avg", "min", "max", "sum"}

// isAggregate reports whether name is an aggregate function of the table's
// keyspace: a native one (any case, as Stargate compares them) or a
// user-defined aggregate (dohyo's extension; CQL names are case-sensitive
// there). Scalar functions are not aggregations.
func (ti *tableInfo) isAggregate(name string) bool {
	for _, n := range nativeAggregates {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	if ti.ks != nil {
		for _, a := range ti.ks.Aggregates {
			if a.Name == name {
				return true
			}
		}
	}
	return false
}

// astValue is a literal or variable argument's value (aggregation
// arguments are validated strings and lists of strings).
func astValue(v ast.Value, vars map[string]any) any {
	switch x := v.(type) {
	case *ast.Variable:
		if x.Name != nil {
			return vars[x.Name.Value]
		}
	case *ast.StringValue:
		return x.Value
	case *ast.ListValue:
		out := make([]any, 0, len(x.Values))
		for _, e := range x.Values {
			out = append(out, astValue(e, vars))
		}
		return out
	}
	return nil
}

// groupByInput is a table's groupBy argument type: a Boolean per primary
// key column, as in Stargate.
func groupByInput(gname string, t *schema.Table, fname map[string]string) *graphql.InputObject {
	fields := graphql.InputObjectConfigFieldMap{}
	var order []string
	for _, c := range append(append([]*schema.Column{}, t.PartitionKey...), t.Clustering...) {
		f := fname[c.Name]
		fields[f] = &graphql.InputObjectFieldConfig{Type: graphql.Boolean}
		order = append(order, f)
	}
	return graphql.NewInputObject(graphql.InputObjectConfig{
		Name:        gname + "GroupByInput",
		Description: fmt.Sprintf("The input type used for the GROUP BY clause of a query for the table '%s' (primary key columns, in key order).", t.Name),
		Fields:      fields,
		FieldOrder:  order,
	})
}

// groupByClause renders GROUP BY for the columns a groupBy argument sets
// to true, in primary key order.
func groupByClause(ti *tableInfo, args map[string]any) string {
	g, ok := argMap(args, "groupBy")
	if !ok {
		return ""
	}
	var cols []string
	for _, c := range append(append([]*schema.Column{}, ti.t.PartitionKey...), ti.t.Clustering...) {
		if on, _ := g[ti.fname[c.Name]].(bool); on {
			cols = append(cols, cql.QuoteIdent(c.Name))
		}
	}
	if len(cols) == 0 {
		return ""
	}
	return " GROUP BY " + strings.Join(cols, ", ")
}
