package graphql

import (
	"strings"
	"testing"
)

// TestExplicitNulls: a null literal and a null JSON variable write NULL
// (Stargate's behaviour); an absent field keeps the stored value.
func TestExplicitNulls(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, nil)
		e.cql(`CREATE TABLE books (title text PRIMARY KEY, author text, pages int, tags set<text>)`)
		read := func() string {
			t.Helper()
			got := e.dml(`{ books(value: {title: "A"}) { values { title author pages tags } } }`, nil)
			return jsonText(path(got, "books", "values", 0))
		}
		e.dml(`mutation { insertbooks(value: {title: "A", author: "x", pages: 1, tags: ["t"]}) { applied } }`, nil)

		// Literal null in an update: that column only.
		got := e.dml(`mutation { updatebooks(value: {title: "A", author: null}) { applied } }`, nil)
		if jsonText(got["updatebooks"]) != `{"applied":true}` {
			t.Errorf("update = %s", jsonText(got["updatebooks"]))
		}
		if got, want := read(), `{"author":null,"pages":1,"tags":["t"],"title":"A"}`; got != want {
			t.Errorf("after literal null: %s, want %s", got, want)
		}
		// Null variable inside an input object.
		e.dml(`mutation($v: booksInput!) { updatebooks(value: $v) { applied } }`,
			map[string]any{"v": map[string]any{"title": "A", "pages": nil}})
		if got, want := read(), `{"author":null,"pages":null,"tags":["t"],"title":"A"}`; got != want {
			t.Errorf("after null in a variable object: %s, want %s", got, want)
		}
		// A null scalar variable used as a field; an absent one leaves
		// the column alone.
		e.dml(`mutation($t: [String], $p: Int) { updatebooks(value: {title: "A", tags: $t, pages: $p}) { applied } }`,
			map[string]any{"t": nil})
		if got, want := read(), `{"author":null,"pages":null,"tags":null,"title":"A"}`; got != want {
			t.Errorf("after null scalar variable: %s, want %s", got, want)
		}
		e.dml(`mutation { updatebooks(value: {title: "A", author: "y"}) { applied } }`, nil)
		e.dml(`mutation($a: String) { updatebooks(value: {title: "A", author: $a, pages: 2}) { applied } }`, nil)
		if got, want := read(), `{"author":"y","pages":2,"tags":null,"title":"A"}`; got != want {
			t.Errorf("absent variable must keep the value: %s, want %s", got, want)
		}
		// Insert with a null column.
		e.dml(`mutation { insertbooks(value: {title: "A", author: null}) { applied } }`, nil)
		if got, want := read(), `{"author":null,"pages":2,"tags":null,"title":"A"}`; got != want {
			t.Errorf("after insert with null: %s, want %s", got, want)
		}
		// null where a value is required is refused before anything runs.
		if msg := e.dmlError(`mutation { insertbooks(value: null) { applied } }`, nil); !strings.Contains(msg, `Expected "booksInput!", found null`) {
			t.Errorf("null for a non-null argument: %s", msg)
		}
		if msg := e.dmlError(`mutation($v: booksInput!) { insertbooks(value: $v) { applied } }`, map[string]any{"v": nil}); !strings.Contains(msg, `$v`) {
			t.Errorf("null for a non-null variable: %s", msg)
		}
		// A null key is CQL's error.
		if msg := e.dmlError(`{ books(value: {title: null}) { values { title } } }`, nil); !strings.Contains(msg, "null") {
			t.Errorf("null key: %s", msg)
		}
	})
}
