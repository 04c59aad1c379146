package graphql

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

func TestInsertAndQuery(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, nil)
		e.cql(`CREATE TABLE books (title text PRIMARY KEY, author text, pages int)`)

		got := e.dml(`mutation { insertbooks(value: {title: "Moby Dick", author: "Melville", pages: 635}) {
			applied value { title author pages } } }`, nil)
		if want := `{"applied":true,"value":{"author":"Melville","pages":635,"title":"Moby Dick"}}`; jsonText(got["insertbooks"]) != want {
			t.Errorf("insert = %s, want %s", jsonText(got["insertbooks"]), want)
		}
		got = e.dml(`query { books(value: {title: "Moby Dick"}) { values { title author pages } pageState } }`, nil)
		if want := `{"pageState":null,"values":[{"author":"Melville","pages":635,"title":"Moby Dick"}]}`; jsonText(got["books"]) != want {
			t.Errorf("query = %s, want %s", jsonText(got["books"]), want)
		}
		// Only the selected columns are read.
		e.dml(`query { books(value: {title: "Moby Dick"}) { values { pages } } }`, nil)
		if o, ok := e.tap.last("FROM " + e.ks + ".books"); !ok || !strings.HasPrefix(o.Query, "SELECT pages FROM") {
			t.Errorf("select text = %q, want SELECT pages FROM ...", o.Query)
		}
		// Fragments and aliases count too.
		got = e.dml(`query { b: books(value: {title: "Moby Dick"}) { values { ...F } v2: values { title } } }
			fragment F on books { author }`, nil)
		if want := `{"v2":[{"title":"Moby Dick"}],"values":[{"author":"Melville"}]}`; jsonText(got["b"]) != want {
			t.Errorf("fragment query = %s, want %s", jsonText(got["b"]), want)
		}
		if o, _ := e.tap.last("FROM " + e.ks + ".books"); !strings.HasPrefix(o.Query, "SELECT title, author FROM") {
			t.Errorf("select text = %q, want title and author", o.Query)
		}
		// GraphQL statements are observed as GraphQL, prepared.
		if o, _ := e.tap.last("INSERT INTO"); o.Source != bindings.SourceGraphQL || !o.Prepared || o.Keyspace != e.ks {
			t.Errorf("observation = source %v prepared %v keyspace %q", o.Source, o.Prepared, o.Keyspace)
		}
	})
}

func TestUpdateDeleteAndConditions(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, nil)
		e.cql(`CREATE TABLE books (title text PRIMARY KEY, author text, pages int, tags map<text, int>)`)
		e.dml(`mutation { insertbooks(value: {title: "A", author: "x", pages: 1, tags: [{key: "k", value: 1}]}) { applied } }`, nil)

		cases := []struct {
			name, query, field, want string
		}{
			{"insert if not exists, existing", `mutation { insertbooks(value: {title: "A", author: "y"}, ifNotExists: true) { applied value { title author pages } } }`,
				"insertbooks", `{"applied":false,"value":{"author":"x","pages":1,"title":"A"}}`},
			{"insert if not exists, new", `mutation { insertbooks(value: {title: "B", author: "y"}, ifNotExists: true) { applied value { title author } } }`,
				"insertbooks", `{"applied":true,"value":{"author":"y","title":"B"}}`},
			{"update", `mutation { updatebooks(value: {title: "A", pages: 2}) { applied value { title pages } } }`,
				"updatebooks", `{"applied":true,"value":{"pages":2,"title":"A"}}`},
			{"update if exists, missing", `mutation { updatebooks(value: {title: "Z", pages: 2}, ifExists: true) { applied } }`,
				"updatebooks", `{"applied":false}`},
			{"update if condition, false", `mutation { updatebooks(value: {title: "A", pages: 3}, ifCondition: {author: {eq: "nope"}}) { applied value { author } } }`,
				"updatebooks", `{"applied":false,"value":{"author":"x"}}`},
			{"update if condition, true", `mutation { updatebooks(value: {title: "A", pages: 3}, ifCondition: {author: {eq: "x"}, pages: {lt: 3}}) { applied value { pages } } }`,
				"updatebooks", `{"applied":true,"value":{"pages":3}}`},
			{"update if condition in", `mutation { updatebooks(value: {title: "A", pages: 4}, ifCondition: {author: {in: ["w", "x"]}}) { applied } }`,
				"updatebooks", `{"applied":true}`},
			{"update if containsEntry", `mutation { updatebooks(value: {title: "A", pages: 5}, ifCondition: {tags: {containsEntry: {key: "k", value: 1}}}) { applied } }`,
				"updatebooks", `{"applied":true}`},
			{"delete if condition, false", `mutation { deletebooks(value: {title: "A"}, ifCondition: {pages: {gt: 100}}) { applied value { pages } } }`,
				"deletebooks", `{"applied":false,"value":{"pages":5}}`},
			{"delete if exists, missing", `mutation { deletebooks(value: {title: "Q"}, ifExists: true) { applied } }`,
				"deletebooks", `{"applied":false}`},
			{"delete", `mutation { deletebooks(value: {title: "A"}) { applied value { title } } }`,
				"deletebooks", `{"applied":true,"value":{"title":"A"}}`},
			{"gone", `query { books(value: {title: "A"}) { values { title } } }`,
				"books", `{"values":[]}`},
			{"delete if exists, present", `mutation { deletebooks(value: {title: "B"}, ifExists: true) { applied } }`,
				"deletebooks", `{"applied":true}`},
		}
		for _, c := range cases {
			got := e.dml(c.query, nil)
			if g := jsonText(got[c.field]); g != c.want {
				t.Errorf("%s: got %s, want %s", c.name, g, c.want)
			}
		}
	})
}

func TestFiltersOrderAndPaging(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, nil)
		e.cql(`CREATE TABLE events (k int, c int, v text, PRIMARY KEY (k, c))`)
		var values []string
		for k := 1; k <= 2; k++ {
			for c := 1; c <= 5; c++ {
				values = append(values, fmt.Sprintf(`{k: %d, c: %d, v: "v%d%d"}`, k, c, k, c))
			}
		}
		got := e.dml(`mutation { bulkInsertevents(values: [`+strings.Join(values, ", ")+`]) { applied } }`, nil)
		if n := len(got["bulkInsertevents"].([]any)); n != 10 {
			t.Fatalf("bulk insert results = %d, want 10", n)
		}

		cases := []struct {
			name, args, want string
		}{
			{"value eq", `value: {k: 1, c: 2}`, `["v12"]`},
			{"range", `filter: {k: {eq: 1}, c: {gt: 1, lte: 4}}`, `["v12","v13","v14"]`},
			{"range gte lt", `filter: {k: {eq: 2}, c: {gte: 4, lt: 9}}`, `["v24","v25"]`},
			{"in", `filter: {k: {eq: 1}, c: {in: [1, 5]}}`, `["v11","v15"]`},
			{"partition in", `filter: {k: {in: [1, 2]}, c: {eq: 3}}`, `["v13","v23"]`},
			{"order desc", `filter: {k: {eq: 1}}, orderBy: [c_DESC]`, `["v15","v14","v13","v12","v11"]`},
			{"order asc limit", `filter: {k: {eq: 1}}, orderBy: [c_ASC], options: {limit: 2}`, `["v11","v12"]`},
			{"deprecated filter field", ``, ``},
		}
		for _, c := range cases {
			if c.args == "" {
				continue
			}
			got := e.dml(`query { events(`+c.args+`) { values { v } } }`, nil)
			var vs []string
			for _, r := range got["events"].(map[string]any)["values"].([]any) {
				vs = append(vs, r.(map[string]any)["v"].(string))
			}
			if g := jsonText(vs); g != c.want {
				t.Errorf("%s: got %s, want %s", c.name, g, c.want)
			}
		}
		got = e.dml(`query { eventsFilter(filter: {k: {eq: 2}, c: {eq: 1}}) { values { v } } }`, nil)
		if g := jsonText(got["eventsFilter"]); g != `{"values":[{"v":"v21"}]}` {
			t.Errorf("eventsFilter = %s", g)
		}

		// Paging: walk a partition two rows at a time with pageState.
		var seen []string
		pageState := ""
		for page := 0; page < 10; page++ {
			vars := map[string]any{"ps": pageState}
			got := e.dml(`query($ps: String) { events(filter: {k: {eq: 1}}, options: {pageSize: 2, pageState: $ps}) { values { v } pageState } }`, vars)
			res := got["events"].(map[string]any)
			rows := res["values"].([]any)
			if len(rows) > 2 {
				t.Fatalf("page %d has %d rows, want <= 2", page, len(rows))
			}
			for _, r := range rows {
				seen = append(seen, r.(map[string]any)["v"].(string))
			}
			ps, _ := res["pageState"].(string)
			if ps == "" {
				break
			}
			pageState = ps
		}
		if g := jsonText(seen); g != `["v11","v12","v13","v14","v15"]` {
			t.Errorf("paged rows = %s", g)
		}
		if o, _ := e.tap.last("FROM " + e.ks + ".events"); o.PageSize != 2 {
			t.Errorf("page size sent = %d, want 2", o.PageSize)
		}
	})
}

func TestCollectionFilters(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, nil)
		e.cql(`CREATE TABLE c (k int PRIMARY KEY, l list<int>, m map<text, int>)`)
		e.dml(`mutation { insertc(value: {k: 1, l: [5, 6], m: [{key: "a", value: 1}]}) { applied } }`, nil)
		// Stargate does not add ALLOW FILTERING: without an index, CQL's
		// own message comes back, and the statement shows the operator.
		cases := []struct{ filter, cqlText string }{
			{`{l: {contains: 5}}`, `l CONTAINS ?`},
			{`{m: {containsKey: "a"}}`, `m CONTAINS KEY ?`},
			{`{m: {contains: 1}}`, `m CONTAINS ?`},
			{`{m: {containsEntry: {key: "a", value: 1}}}`, `m[?] = ?`},
		}
		for _, c := range cases {
			msg := e.dmlError(`query { c(filter: `+c.filter+`) { values { k } } }`, nil)
			if !strings.Contains(msg, "ALLOW FILTERING") {
				t.Errorf("filter %s: error %q, want CQL's ALLOW FILTERING message", c.filter, msg)
			}
		}
		d, err := e.gql.keyspaceSchema(context.Background(), e.ks)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			var args map[string]any
			switch {
			case strings.Contains(c.filter, "containsEntry"):
				args = map[string]any{"filter": map[string]any{"m": map[string]any{"containsEntry": map[string]any{"key": "a", "value": 1}}}}
			case strings.Contains(c.filter, "containsKey"):
				args = map[string]any{"filter": map[string]any{"m": map[string]any{"containsKey": "a"}}}
			case strings.HasPrefix(c.filter, "{m"):
				args = map[string]any{"filter": map[string]any{"m": map[string]any{"contains": 1}}}
			default:
				args = map[string]any{"filter": map[string]any{"l": map[string]any{"contains": 5}}}
			}
			text, _, err := appendSelect(nil, nil, d.tables["c"], args, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			if want := "SELECT * FROM " + e.ks + ".c WHERE " + c.cqlText; string(text) != want {
				t.Errorf("filter %s: CQL %q, want %q", c.filter, text, want)
			}
		}
	})
}

func TestMutationOptions(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, nil)
		e.cql(`CREATE TABLE t (k int PRIMARY KEY, v text)`, `CREATE TABLE counters (k int PRIMARY KEY, n counter)`)
		e.dml(`mutation { insertt(value: {k: 1, v: "a"}, options: {ttl: 3600, consistency: LOCAL_ONE}) { applied } }`, nil)
		o, ok := e.tap.last("INSERT INTO")
		if !ok || !strings.HasSuffix(o.Query, "USING TTL 3600") || o.Consistency != bindings.LocalOne {
			t.Errorf("insert observed as %q consistency %v, want USING TTL 3600 and LOCAL_ONE", o.Query, o.Consistency)
		}
		s := e.coord.NewSession(bindings.SourceCQL)
		res, err := s.Query(context.Background(), &bindings.Request{Query: "SELECT TTL(v) FROM " + e.ks + ".t WHERE k = 1"})
		if err != nil {
			t.Fatal(err)
		}
		if ttl, _ := cql.DecodeGo(res.Columns[0].Type, res.Rows[0][0]); ttl == nil || ttl.(int32) <= 3500 || ttl.(int32) > 3600 {
			t.Errorf("TTL(v) = %v, want about 3600", ttl)
		}
		e.dml(`mutation { updatet(value: {k: 1, v: "b"}, ifExists: true, options: {consistency: ALL, serialConsistency: LOCAL_SERIAL}) { applied } }`, nil)
		if o, _ := e.tap.last("UPDATE"); o.Consistency != bindings.All || o.SerialConsistency != bindings.LocalSerial {
			t.Errorf("update consistency %v/%v, want ALL/LOCAL_SERIAL", o.Consistency, o.SerialConsistency)
		}
		e.dml(`query { t(value: {k: 1}) { values { v } } }`, nil)
		if o, _ := e.tap.last("SELECT v FROM"); o.Consistency != bindings.LocalQuorum || o.PageSize != 100 {
			t.Errorf("default query options: consistency %v page size %d, want LOCAL_QUORUM 100", o.Consistency, o.PageSize)
		}
		e.dml(`query { t(value: {k: 1}, options: {consistency: SERIAL}) { values { v } } }`, nil)
		if o, _ := e.tap.last("SELECT v FROM"); o.Consistency != bindings.Serial {
			t.Errorf("query consistency %v, want SERIAL", o.Consistency)
		}
		// Counters are incremented by update.
		for i := 0; i < 2; i++ {
			e.dml(`mutation { updatecounters(value: {k: 7, n: "5"}) { applied } }`, nil)
		}
		got := e.dml(`query { counters(value: {k: 7}) { values { n } } }`, nil)
		if g := jsonText(got["counters"]); g != `{"values":[{"n":"10"}]}` {
			t.Errorf("counter = %s, want 10", g)
		}
		if msg := e.dmlError(`mutation { insertt(value: {k: 2}, options: {ttl: -1}) { applied } }`, nil); !strings.Contains(msg, "TTL must be greater or equal to 0") {
			t.Errorf("negative ttl error = %q", msg)
		}
	})
}

func TestAtomicAndAsync(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, nil)
		e.cql(`CREATE TABLE t (k int, c int, v text, PRIMARY KEY (k, c))`)
		got := e.dml(`mutation @atomic {
			a: insertt(value: {k: 1, c: 1, v: "a"}) { applied value { v } }
			b: updatet(value: {k: 1, c: 2, v: "b"}) { applied }
			c: bulkInsertt(values: [{k: 1, c: 3, v: "c"}, {k: 1, c: 4, v: "d"}]) { applied }
		}`, nil)
		if g := jsonText(got); g != `{"a":{"applied":true,"value":{"v":"a"}},"b":{"applied":true},"c":[{"applied":true},{"applied":true}]}` {
			t.Errorf("atomic = %s", g)
		}
		if o, _ := e.tap.last("UPDATE"); o.BatchSize != 4 || o.BatchType != uint8(cql.BatchLogged) {
			t.Errorf("update observed in batch of %d (type %d), want a LOGGED batch of 4", o.BatchSize, o.BatchType)
		}
		if msg := e.dmlError(`mutation @atomic {
			a: insertt(value: {k: 2, c: 1, v: "a"}, options: {ttl: 5}) { applied }
			b: insertt(value: {k: 2, c: 2, v: "b"}, options: {ttl: 5}) { applied }
		}`, nil); !strings.Contains(msg, "options can only be defined once") {
			t.Errorf("atomic options error = %q", msg)
		}

		got = e.dml(`mutation @async { insertt(value: {k: 5, c: 1, v: "later"}) { accepted applied value { v } } }`, nil)
		if g := jsonText(got); g != `{"insertt":{"accepted":true,"applied":null,"value":{"v":"later"}}}` {
			t.Errorf("async = %s", g)
		}
		_ = e.gql.Close() // waits for the background write
		got = e.dml(`query { t(value: {k: 5}) { values { v } } }`, nil)
		if g := jsonText(got["t"]); g != `{"values":[{"v":"later"}]}` {
			t.Errorf("after async = %s", g)
		}
	})
}

func TestQueryErrors(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, func(c *Config) { c.MaxPageSize = 50 })
		e.cql(`CREATE TABLE t (k int, c int, v text, PRIMARY KEY (k, c))`)
		cases := []struct{ name, query, want string }{
			{"cql error passes through", `query { t(filter: {v: {eq: "x"}}) { values { k } } }`, "ALLOW FILTERING"},
			{"page size limit", `query { t(value: {k: 1}, options: {pageSize: 51}) { values { k } } }`, "pageSize must be between 1 and 50"},
			{"bad page state", `query { t(value: {k: 1}, options: {pageState: "%%%"}) { values { k } } }`, "Invalid pageState"},
			{"bad limit", `query { t(value: {k: 1}, options: {limit: 0}) { values { k } } }`, "LIMIT must be strictly positive"},
			{"empty insert", `mutation { insertt(value: {}) { applied } }`, "Insert statement must contain at least one field"},
			{"update without columns", `mutation { updatet(value: {k: 1, c: 1}) { applied } }`, "at least one field that is not part of the primary key"},
			{"missing key", `mutation { insertt(value: {v: "x"}) { applied } }`, "Invalid:"},
			{"unknown field", `query { t(value: {nope: 1}) { values { k } } }`, `Unknown field`},
			{"unknown table", `query { nope { values { k } } }`, `Cannot query field "nope"`},
			{"null key", `query { t(value: {k: null}) { values { k } } }`, `Invalid null value`},
			{"bad scalar", `mutation { insertt(value: {k: 1, c: 2147483648}) { applied } }`, "Invalid value for field 'c'"},
			{"both ifExists and ifCondition", `mutation { deletet(value: {k: 1, c: 1}, ifExists: true, ifCondition: {v: {eq: "x"}}) { applied } }`, "cannot be used together"},
		}
		for _, c := range cases {
			msg := e.dmlError(c.query, nil)
			if !strings.Contains(msg, c.want) {
				t.Errorf("%s: error %q, want it to contain %q", c.name, msg, c.want)
			}
		}
		r := e.post("/graphql/"+e.ks, `query { t(filter: {v: {eq: "x"}}) { values { k } } }`, nil)
		if len(r.Errors) != 1 || r.Errors[0].Extensions["code"] != "Invalid" {
			t.Errorf("CQL error extensions = %s, want code Invalid", r.Raw)
		}
		if r.Data == nil || path(r.Data, "t") != nil || strings.Contains(r.Raw, `"data":null`) {
			t.Errorf("failed field should be null inside data: %s", r.Raw)
		}
	})
}

func TestConversionWarningsAndEscaping(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, nil)
		e.cql(`CREATE TABLE "2nd" (k int PRIMARY KEY, "2col" text, "Query" int, "hello world" int)`,
			`CREATE TABLE "Query" (k int PRIMARY KEY, v int)`,
			`CREATE TABLE "booksInput" (k int PRIMARY KEY)`,
			`CREATE TABLE "Float32" (k int PRIMARY KEY, f float)`)
		e.dml(`mutation { insertx32_nd(value: {k: 1, x32_col: "two", Query: 3, hellox20_world: 4}) { applied } }`, nil)
		got := e.dml(`query { x32_nd(value: {k: 1}) { values { k x32_col Query hellox20_world } } conversionWarnings }`, nil)
		if g := jsonText(path(got, "x32_nd", "values")); g != `[{"Query":3,"hellox20_world":4,"k":1,"x32_col":"two"}]` {
			t.Errorf("escaped table = %s", g)
		}
		warnings := jsonText(got["conversionWarnings"])
		for _, w := range []string{
			"Table 2nd mapped as x32_nd",
			"Column 2col in table/UDT 2nd mapped as x32_col",
			"Column hello world in table/UDT 2nd mapped as hellox20_world",
			"Table Query mapped as Querx79_",
			"Table booksInput mapped as booksInpux74_",
		} {
			if !strings.Contains(warnings, w) {
				t.Errorf("conversionWarnings %s lacks %q", warnings, w)
			}
		}
		e.dml(`mutation { insertFloat3x32_(value: {k: 1, f: 2.5}) { applied } }`, nil)
		if got := e.dml(`{ Float3x32_ { values { f } } }`, nil); jsonText(got) != `{"Float3x32_":{"values":[{"f":2.5}]}}` {
			t.Errorf("table Float32 = %s", jsonText(got))
		}
		e.dml(`mutation { insertQuerx79_(value: {k: 1, v: 2}) { applied } }`, nil)
		got = e.dml(`query { Querx79_(value: {k: 1}) { values { v } } }`, nil)
		if g := jsonText(got); g != `{"Querx79_":{"values":[{"v":2}]}}` {
			t.Errorf("reserved table = %s", g)
		}
	})
}

func TestEmptyKeyspace(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, nil)
		got := e.dml(`mutation { keyspaceEmptyMutation }`, nil)
		if got["keyspaceEmptyMutation"] != true {
			t.Errorf("keyspaceEmptyMutation = %v", got["keyspaceEmptyMutation"])
		}
		got = e.dml(`{ conversionWarnings }`, nil)
		if g := jsonText(got); g != `{"conversionWarnings":[]}` {
			t.Errorf("conversionWarnings = %s", g)
		}
	})
}

func TestVariablesInput(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, nil)
		e.cql(`CREATE TABLE t (k bigint PRIMARY KEY, v varint, l list<int>)`)
		vars := map[string]any{"v": map[string]any{
			"k": json.Number("9007199254740993"), // > 2^53: must stay exact
			"v": json.Number("123456789012345678901234567890"),
			"l": []any{1, 2},
		}}
		got := e.dml(`mutation($v: tInput!) { insertt(value: $v) { applied value { k v l } } }`, vars)
		if g := jsonText(got["insertt"]); g != `{"applied":true,"value":{"k":"9007199254740993","l":[1,2],"v":"123456789012345678901234567890"}}` {
			t.Errorf("insert with variables = %s", g)
		}
		got = e.dml(`query($k: BigInt) { t(value: {k: $k}) { values { k v } } }`, map[string]any{"k": "9007199254740993"})
		if g := jsonText(got["t"]); g != `{"values":[{"k":"9007199254740993","v":"123456789012345678901234567890"}]}` {
			t.Errorf("query with variables = %s", g)
		}
	})
}

// TestVectorColumns maps vector<float, n> columns to lists of floats, in
// and out (a wrong dimension is CQL's error).
func TestVectorColumns(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, nil)
		e.cql(`CREATE TABLE vt (k int PRIMARY KEY, v vector<float, 3>)`)
		got := e.dml(`mutation { insertvt(value: {k: 1, v: [1, 2.5, -3]}) { applied } }`, nil)
		if g := jsonText(got["insertvt"]); g != `{"applied":true}` {
			t.Errorf("insert = %s", g)
		}
		got = e.dml(`query { vt(value: {k: 1}) { values { k v } } }`, nil)
		if g := jsonText(got["vt"]); g != `{"values":[{"k":1,"v":[1.0,2.5,-3.0]}]}` {
			t.Errorf("query = %s", g)
		}
		if msg := e.dmlError(`mutation { insertvt(value: {k: 2, v: [1, 2]}) { applied } }`, nil); !strings.Contains(msg, "expected 3 elements") {
			t.Errorf("wrong dimension: %q", msg)
		}
	})
}
