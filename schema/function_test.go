package schema

import (
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
	} else if _, err := f.Compile(); err != nil {
		t.Errorf("px does not compile after the round trip: %v", err)
	}
}
