package graphql

import (
	"strings"
	"testing"
)

// TestMaterializedViewReadOnly: a materialized view is a query field
// (rows written to its base table are read through it) and has no
// mutations, as Cassandra refuses writes to a view.
func TestMaterializedViewReadOnly(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, nil)
		e.cql(`CREATE TABLE base (k int PRIMARY KEY, v int)`,
			`CREATE MATERIALIZED VIEW base_by_v AS SELECT * FROM base WHERE v IS NOT NULL AND k IS NOT NULL PRIMARY KEY (v, k)`)
		e.dml(`mutation { insertbase(value: {k: 1, v: 7}) { applied } }`, nil)
		got := e.dml(`{ base_by_v(value: {v: 7}) { values { v k } } }`, nil)
		if s := jsonText(path(got, "base_by_v", "values")); s != `[{"k":1,"v":7}]` && s != `[{"v":7,"k":1}]` {
			t.Errorf("view rows: %s", s)
		}
		if msg := e.dmlError(`mutation { insertbase_by_v(value: {k: 2, v: 8}) { applied } }`, nil); !strings.Contains(msg, "insertbase_by_v") {
			t.Errorf("insert into a view: %s", msg)
		}
	})
}
