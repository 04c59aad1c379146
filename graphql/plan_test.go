package graphql

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/dohyo/dohyo/auth"
)

// planTable has a clustering column of every scalar type a key may have,
// so that variables of each type reach a statement that runs.
const planTable = `CREATE TABLE s (k int, c1 bigint, c2 text, c3 ascii, c4 boolean, c5 double, c6 float,
	c7 decimal, c8 varint, c9 smallint, c10 tinyint, c11 timestamp, c12 date, c13 time, c14 uuid,
	c15 timeuuid, c16 inet, c17 blob, v text, du duration, l list<int>,
	PRIMARY KEY (k, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16, c17))`

const planColumns = `k c1 c2 c3 c4 c5 c6 c7 c8 c9 c10 c11 c12 c13 c14 c15 c16 c17 v du`

var planRows = []string{
	`INSERT INTO s (k, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16, c17, v, du)
	VALUES (1, 10, 'a<b>&"é', 'x', true, 1.5, 2.25, 3.125, 123456789012345678901234567890, -3, 4,
	'2011-02-03 04:05+0000', '2020-10-21', '10:15:30.123456789', f47ac10b-58cc-4372-a567-0e02b2c3d479,
	fe86cad0-1965-11eb-84e6-ab660d2e8c9e, '::1', 0xcafe, 'one', 1h4m)`,
	`INSERT INTO s (k, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16, c17)
	VALUES (1, 20, '', '', false, -0.0, 1e30, -1e-7, -1, 0, -128,
	0, '1970-01-01', '00:00:00', 00000000-0000-4000-8000-000000000000,
	00000000-0000-1000-8000-000000000000, '10.0.0.1', 0x)`,
	`INSERT INTO s (k, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16, c17, v, l)
	VALUES (2, 30, 'b', 'y', true, 7, 8, 9, 10, 11, 12, 13, '2000-01-01', '23:59:59', f47ac10b-58cc-4372-a567-0e02b2c3d479,
	fe86cad0-1965-11eb-84e6-ab660d2e8c9e, '127.0.0.1', 0x00, 'two', [1, 2])`,
}

// planKeyVars are variables naming row 1 by its whole primary key.
const planKeyVarDefs = `$k: Int, $c1: BigInt, $c2: String, $c3: Ascii, $c4: Boolean, $c5: Float, $c6: Float32,
	$c7: Decimal, $c8: Varint, $c9: SmallInt, $c10: TinyInt, $c11: Timestamp, $c12: Date, $c13: Time,
	$c14: Uuid, $c15: TimeUuid, $c16: Inet, $c17: Blob`

const planKeyValue = `{k: $k, c1: $c1, c2: $c2, c3: $c3, c4: $c4, c5: $c5, c6: $c6, c7: $c7, c8: $c8, c9: $c9,
	c10: $c10, c11: $c11, c12: $c12, c13: $c13, c14: $c14, c15: $c15, c16: $c16, c17: $c17}`

func planKeyVars() map[string]any {
	return map[string]any{"k": json.Number("1"), "c1": "10", "c2": `a<b>&"é`, "c3": "x", "c4": true,
		"c5": json.Number("1.5"), "c6": json.Number("2.25"), "c7": "3.125", "c8": "123456789012345678901234567890",
		"c9": json.Number("-3"), "c10": json.Number("4"), "c11": "2011-02-03T04:05:00.000Z", "c12": "2020-10-21",
		"c13": "10:15:30.123456789", "c14": "f47ac10b-58cc-4372-a567-0e02b2c3d479",
		"c15": "fe86cad0-1965-11eb-84e6-ab660d2e8c9e", "c16": "::1", "c17": "yv4="}
}

func with(vars map[string]any, k string, v any) map[string]any {
	vars[k] = v
	return vars
}

// planCase is a request and whether a compiled plan must answer it.
type planCase struct {
	name  string
	query string
	vars  map[string]any
	plan  bool
}

func planCases() []planCase {
	all := `values { ` + planColumns + ` }`
	return []planCase{
		{"point read by every key type", `query(` + planKeyVarDefs + `) { s(value: ` + planKeyValue + `) { ` + all + ` } }`, planKeyVars(), true},
		{"literal partition", `{ s(value: {k: 1}) { ` + all + ` pageState } }`, nil, true},
		{"nulls in columns", `{ s(value: {k: 1, c1: 20}) { values { k c1 v du c2 c17 } } }`, nil, true},
		{"select star", `{ s(value: {k: 2}) { pageState } }`, nil, true},
		{"aliases and typename", `query Q { __typename a: s(value: {k: 1}) { t: __typename vs: values { __typename kk: k c2 } }
			b: s(value: {k: 2}) { values { v } __typename } }`, nil, true},
		{"named operation", `query A { s(value: {k: 2}) { values { k } } } query B { s(value: {k: 1}) { values { v } } }`, nil, false},
		{"filter ops", `{ s(filter: {k: {eq: 1}, c1: {gt: 10}}) { values { c1 } } }`, nil, true},
		{"filter in", `query($ks: [Int]) { s(filter: {k: {in: $ks}}) { values { k c1 } } }`, map[string]any{"ks": []any{json.Number("2"), json.Number("1")}}, true},
		{"filter lte with variable", `query($c: BigInt) { s(filter: {k: {eq: 1}, c1: {lte: $c}}) { values { c1 } } }`, map[string]any{"c": json.Number("10")}, true},
		{"orderBy", `{ s(value: {k: 1}, orderBy: [c1_DESC]) { values { c1 } } }`, nil, true},
		{"options literal", `{ s(value: {k: 1}, options: {pageSize: 1, consistency: LOCAL_ONE}) { values { c1 } pageState } }`, nil, true},
		{"options variable", `query($o: QueryOptions) { s(value: {k: 1}, options: $o) { values { c1 } pageState } }`,
			map[string]any{"o": map[string]any{"limit": json.Number("1")}}, true},
		{"bad pageSize", `{ s(value: {k: 1}, options: {pageSize: 0}) { values { c1 } } }`, nil, true},
		{"bad limit", `query($o: QueryOptions) { s(value: {k: 1}, options: $o) { values { c1 } } }`,
			map[string]any{"o": map[string]any{"limit": json.Number("-1")}}, true},
		{"bad pageState", `query($p: String) { s(value: {k: 1}, options: {pageState: $p}) { values { c1 } } }`, map[string]any{"p": "!!"}, true},
		{"bad custom scalar variable", `query(` + planKeyVarDefs + `) { s(value: ` + planKeyValue + `) { values { k } } }`, with(planKeyVars(), "c9", json.Number("99999")), true},
		{"bad custom scalar literal", `{ s(value: {k: 1, c10: 300}) { values { k } } }`, nil, true},
		{"null variable", `query($c: BigInt) { s(value: {k: 1, c1: $c}) { values { k } } }`, map[string]any{"c": nil}, true},
		{"absent variable", `query($c: BigInt) { s(value: {k: 1, c1: $c}) { values { c1 } } }`, map[string]any{}, true},
		{"null literal", `{ s(value: {k: 1, c1: null}) { values { k } } }`, nil, true},
		{"backend error", `{ s(filter: {v: {eq: "one"}}) { values { k } } }`, nil, true},
		{"one good, one failing", `{ a: s(value: {k: 2}) { values { k } } b: s(options: {pageSize: 0}) { values { k } } }`, nil, true},
		{"variable that does not coerce", `query($k: Int) { s(value: {k: $k}) { values { k } } }`, map[string]any{"k": "one"}, false},
		{"missing required variable", `query($k: Int!) { s(value: {k: $k}) { values { k } } }`, map[string]any{}, false},
		{"collection column", `{ s(value: {k: 2}) { values { k l } } }`, nil, false},
		{"fragment", `{ s(value: {k: 1}) { ...F } } fragment F on sResult { values { k } }`, nil, false},
		{"inline fragment", `{ s(value: {k: 1}) { values { ... on s { k } } } }`, nil, false},
		{"include directive", `query($i: Boolean!) { s(value: {k: 1}) { values { k @include(if: $i) c1 } } }`, map[string]any{"i": false}, false},
		{"aggregate", `{ s(value: {k: 1}) { values { n: _bigint_function(name: "count", args: ["*"]) } } }`, nil, false},
		{"groupBy", `{ s(value: {k: 1}, groupBy: {k: true}) { values { k } } }`, nil, false},
		{"repeated key", `{ s(value: {k: 1}) { values { k k } } }`, nil, false},
		{"deprecated Filter field", `{ sFilter(filter: {k: {eq: 1}}) { values { k } } }`, nil, false},
		{"warnings", `{ conversionWarnings }`, nil, false},
		{"introspection", `{ __schema { queryType { name } } }`, nil, false},
		{"mutation", `mutation { inserts(value: {k: 9, c1: 1, c2: "", c3: "", c4: true, c5: 1, c6: 1, c7: "1", c8: 1,
			c9: 1, c10: 1, c11: 1, c12: "2020-01-01", c13: 1, c14: "f47ac10b-58cc-4372-a567-0e02b2c3d479",
			c15: "fe86cad0-1965-11eb-84e6-ab660d2e8c9e", c16: "::1", c17: ""}) { applied } }`, nil, false},
	}
}

// TestCompiledPlans runs generated queries through the compiled plan and
// through graphql-go (Config.planCheck: byte-identical responses, data
// and errors) and checks which of them the plan answered.
func TestCompiledPlans(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, nil)
		e.cql(planTable, `CREATE TABLE cnt (k int PRIMARY KEY, n counter)`, `UPDATE cnt SET n = n + 5 WHERE k = 1`)
		e.cql(planRows...)
		cases := append(planCases(), planCase{"counter", `{ cnt(value: {k: 1}) { values { k n } } }`, nil, true})
		for _, c := range cases {
			for round := 0; round < 2; round++ { // compiled, then cached
				before := e.gql.planRuns.Load()
				r := e.post("/graphql/"+e.ks, c.query, c.vars)
				if got := e.gql.planRuns.Load() - before; got != map[bool]int64{true: 1}[c.plan] {
					t.Errorf("%s: %d requests answered by a plan, want plan=%v (%s)", c.name, got, c.plan, r.Raw)
				}
				if r.Status != 200 {
					t.Errorf("%s: status %d: %s", c.name, r.Status, r.Raw)
				}
			}
		}
		// A page state from a plan's answer continues the query.
		r := e.post("/graphql/"+e.ks, `{ s(value: {k: 1}, options: {pageSize: 1}) { values { c1 } pageState } }`, nil)
		ps, _ := path(r.Data, "s", "pageState").(string)
		if ps == "" {
			t.Fatalf("no pageState: %s", r.Raw)
		}
		next := e.dml(`query($p: String) { s(value: {k: 1}, options: {pageSize: 1, pageState: $p}) { values { c1 } } }`, map[string]any{"p": ps})
		if got := jsonText(path(next, "s", "values")); got != `[{"c1":"20"}]` {
			t.Errorf("second page: %s", got)
		}
		// Sanity of a few answers (both paths agreeing is not enough).
		got := e.post("/graphql/"+e.ks, planCases()[0].query, planKeyVars())
		if !strings.Contains(got.Raw, `"c2":"a\u003cb\u003e\u0026\"é"`) || !strings.Contains(got.Raw, `"c8":"123456789012345678901234567890"`) {
			t.Errorf("point read by every key type: %s", got.Raw)
		}
		if got := e.post("/graphql/"+e.ks, `{ s(options: {pageSize: 0}) { values { k } } }`, nil); !strings.Contains(got.Raw,
			`{"data":{"s":null},"errors":[{"message":"pageSize must be between 1 and 1000 (got 0)","locations":[{"line":1,"column":3}],"path":["s"]}]}`) {
			t.Errorf("bad pageSize: %s", got.Raw)
		}
	})
}

// denySelect refuses SELECT on every table.
type denySelect struct{}

func (denySelect) Authorize(_ context.Context, _ string, perm auth.Permission, _ auth.Resource) error {
	if perm == auth.Select {
		return errors.New("no")
	}
	return nil
}

// TestCompiledPlanAuthorization: a refused table query is the same
// Unauthorized error of the field on both paths.
func TestCompiledPlanAuthorization(t *testing.T) {
	e := newEnv(t, testBackend{name: "embedded", open: openEmbedded}, func(c *Config) { c.Authorizer = denySelect{} })
	e.cql(`CREATE TABLE kv (k int PRIMARY KEY, v text)`)
	before := e.gql.planRuns.Load()
	r := e.post("/graphql/"+e.ks, `{ __typename kv(value: {k: 1}) { values { v } } }`, nil)
	if e.gql.planRuns.Load() != before+1 || !strings.Contains(r.Raw, `"extensions":{"code":"Unauthorized"}`) || path(r.Data, "__typename") != "Query" {
		t.Errorf("plan did not answer, or answered %s", r.Raw)
	}
}

// TestNoCompiledPlans: Config.NoCompiledPlans leaves every request to
// graphql-go.
func TestNoCompiledPlans(t *testing.T) {
	e := newEnv(t, testBackend{name: "embedded", open: openEmbedded}, func(c *Config) { c.NoCompiledPlans = true })
	e.cql(`CREATE TABLE kv (k int PRIMARY KEY, v text)`, `INSERT INTO kv (k, v) VALUES (1, 'one')`)
	got := e.dml(`query($k: Int) { kv(value: {k: $k}) { values { k v } } }`, map[string]any{"k": 1})
	if jsonText(got) != `{"kv":{"values":[{"k":1,"v":"one"}]}}` || e.gql.planRuns.Load() != 0 {
		t.Errorf("got %s with %d plan runs", jsonText(got), e.gql.planRuns.Load())
	}
}
