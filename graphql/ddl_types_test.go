package graphql

import (
	"strings"
	"testing"
	"time"
)

// TestCreateTypeAndIndex: createType, createIndex, dropIndex and dropType
// issue their CQL through the coordinator. Where the statement runs, the
// index then serves a query on a non-key column; where it does not (today
// every backend: the coordinator's router refuses CREATE TYPE and CREATE
// INDEX before any backend sees them, proxy/route.go), the field's error
// names the statement and the server keeps serving.
func TestCreateTypeAndIndex(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, nil)
		e.cql(`CREATE TABLE books (title text PRIMARY KEY, author text)`,
			`INSERT INTO books (title, author) VALUES ('Dune', 'Herbert')`)
		steps := []string{
			`mutation($ks: String!) { createType(keyspaceName: $ks, typeName: "address",
				fields: [{name: "street", type: {basic: TEXT}}, {name: "zip", type: {basic: INT}}]) }`,
			`mutation($ks: String!) { createIndex(keyspaceName: $ks, tableName: "books", columnName: "author", indexName: "books_author") }`,
		}
		supported := true
		for _, q := range steps {
			r := e.post("/graphql-schema", q, map[string]any{"ks": e.ks})
			switch {
			case r.Status != 200:
				t.Fatalf("%s: status %d %s", q, r.Status, r.Raw)
			case len(r.Errors) > 0:
				supported = false
				if !strings.Contains(r.errorText(), "CREATE TYPE") && !strings.Contains(r.errorText(), "CREATE INDEX") {
					t.Errorf("%s: unclear refusal %s", q, r.Raw)
				}
				t.Logf("%s refuses: %s", tb.name, r.errorText())
			}
		}
		if !supported {
			// Still serving after the refusal.
			if got := e.dml(`{ books(value: {title: "Dune"}) { values { author } } }`, nil); jsonText(got) != `{"books":{"values":[{"author":"Herbert"}]}}` {
				t.Errorf("after refusal: %s", jsonText(got))
			}
			return
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
