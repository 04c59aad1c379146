package graphql

import (
	"strings"
	"testing"

	"github.com/dohyo/dohyo/proxy/cqlserver"
)

// TestSystemKeyspaces: the system keyspaces dohyo's CQL server answers
// are listed by /graphql-schema and queried at /graphql/{keyspace}, as
// Stargate shows them.
func TestSystemKeyspaces(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, func(c *Config) {
			srv, err := cqlserver.New(cqlserver.Config{Coordinator: c.Coordinator})
			if err != nil {
				t.Fatal(err)
			}
			c.SystemKeyspaces = srv.SystemKeyspaces()
		})
		e.cql(`CREATE TABLE books (title text PRIMARY KEY, pages int)`)
		got := e.ddl(`{ keyspaces { name } }`, nil)
		names := jsonText(got["keyspaces"])
		for _, want := range []string{`{"name":"system"}`, `{"name":"system_schema"}`, `{"name":"system_auth"}`, `{"name":"` + e.ks + `"}`} {
			if !strings.Contains(names, want) {
				t.Errorf("keyspaces %s: missing %s", names, want)
			}
		}
		got = e.ddl(`{ keyspace(name: "system_schema") { name tables { name } } }`, nil)
		if !strings.Contains(jsonText(got), `{"name":"columns"}`) {
			t.Errorf("system_schema tables: %s", jsonText(got))
		}
		r := e.post("/graphql/system_schema", `query($k: String) { tables(value: {keyspace_name: $k}) { values { keyspace_name table_name } } }`,
			map[string]any{"k": e.ks})
		if len(r.Errors) > 0 || jsonText(path(r.Data, "tables", "values")) != `[{"keyspace_name":"`+e.ks+`","table_name":"books"}]` {
			t.Errorf("system_schema.tables: %s", r.Raw)
		}
		r = e.post("/graphql/system", `{ local(value: {key: "local"}) { values { key cql_version } } }`, nil)
		if len(r.Errors) > 0 || path(r.Data, "local", "values", 0, "key") != "local" {
			t.Errorf("system.local: %s", r.Raw)
		}
		// Writes are Cassandra's refusal, not a crash.
		if r := e.post("/graphql/system_schema", `mutation { insertkeyspaces(value: {keyspace_name: "x"}) { applied } }`, nil); len(r.Errors) == 0 {
			t.Errorf("write to system_schema accepted: %s", r.Raw)
		}
	})
}
