package schema

import (
	"testing"

	"github.com/dohyo/dohyo/cql"
)

// TestSetExtensions: UPDATE system_schema.tables|views SET extensions
// replaces the map of an existing table or view (kept as 0x-hex blobs);
// a missing object, or a view addressed as a table, changes nothing.
func TestSetExtensions(t *testing.T) {
	cat := New()
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int, c int, PRIMARY KEY (k, c))",
		"CREATE MATERIALIZED VIEW ks.mv AS SELECT * FROM ks.t WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (c, k)",
	} {
		p, err := cql.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		if cat, _, err = cat.Apply(p.Stmt, ""); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	next, ch, err := cat.Apply(&cql.SetExtensions{Keyspace: "ks", Name: "t", Extensions: map[string][]byte{"a": {1, 2}}}, "")
	if err != nil || ch == nil || ch.Table != "t" || next.Keyspace("ks").Tables["t"].Params.Extensions["a"] != "0x0102" {
		t.Fatalf("set: %v %+v", err, ch)
	}
	for _, s := range []*cql.SetExtensions{
		{Keyspace: "ks", Name: "nope", Extensions: map[string][]byte{"a": {1}}},
		{Keyspace: "nope", Name: "t", Extensions: map[string][]byte{"a": {1}}},
		{Keyspace: "ks", Name: "mv", Extensions: map[string][]byte{"a": {1}}}, // a view, not a table
		{Keyspace: "ks", Name: "t", Extensions: map[string][]byte{"a": {1, 2}}},
	} {
		if got, ch, err := next.Apply(s, ""); err != nil || ch != nil || got != next {
			t.Errorf("%+v: changed the catalog (%v %+v)", s, err, ch)
		}
	}
	v, ch, err := next.Apply(&cql.SetExtensions{Keyspace: "ks", Name: "mv", View: true}, "")
	if err != nil || ch != nil || v != next {
		t.Errorf("an empty map on a view without extensions changed it: %v %+v", err, ch)
	}
}
