package schema

import (
	"errors"
	"strings"
	"testing"

	"github.com/dohyo/dohyo/cql"
)

func applyAll(t *testing.T, c *Catalog, stmts ...string) *Catalog {
	t.Helper()
	for _, q := range stmts {
		p, err := cql.Parse(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		next, _, aerr := c.Apply(p.Stmt, "ks")
		if aerr != nil {
			t.Fatalf("%s: %v", q, aerr)
		}
		c = next
	}
	return c
}

// TestFunctionsRoundTrip checks that functions and aggregates survive the
// catalog's JSON encoding (how HBase tiers share them).
func TestFunctionsRoundTrip(t *testing.T) {
	c := applyAll(t, New(),
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TYPE ks.pt (x int, y int)",
		"CREATE FUNCTION ks.st (s tuple<int, bigint>, v int) CALLED ON NULL INPUT RETURNS tuple<int, bigint> LANGUAGE java AS 'return s;'",
		"CREATE FUNCTION ks.fin (s tuple<int, bigint>) RETURNS NULL ON NULL INPUT RETURNS double LANGUAGE java AS 'return 1.0;'",
		"CREATE FUNCTION ks.px (p pt) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS 'return p.getInt(\"x\");'",
		"CREATE AGGREGATE ks.a (int) SFUNC st STYPE tuple<int, bigint> FINALFUNC fin INITCOND (0, 0)")
	data, err := c.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	back, err := UnmarshalCatalog(data)
	if err != nil {
		t.Fatal(err)
	}
	ks := back.Keyspace("ks")
	if len(ks.Functions) != 3 || len(ks.Aggregates) != 1 {
		t.Fatalf("%d functions, %d aggregates", len(ks.Functions), len(ks.Aggregates))
	}
	var got []string
	for _, f := range ks.Functions {
		got = append(got, f.Describe())
	}
	for _, f := range c.Keyspace("ks").Functions {
		if d := f.Describe(); !strings.Contains(strings.Join(got, "\n"), d) {
			t.Errorf("lost %s", d)
		}
	}
	if a := ks.Aggregates[0]; a.Describe() != c.Keyspace("ks").Aggregates[0].Describe() || a.InitCond != "(0, 0)" || a.ReturnType.Kind != cql.KindDouble {
		t.Errorf("aggregate %s", a.Describe())
	}
	if f := ks.Function("px", []*cql.Type{ks.Types["pt"].ColumnType()}); f == nil {
		t.Errorf("px(pt) not found after the round trip")
	} else if f.Body != c.Keyspace("ks").Function("px", f.ArgTypes).Body || f.ArgNames[0] != "p" {
		t.Errorf("px lost its body or parameter names in the round trip: %+v", f)
	}
}

// TestCheckFunctionDecides checks that the catalog keeps any body as text
// and leaves the decision to Options.CheckFunction, called after the other
// checks (an existing function named first is reported, not the body).
func TestCheckFunctionDecides(t *testing.T) {
	base := applyAll(t, New(),
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE FUNCTION ks.f (v int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS 'return v;'")
	const bad = "CREATE FUNCTION ks.g (v int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS 'not java at all'"
	applyAll(t, base, bad) // no checker: kept as text
	var checked []string
	opts := Options{CheckFunction: func(f *Function) error {
		checked = append(checked, f.Name)
		if strings.Contains(f.Body, "not java") {
			return &Error{Code: Invalid, Message: "refused", Unsupported: true}
		}
		return nil
	}}
	c := base.WithOptions(opts)
	p, _ := cql.Parse(bad)
	_, _, err := c.Apply(p.Stmt, "ks")
	var se *Error
	if !errors.As(err, &se) || se.Message != "refused" || !se.Unsupported {
		t.Fatalf("bad body: %v, want the checker's error", err)
	}
	p, _ = cql.Parse("CREATE FUNCTION ks.f (v int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS 'not java'")
	if _, _, err := c.Apply(p.Stmt, "ks"); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("existing function: %v, want already exists before the body is checked", err)
	}
	if len(checked) != 1 || checked[0] != "g" {
		t.Fatalf("checker called for %v, want [g]", checked)
	}
}
