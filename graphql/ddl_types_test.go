package graphql

import (
	"strings"
	"testing"
	"time"
)

// TestCreateTypeAndIndex: createType, createIndex, dropIndex and dropType
// issue their CQL through the coordinator on every backend; the index then
// serves a query on a non-key column.
func TestCreateTypeAndIndex(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, nil)
		e.cql(`CREATE TABLE books (title text PRIMARY KEY, author text)`,
			`INSERT INTO books (title, author) VALUES ('Dune', 'Herbert')`)
		for _, q := range []string{
			`mutation($ks: String!) { createType(keyspaceName: $ks, typeName: "address",
				fields: [{name: "street", type: {basic: TEXT}}, {name: "zip", type: {basic: INT}}]) }`,
			`mutation($ks: String!) { createIndex(keyspaceName: $ks, tableName: "books", columnName: "author", indexName: "books_author") }`,
		} {
			if r := e.post("/graphql-schema", q, map[string]any{"ks": e.ks}); r.Status != 200 || len(r.Errors) > 0 {
				t.Fatalf("%s: status %d %s", q, r.Status, r.Raw)
			}
		}
		// The new type is described by the keyspace query, fields in
		// declaration order (Stargate's UdtDto).
		got := e.ddl(`query($ks: String!) { keyspace(name: $ks) { types { name fields { name type { basic } } }
			type(name: "address") { name fields { name } } nope: type(name: "nope") { name } } }`, map[string]any{"ks": e.ks})
		want := `{"keyspace":{"nope":null,"type":{"fields":[{"name":"street"},{"name":"zip"}],"name":"address"},` +
			`"types":[{"fields":[{"name":"street","type":{"basic":"TEXT"}},{"name":"zip","type":{"basic":"INT"}}],"name":"address"}]}}`
		if g := jsonText(got); g != want {
			t.Errorf("keyspace types =\n%s\nwant\n%s", g, want)
		}
		// The index serves a query on a non-key column (no ALLOW
		// FILTERING); Cassandra may still be building it: poll.
		deadline := time.Now().Add(30 * time.Second)
		for {
			r := e.post("/graphql/"+e.ks, `{ books(filter: {author: {eq: "Herbert"}}) { values { title } } }`, nil)
			if len(r.Errors) == 0 && jsonText(r.Data) == `{"books":{"values":[{"title":"Dune"}]}}` {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("indexed query: %s", r.Raw)
			}
			time.Sleep(200 * time.Millisecond)
		}
		for _, q := range []string{
			`mutation($ks: String!) { dropIndex(keyspaceName: $ks, indexName: "books_author") }`,
			`mutation($ks: String!) { dropType(keyspaceName: $ks, typeName: "address") }`,
		} {
			if got := e.ddl(q, map[string]any{"ks": e.ks}); !strings.Contains(jsonText(got), "true") {
				t.Errorf("%s: %s", q, jsonText(got))
			}
		}
	})
}
