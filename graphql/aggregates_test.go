package graphql

import (
	"strings"
	"testing"
)

// TestAggregations: Stargate's aggregation fields (_int_function, ...)
// and the groupBy argument become CQL aggregates and GROUP BY.
func TestAggregations(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, nil)
		e.cql(`CREATE TABLE sales (id int, year int, day int, sale int, PRIMARY KEY (id, year, day))`,
			`INSERT INTO sales (id, year, day, sale) VALUES (1, 2019, 12, 1000)`,
			`INSERT INTO sales (id, year, day, sale) VALUES (1, 2020, 12, 2200)`,
			`INSERT INTO sales (id, year, day, sale) VALUES (1, 2020, 13, 300)`,
			`INSERT INTO sales (id, year, day, sale) VALUES (1, 2021, 12, 2350)`,
			`INSERT INTO sales (id, year, day, sale) VALUES (2, 2019, 12, 2000)`)
		r := e.post("/graphql/"+e.ks, `{ sales(value: {id: 1}) { values { id top: _int_function(name: "max", args: ["sale"])
			n: _bigint_function(name: "count", args: ["*"]) low: _int_function(name: "min", args: ["sale"]) } } }`, nil)
		if want := `{"data":{"sales":{"values":[{"id":1,"top":2350,"n":"4","low":300}]}}}`; r.Raw != want {
			t.Errorf("aggregates:\n got %s\nwant %s", r.Raw, want)
		}
		if o, _ := e.tap.last("FROM " + e.ks + ".sales"); !strings.Contains(o.Query, `max(sale) AS "$top"`) {
			t.Errorf("statement %q", o.Query)
		}
		r = e.post("/graphql/"+e.ks, `query($k: Int) { sales(value: {id: $k}, groupBy: {id: true, year: true}) {
			values { year total: _int_function(name: "sum", args: ["sale"]) } } }`, map[string]any{"k": 1})
		if want := `{"data":{"sales":{"values":[{"year":2019,"total":1000},{"year":2020,"total":2500},{"year":2021,"total":2350}]}}}`; r.Raw != want {
			t.Errorf("groupBy:\n got %s\nwant %s", r.Raw, want)
		}
		if o, _ := e.tap.last("FROM " + e.ks + ".sales"); !strings.Contains(o.Query, " GROUP BY id, year") {
			t.Errorf("statement %q", o.Query)
		}
		// Native aggregates are named in any case, as in Stargate.
		r = e.post("/graphql/"+e.ks, `{ sales(value: {id: 1}) { values { m: _int_function(name: "MAX", args: ["sale"]) } } }`, nil)
		if want := `{"data":{"sales":{"values":[{"m":2350}]}}}`; r.Raw != want {
			t.Errorf("MAX:\n got %s\nwant %s", r.Raw, want)
		}
		for q, want := range map[string]string{
			`{ sales { values { x: _int_function(name: "max(sale)); DROP", args: ["sale"]) } } }`: "Invalid aggregate function name",
			`{ sales { values { x: _int_function(name: "max", args: ["nope"]) } } }`:              `Unknown column "nope"`,
			// Unknown functions (scalar ones too) are answered as Stargate
			// answers them: by the alias, or naming the arguments.
			`{ sales { values { x: _int_function(name: "some_unknown_function", args: ["sale"]) } } }`: `Column 'x' is not defined in the Row's metadata.`,
			`{ sales { values { _int_function(name: "nope", args: ["sale", "year"]) } } }`:             `The function for arguments: {name=nope, args=[sale, year]} does not exists.`,
			`{ sales { values { a: _int_function(name: "abs", args: ["sale"]) } } }`:                   `Column 'a' is not defined in the Row's metadata.`,
		} {
			if msg := e.dmlError(q, nil); !strings.Contains(msg, want) {
				t.Errorf("%s: %s, want %s", q, msg, want)
			}
		}
	})
}

// TestDecimalAggregations: _decimal_function and _varint_function with
// sum and avg give Cassandra's BigDecimal/BigInteger answers (exact sum,
// running average rounded half-even at each step; truncated varint
// average), rendered as GraphQL's Decimal and Varint strings.
func TestDecimalAggregations(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, nil)
		e.cql(`CREATE TABLE prices (id int, n int, p decimal, q varint, PRIMARY KEY (id, n))`,
			`INSERT INTO prices (id, n, p, q) VALUES (1, 1, 1.1, 10)`,
			`INSERT INTO prices (id, n, p, q) VALUES (1, 2, 2.25, -3)`,
			`INSERT INTO prices (id, n, p, q) VALUES (1, 3, 0.333, 12345678901234567890)`)
		r := e.post("/graphql/"+e.ks, `{ prices(value: {id: 1}) { values { s: _decimal_function(name: "sum", args: ["p"])
			a: _decimal_function(name: "avg", args: ["p"]) vs: _varint_function(name: "sum", args: ["q"])
			va: _varint_function(name: "avg", args: ["q"]) } } }`, nil)
		if want := `{"data":{"prices":{"values":[{"s":"3.683","a":"1.231","vs":"12345678901234567897","va":"4115226300411522632"}]}}}`; r.Raw != want {
			t.Errorf("decimal aggregates:\n got %s\nwant %s", r.Raw, want)
		}
	})
}
