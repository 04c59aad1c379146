package graphql

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestResponseKeysInSelectionOrder: object keys come back in the order the
// document selects them (aliases, fragments and merged fields included),
// not sorted.
func TestResponseKeysInSelectionOrder(t *testing.T) {
	e := newEnv(t, testBackend{name: "embedded", open: openEmbedded}, nil)
	e.cql(`CREATE TABLE books (title text PRIMARY KEY, author text, pages int)`,
		`INSERT INTO books (title, author, pages) VALUES ('A', 'x<&>', 7)`)
	r := e.post("/graphql/"+e.ks, `{ zz: books(value: {title: "A"}) { values { pages ...F title } pageState values { pages } }
		aa: __typename }
		fragment F on books { author title }`, nil)
	want := `{"data":{"zz":{"values":[{"pages":7,"author":"x\u003c\u0026\u003e","title":"A"}],"pageState":null},"aa":"Query"}}`
	if r.Raw != want {
		t.Errorf("response\n got %s\nwant %s", r.Raw, want)
	}
	r = e.post("/graphql/"+e.ks, `mutation { insertbooks(value: {title: "B", pages: 1}) { value { pages title } applied } }`, nil)
	if want := `{"data":{"insertbooks":{"value":{"pages":1,"title":"B"},"applied":true}}}`; r.Raw != want {
		t.Errorf("mutation response\n got %s\nwant %s", r.Raw, want)
	}
}

// introspectArgs returns "field(arg,arg…)" of a root type's fields, as
// introspection lists them.
func introspectArgs(t *testing.T, e *testEnv, path, root string) []string {
	t.Helper()
	r := e.post(path, `{ __schema { `+root+` { fields { name args(includeDeprecated: true) { name defaultValue isDeprecated } } } } }`, nil)
	if len(r.Errors) > 0 {
		t.Fatalf("introspection: %s", r.Raw)
	}
	var out []string
	for _, f := range path2list(r.Data, "__schema", root, "fields") {
		var args []string
		for _, a := range path2list(f, "args") {
			args = append(args, a.(map[string]any)["name"].(string))
		}
		out = append(out, f.(map[string]any)["name"].(string)+"("+strings.Join(args, ",")+")")
	}
	return out
}

func path2list(v any, steps ...any) []any {
	l, _ := path(v, steps...).([]any)
	return l
}

// TestIntrospectionOrderAndDefaults: fields and arguments are listed in
// declared order (columns in table order) on every schema build; enum
// defaults print as enum values; the fields newer clients ask for exist.
func TestIntrospectionOrderAndDefaults(t *testing.T) {
	e := newEnv(t, testBackend{name: "embedded", open: openEmbedded}, nil)
	e.cql(`CREATE TABLE zeta (k int, c int, v text, a int, PRIMARY KEY (k, c))`, `CREATE TABLE alpha (id int PRIMARY KEY)`)
	got := strings.Join(introspectArgs(t, e, "/graphql/"+e.ks, "queryType"), " ")
	want := "alpha(value,filter,orderBy,options,groupBy) zeta(value,filter,orderBy,options,groupBy) conversionWarnings()"
	if got != want {
		t.Errorf("query fields:\n got %s\nwant %s", got, want)
	}
	got = strings.Join(introspectArgs(t, e, "/graphql/"+e.ks, "mutationType"), " ")
	if !strings.HasPrefix(got, "insertalpha(value,ifNotExists,options) updatealpha(value,ifExists,ifCondition,options) deletealpha(") {
		t.Errorf("mutation fields: %s", got)
	}
	ddl := strings.Join(introspectArgs(t, e, "/graphql-schema", "mutationType"), " ")
	if !strings.Contains(ddl, "createTable(keyspaceName,tableName,partitionKeys,clusteringKeys,values,ifNotExists)") {
		t.Errorf("ddl mutations: %s", ddl)
	}
	// Column order, stable across schema rebuilds (a new table rebuilds).
	fieldsOf := func(typ string) string {
		r := e.post("/graphql/"+e.ks, `{ __type(name: "`+typ+`") { fields { name } inputFields(includeDeprecated: true) { name } } }`, nil)
		b, _ := json.Marshal(r.Data)
		return string(b)
	}
	first := fieldsOf("zeta")
	if want := `{"__type":{"fields":[{"name":"k"},{"name":"c"},{"name":"a"},{"name":"v"},{"name":"_int_function"},{"name":"_double_function"},{"name":"_bigint_function"},{"name":"_decimal_function"},{"name":"_varint_function"},{"name":"_float_function"},{"name":"_smallint_function"},{"name":"_tinyint_function"}],"inputFields":null}}`; first != want {
		t.Errorf("zeta fields %s, want %s", first, want)
	}
	for i := 0; i < 5; i++ {
		e.cql("CREATE TABLE t" + string(rune('a'+i)) + " (id int PRIMARY KEY)")
		if again := fieldsOf("zeta"); again != first {
			t.Fatalf("rebuild %d changed the order: %s", i, again)
		}
	}
	r := e.post("/graphql/"+e.ks, `{ __type(name: "QueryOptions") { inputFields { name defaultValue isDeprecated deprecationReason } specifiedByURL } }`, nil)
	b, _ := json.Marshal(r.Data)
	want = `{"__type":{"inputFields":[{"defaultValue":"LOCAL_QUORUM","deprecationReason":null,"isDeprecated":false,"name":"consistency"},` +
		`{"defaultValue":null,"deprecationReason":null,"isDeprecated":false,"name":"limit"},` +
		`{"defaultValue":"100","deprecationReason":null,"isDeprecated":false,"name":"pageSize"},` +
		`{"defaultValue":null,"deprecationReason":null,"isDeprecated":false,"name":"pageState"}],"specifiedByURL":null}}`
	if string(b) != want {
		t.Errorf("QueryOptions:\n got %s\nwant %s", b, want)
	}
	r = e.post("/graphql/"+e.ks, `{ __schema { description directives { name isRepeatable args(includeDeprecated: false) { name } } } }`, nil)
	if len(r.Errors) > 0 || !strings.Contains(r.Raw, `{"name":"atomic","isRepeatable":false,"args":[]}`) {
		t.Errorf("directives: %s", r.Raw)
	}
}
