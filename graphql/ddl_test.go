package graphql

import (
	"strings"
	"testing"
)

func TestDDL(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, nil)
		ks := e.ks + "_ddl"
		vars := map[string]any{"ks": ks}
		got := e.ddl(`mutation($ks: String!) { createKeyspace(name: $ks, replicas: 1) }`, vars)
		if got["createKeyspace"] != true {
			t.Fatalf("createKeyspace = %v", got)
		}
		e.ddl(`mutation($ks: String!) { createKeyspace(name: $ks, replicas: 1, ifNotExists: true) }`, vars)
		if r := e.post("/graphql-schema", `mutation($ks: String!) { createKeyspace(name: $ks, replicas: 1) }`, vars); !strings.Contains(r.errorText(), "existing keyspace") {
			t.Errorf("duplicate createKeyspace: %s", r.Raw)
		}

		got = e.ddl(`mutation($ks: String!) { createTable(keyspaceName: $ks, tableName: "books",
			partitionKeys: [{name: "title", type: {basic: TEXT}}],
			clusteringKeys: [{name: "edition", type: {basic: INT}, order: "DESC"}],
			values: [
				{name: "author", type: {basic: VARCHAR}},
				{name: "tags", type: {basic: SET, info: {subTypes: [{basic: TEXT}]}}},
				{name: "ratings", type: {basic: MAP, info: {subTypes: [{basic: TEXT}, {basic: INT}], frozen: true}}},
				{name: "pair", type: {basic: TUPLE, info: {subTypes: [{basic: INT}, {basic: BIGINT}]}}},
				{name: "scores", type: {basic: LIST, info: {subTypes: [{basic: DOUBLE}]}}}
			]) }`, vars)
		if got["createTable"] != true {
			t.Fatalf("createTable = %v", got)
		}
		got = e.ddl(`query($ks: String!) { keyspace(name: $ks) { name dcs { name replicas }
			tables { name columns { name kind type { basic info { name frozen subTypes { basic } } } } } } }`, vars)
		want := `{"keyspace":{"dcs":[],"name":"` + ks + `","tables":[{"columns":[` +
			`{"kind":"PARTITION","name":"title","type":{"basic":"TEXT","info":null}},` +
			`{"kind":"CLUSTERING","name":"edition","type":{"basic":"INT","info":null}},` +
			`{"kind":"REGULAR","name":"author","type":{"basic":"TEXT","info":null}},` +
			`{"kind":"REGULAR","name":"pair","type":{"basic":"TUPLE","info":{"frozen":true,"name":null,"subTypes":[{"basic":"INT"},{"basic":"BIGINT"}]}}},` +
			`{"kind":"REGULAR","name":"ratings","type":{"basic":"MAP","info":{"frozen":true,"name":null,"subTypes":[{"basic":"TEXT"},{"basic":"INT"}]}}},` +
			`{"kind":"REGULAR","name":"scores","type":{"basic":"LIST","info":{"frozen":false,"name":null,"subTypes":[{"basic":"DOUBLE"}]}}},` +
			`{"kind":"REGULAR","name":"tags","type":{"basic":"SET","info":{"frozen":false,"name":null,"subTypes":[{"basic":"TEXT"}]}}}` +
			`],"name":"books"}]}}`
		if g := jsonText(got); g != want {
			t.Errorf("keyspace =\n%s\nwant\n%s", g, want)
		}
		got = e.ddl(`query($ks: String!) { keyspace(name: $ks) { table(name: "books") { name } nope: table(name: "nope") { name } types { name } type(name: "x") { name } } }`, vars)
		if g := jsonText(got); g != `{"keyspace":{"nope":null,"table":{"name":"books"},"type":null,"types":[]}}` {
			t.Errorf("table(name) = %s", g)
		}
		got = e.ddl(`{ keyspaces { name } missing: keyspace(name: "nope") { name } }`, nil)
		if !strings.Contains(jsonText(got["keyspaces"]), `{"name":"`+ks+`"}`) || got["missing"] != nil {
			t.Errorf("keyspaces = %s", jsonText(got))
		}

		// The clustering order was applied: DESC reads newest first.
		for _, ed := range []string{"1", "3", "2"} {
			e.post("/graphql/"+ks, `mutation { insertbooks(value: {title: "T", edition: `+ed+`}) { applied } }`, nil)
		}
		r := e.post("/graphql/"+ks, `{ books(value: {title: "T"}) { values { edition } } }`, nil)
		if g := jsonText(path(r.Data, "books", "values")); g != `[{"edition":3},{"edition":2},{"edition":1}]` {
			t.Errorf("clustering order DESC: %s (%s)", g, r.Raw)
		}

		e.ddl(`mutation($ks: String!) { alterTableAdd(keyspaceName: $ks, tableName: "books", toAdd: [{name: "pages", type: {basic: INT}}]) }`, vars)
		r = e.post("/graphql/"+ks, `mutation { updatebooks(value: {title: "T", edition: 1, pages: 10}) { applied value { pages } } }`, nil)
		if g := jsonText(r.Data); g != `{"updatebooks":{"applied":true,"value":{"pages":10}}}` {
			t.Errorf("after alterTableAdd: %s", r.Raw)
		}
		e.ddl(`mutation($ks: String!) { alterTableDrop(keyspaceName: $ks, tableName: "books", toDrop: ["pages", "pair"]) }`, vars)
		r = e.post("/graphql/"+ks, `{ books(value: {title: "T"}) { values { pages } } }`, nil)
		if !strings.Contains(r.errorText(), `Cannot query field "pages"`) {
			t.Errorf("after alterTableDrop: %s", r.Raw)
		}
		e.ddl(`mutation($ks: String!) { dropTable(keyspaceName: $ks, tableName: "books") }`, vars)
		e.ddl(`mutation($ks: String!) { dropTable(keyspaceName: $ks, tableName: "books", ifExists: true) }`, vars)
		r = e.post("/graphql/"+ks, `{ books { values { title } } }`, nil)
		if !strings.Contains(r.errorText(), `Cannot query field "books"`) {
			t.Errorf("after dropTable: %s", r.Raw)
		}
		e.ddl(`mutation($ks: String!) { dropKeyspace(name: $ks) }`, vars)
		e.ddl(`mutation($ks: String!) { dropKeyspace(name: $ks, ifExists: true) }`, vars)
		if r := e.post("/graphql/"+ks, `{ conversionWarnings }`, nil); r.Status != 404 {
			t.Errorf("after dropKeyspace: status %d", r.Status)
		}

		// Datacenters.
		// Real Cassandra only accepts the data centers it has (one,
		// "datacenter1"); dohyo's own catalog accepts any names.
		if tb.name == "cassandra" {
			e.ddl(`mutation($ks: String!) { createKeyspace(name: $ks, datacenters: [{name: "datacenter1", replicas: 1}]) }`, vars)
			got = e.ddl(`query($ks: String!) { keyspace(name: $ks) { dcs { name replicas } } }`, vars)
			if g := jsonText(got); g != `{"keyspace":{"dcs":[{"name":"datacenter1","replicas":1}]}}` {
				t.Errorf("dcs = %s", g)
			}
			return
		}
		got = e.ddl(`mutation($ks: String!) { createKeyspace(name: $ks, datacenters: [{name: "dc1", replicas: 2}, {name: "dc2"}]) }`, vars)
		got = e.ddl(`query($ks: String!) { keyspace(name: $ks) { dcs { name replicas } } }`, vars)
		if g := jsonText(got); g != `{"keyspace":{"dcs":[{"name":"dc1","replicas":2},{"name":"dc2","replicas":3}]}}` {
			t.Errorf("dcs = %s", g)
		}
	})
}

func TestDDLErrors(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, nil)
		vars := map[string]any{"ks": e.ks}
		cases := []struct{ query, want string }{
			{`mutation { createKeyspace(name: "x") }`, "You must specify either replicas or datacenters"},
			{`mutation { createKeyspace(name: "x", replicas: 1, datacenters: [{name: "dc1"}]) }`, "You can't specify both replicas and datacenters"},
			{`mutation { createKeyspace(name: "x", datacenters: []) }`, "datacenters must contain at least one element"},
			{`mutation($ks: String!) { createTable(keyspaceName: $ks, tableName: "t", partitionKeys: []) }`, "partitionKeys must contain at least one element"},
			{`mutation($ks: String!) { createTable(keyspaceName: $ks, tableName: "t", partitionKeys: [{name: "k", type: {basic: LIST}}]) }`, "List type should contain an 'info' field"},
			{`mutation($ks: String!) { createTable(keyspaceName: $ks, tableName: "t", partitionKeys: [{name: "k", type: {basic: MAP, info: {subTypes: [{basic: INT}]}}}]) }`, "Map sub types should contain 2 items"},
			{`mutation($ks: String!) { createTable(keyspaceName: $ks, tableName: "t", partitionKeys: [{name: "k", type: {basic: UDT}}]) }`, "UDT type should contain an 'info' field specifying the UDT name"},
			{`mutation($ks: String!) { createTable(keyspaceName: $ks, tableName: "t", partitionKeys: [{name: "k", type: {basic: CUSTOM}}]) }`, "Data type CUSTOM is not supported"},
			{`mutation($ks: String!) { createTable(keyspaceName: $ks, tableName: "t", partitionKeys: [{name: "k", type: {basic: INT}}], clusteringKeys: [{name: "c", type: {basic: INT}, order: "UP"}]) }`, "Invalid clustering order 'UP'"},
			{`mutation($ks: String!) { alterTableAdd(keyspaceName: $ks, tableName: "t", toAdd: []) }`, "toAdd must contain at least one element"},
			{`mutation($ks: String!) { alterTableDrop(keyspaceName: $ks, tableName: "nope", toDrop: ["x"]) }`, "nope"},
			{`mutation($ks: String!) { dropTable(keyspaceName: $ks, tableName: "nope") }`, "nope"},
			{`mutation { dropKeyspace(name: "nope") }`, "nope"},
		}
		for _, c := range cases {
			r := e.post("/graphql-schema", c.query, vars)
			if !strings.Contains(r.errorText(), c.want) {
				t.Errorf("%s: errors %q, want %q", c.query, r.errorText(), c.want)
			}
		}
	})
}

func TestSchemaRegeneration(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, nil)
		e.cql(`CREATE TABLE a (k int PRIMARY KEY)`)
		e.dml(`{ a { values { k } } }`, nil)
		before, _ := e.gql.keyspaceSchema(t.Context(), e.ks)

		// DDL in another keyspace does not rebuild this one.
		other := e.ks + "_other"
		e.cql(`CREATE KEYSPACE ` + other + ` WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`)
		if d, _ := e.gql.keyspaceSchema(t.Context(), e.ks); d != before {
			t.Error("schema rebuilt after DDL in another keyspace")
		}

		// DDL through CQL is picked up by the next GraphQL request.
		e.cql(`CREATE TABLE b (k int PRIMARY KEY, v text)`)
		e.dml(`mutation { insertb(value: {k: 1, v: "x"}) { applied } }`, nil)
		got := e.dml(`{ b(value: {k: 1}) { values { v } } }`, nil)
		if g := jsonText(got); g != `{"b":{"values":[{"v":"x"}]}}` {
			t.Errorf("new table = %s", g)
		}
		if d, _ := e.gql.keyspaceSchema(t.Context(), e.ks); d == before {
			t.Error("schema not rebuilt after CREATE TABLE")
		}
		e.cql(`ALTER TABLE b ADD w int`)
		e.dml(`mutation { updateb(value: {k: 1, w: 2}) { applied } }`, nil)
		e.cql(`DROP TABLE a`)
		if msg := e.dmlError(`{ a { values { k } } }`, nil); !strings.Contains(msg, `Cannot query field "a"`) {
			t.Errorf("dropped table still queryable: %s", msg)
		}
	})
}
