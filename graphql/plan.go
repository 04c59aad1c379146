package graphql

import (
	"github.com/graphql-go/graphql"
	"github.com/graphql-go/graphql/language/ast"
)

// Compiled plans answer the plain table queries clients repeat most (a
// point read: `query($k: Int) { t(value: {k: $k}) { values { k v } } }`)
// without graphql-go's executor, which costs more than the statement: per
// field a ResolveInfo, argument maps, result maps and their completion.
//
// A plan is compiled once per cached document and operation name. It
// covers query operations whose root fields are table queries or
// __typename, with aliases and literal or variable arguments (no
// groupBy), and selections of __typename, pageState and values, the latter
// with __typename and scalar columns only; no fragments, no directives, no
// response key twice. Anything else has no plan and goes to graphql-go.
//
// What a plan runs is what graphql-go runs: the executor's own variable
// and argument coercion (graphql.VariableValues, graphql.ArgumentValues),
// the table's permission check, selectRows (options, statement, the
// request's session: capture, budgets, deadlines, tracing and metrics are
// the coordinator's, as for the resolvers), decodeRow, and the executor's
// leaf completion; field errors are located and formatted as graphql-go
// does. When the variables do not coerce, nothing has run yet and the
// request goes to graphql-go, which reports the error. Mutations always
// take graphql-go's path.

// queryPlan is a compiled query operation.
type queryPlan struct {
	op     *ast.OperationDefinition
	fields []rootPlan
}

// rootPlan is one root field: a table query, or __typename when ti is nil.
type rootPlan struct {
	key      string // response key
	typename string // the value of __typename (ti nil)
	field    *ast.Field
	ti       *tableInfo
	def      *graphql.FieldDefinition
	cols     []string // the columns the statement selects (selectedColumns)
	result   []resultPlan
}

// resultPlan is one field of a table's Result object.
type resultPlan struct {
	key      string
	kind     resultKind
	typename string      // kind resultTypename
	values   []valuePlan // kind resultValues
}

type resultKind int

const (
	resultTypename resultKind = iota
	resultPageState
	resultValues
)

// valuePlan is one field of a row object: __typename when leaf is nil.
type valuePlan struct {
	key      string
	typename string
	field    string // GraphQL field name, decodeRow's name of the column
	leaf     graphql.Leaf
}

// compilePlan returns the plan of the operation name selects in doc, or
// nil when graphql-go must answer it.
func compilePlan(d *dmlSchema, doc *ast.Document, name string) *queryPlan {
	var op *ast.OperationDefinition
	for _, def := range doc.Definitions {
		o, ok := def.(*ast.OperationDefinition)
		if !ok {
			return nil // fragments (and anything else): graphql-go
		}
		if name == "" && op != nil {
			return nil // execution reports the ambiguity
		}
		if name == "" || (o.Name != nil && o.Name.Value == name) {
			op = o
		}
	}
	if op == nil || op.Operation != ast.OperationTypeQuery || len(op.Directives) > 0 || op.SelectionSet == nil {
		return nil
	}
	qt := d.schema.QueryType()
	p := &queryPlan{op: op}
	keys := map[string]bool{}
	for _, sel := range op.SelectionSet.Selections {
		f, ok := plainField(sel, keys)
		if !ok {
			return nil
		}
		rp := rootPlan{key: responseKey(f), field: f}
		if fieldName(f) == "__typename" {
			rp.typename = qt.Name()
			p.fields = append(p.fields, rp)
			continue
		}
		if !compileTableQuery(d, qt, f, &rp) {
			return nil
		}
		p.fields = append(p.fields, rp)
	}
	return p
}

// plainField returns sel as a field without directives whose response key
// keys has not seen yet.
func plainField(sel ast.Selection, keys map[string]bool) (*ast.Field, bool) {
	f, ok := sel.(*ast.Field)
	if !ok || len(f.Directives) > 0 || keys[responseKey(f)] {
		return nil, false
	}
	keys[responseKey(f)] = true
	return f, true
}

// compileTableQuery fills rp for a root field f that queries a table.
func compileTableQuery(d *dmlSchema, qt *graphql.Object, f *ast.Field, rp *rootPlan) bool {
	ti := d.tables[fieldName(f)]
	def := qt.Fields()[fieldName(f)]
	if ti == nil || def == nil {
		return false
	}
	res, ok := def.Type.(*graphql.Object)
	if !ok || res.Name() != ti.gname+"Result" {
		return false // a table whose name another root field took
	}
	for _, a := range f.Arguments {
		if a.Name == nil || a.Name.Value == "groupBy" {
			return false
		}
	}
	rp.ti, rp.def = ti, def
	if f.SelectionSet == nil {
		return false
	}
	keys := map[string]bool{}
	for _, sel := range f.SelectionSet.Selections {
		rf, ok := plainField(sel, keys)
		if !ok {
			return false
		}
		r := resultPlan{key: responseKey(rf)}
		switch fieldName(rf) {
		case "__typename":
			r.kind, r.typename = resultTypename, res.Name()
		case "pageState":
			r.kind = resultPageState
		case "values":
			r.kind = resultValues
			if r.values, ok = compileValues(ti, res, rf); !ok {
				return false
			}
		default:
			return false
		}
		rp.result = append(rp.result, r)
	}
	cols, err := selectedColumns(graphql.ResolveInfo{FieldASTs: []*ast.Field{f}}, ti)
	if err != nil {
		return false
	}
	rp.cols = cols
	return true
}

// compileValues plans the selection of a table's row objects.
func compileValues(ti *tableInfo, res *graphql.Object, f *ast.Field) ([]valuePlan, bool) {
	list, ok := res.Fields()["values"].Type.(*graphql.List)
	if !ok || f.SelectionSet == nil {
		return nil, false
	}
	nn, ok := list.OfType.(*graphql.NonNull)
	if !ok {
		return nil, false
	}
	obj, ok := nn.OfType.(*graphql.Object)
	if !ok {
		return nil, false
	}
	var out []valuePlan
	keys := map[string]bool{}
	for _, sel := range f.SelectionSet.Selections {
		vf, ok := plainField(sel, keys)
		if !ok {
			return nil, false
		}
		name := fieldName(vf)
		if name == "__typename" {
			out = append(out, valuePlan{key: responseKey(vf), typename: obj.Name()})
			continue
		}
		def := obj.Fields()[name]
		if ti.fields[name] == nil || def == nil {
			return nil, false // aggregates: graphql-go
		}
		leaf, ok := def.Type.(*graphql.Scalar)
		if !ok {
			return nil, false // collections, tuples, UDTs: graphql-go
		}
		out = append(out, valuePlan{key: responseKey(vf), field: name, leaf: leaf})
	}
	return out, true
}
