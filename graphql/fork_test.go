package graphql

import (
	"fmt"
	"testing"

	"github.com/graphql-go/graphql"
)

// TestGraphQLGoFork shows why dohyo builds with the patched graphql-go in
// third_party/graphql-go (see its DOHYO-PATCHES.md): upstream v0.8.1
// refuses the null literal, drops null variables (so "set to NULL" and
// "leave alone" look the same to a resolver) and introspects an enum
// default as a quoted string, which graphql-js and PyPI gql refuse.
func TestGraphQLGoFork(t *testing.T) {
	mode := newEnum("Mode", "", "FAST", "SLOW")
	var seen string
	sch, err := graphql.NewSchema(graphql.SchemaConfig{Query: graphql.NewObject(graphql.ObjectConfig{
		Name: "Query",
		Fields: graphql.Fields{"f": {
			Type: graphql.String,
			Args: graphql.FieldConfigArgument{
				"a":    {Type: graphql.String},
				"b":    {Type: graphql.String},
				"mode": {Type: mode, DefaultValue: "SLOW"},
			},
			ArgOrder: []string{"mode", "b", "a"},
			Resolve: func(p graphql.ResolveParams) (any, error) {
				a, aOK := p.Args["a"]
				b, bOK := p.Args["b"]
				seen = fmt.Sprintf("a=%v/%v b=%v/%v", a, aOK, b, bOK)
				return "ok", nil
			},
		}},
	})})
	if err != nil {
		t.Fatal(err)
	}
	run := func(q string, vars map[string]any) *graphql.Result {
		return graphql.Do(graphql.Params{Schema: sch, RequestString: q, VariableValues: vars})
	}
	if r := run(`{ f(a: null) }`, nil); r.HasErrors() || seen != "a=<nil>/true b=<nil>/false" {
		t.Errorf("null literal: %v, args %s", r.Errors, seen)
	}
	if r := run(`query($v: String, $w: String) { f(a: $v, b: $w) }`, map[string]any{"v": nil}); r.HasErrors() || seen != "a=<nil>/true b=<nil>/false" {
		t.Errorf("null variable: %v, args %s", r.Errors, seen)
	}
	r := run(`{ __type(name: "Query") { fields { args { name defaultValue } } } }`, nil)
	if got := jsonText(r.Data); got != `{"__type":{"fields":[{"args":[{"defaultValue":"SLOW","name":"mode"},{"defaultValue":null,"name":"b"},{"defaultValue":null,"name":"a"}]}]}}` {
		t.Errorf("introspection = %s", got)
	}
}

// TestEnumLookupConcurrent: an enum's value and name lookups are built on
// first use; upstream v0.8.1 built them without synchronisation, so
// concurrent requests serialising or parsing the same enum (introspection's
// __TypeKind, a consistency argument) raced. The race detector fails this
// test without the patch.
func TestEnumLookupConcurrent(t *testing.T) {
	mode := graphql.NewEnum(graphql.EnumConfig{Name: "Mode", Values: graphql.EnumValueConfigMap{
		"FAST": {Value: "FAST"}, "SLOW": {Value: "SLOW"}}}) // not warmed up as newEnum does
	done := make(chan string, 8)
	for i := 0; i < cap(done); i++ {
		go func() {
			s, _ := mode.Serialize("SLOW").(string)
			if mode.ParseValue("FAST") == nil {
				s = "parse failed"
			}
			done <- s
		}()
	}
	for i := 0; i < cap(done); i++ {
		if s := <-done; s != "SLOW" {
			t.Errorf("Serialize/ParseValue = %q", s)
		}
	}
}
