package cql

import (
	"reflect"
	"testing"
)

func TestParseCreateView(t *testing.T) {
	p, err := Parse(`CREATE MATERIALIZED VIEW IF NOT EXISTS ks.mv AS SELECT a, "B" FROM ks.t
		WHERE a IS NOT NULL AND "B" IS NOT NULL AND c IN (1,2) AND d >= 'x' PRIMARY KEY ((a), "B")
		WITH CLUSTERING ORDER BY ("B" DESC) AND comment = 'hi'`)
	if err != nil {
		t.Fatal(err)
	}
	s := p.Stmt.(*CreateView)
	if !s.IfNotExists || s.Keyspace != "ks" || s.Name != "mv" || s.Base != "t" || s.Star {
		t.Fatalf("header: %+v", s)
	}
	if !reflect.DeepEqual(s.Columns, []string{"a", "B"}) || !reflect.DeepEqual(s.PartitionKey, []string{"a"}) ||
		!reflect.DeepEqual(s.Clustering, []string{"B"}) || len(s.ClusteringOrder) != 1 || !s.ClusteringOrder[0].Desc {
		t.Fatalf("columns/keys: %+v", s)
	}
	want := []string{"a IS NOT NULL", `"B" IS NOT NULL`, "c IN (1, 2)", "d >= 'x'"}
	if !reflect.DeepEqual(s.WhereText, want) {
		t.Fatalf("where text %q, want %q", s.WhereText, want)
	}
	if len(s.Options) != 1 || s.Options[0].Name != "comment" {
		t.Fatalf("options %+v", s.Options)
	}
}

func TestParseAlterDropView(t *testing.T) {
	p, err := Parse(`ALTER MATERIALIZED VIEW IF EXISTS mv WITH comment = 'x' AND gc_grace_seconds = 3`)
	if err != nil {
		t.Fatal(err)
	}
	if a := p.Stmt.(*AlterView); !a.IfExists || a.Name != "mv" || len(a.Options) != 2 {
		t.Fatalf("%+v", a)
	}
	p, err = Parse(`DROP MATERIALIZED VIEW IF EXISTS ks.mv`)
	if err != nil {
		t.Fatal(err)
	}
	if d := p.Stmt.(*DropView); !d.IfExists || d.Keyspace != "ks" || d.Name != "mv" {
		t.Fatalf("%+v", d)
	}
	if _, err := Parse(`CREATE MATERIALIZED VIEW mv AS SELECT * FROM t WHERE k IS NOT NULL`); err == nil {
		t.Fatal("missing PRIMARY KEY parsed")
	}
}

func TestRenameInWhere(t *testing.T) {
	got, err := RenameInWhere(`k IS NOT NULL AND c IS NOT NULL AND c IN (1, 2) AND "K" > 'x'`, map[string]string{"c": "cc", "K": "Q"})
	if want := `k IS NOT NULL AND cc IS NOT NULL AND cc IN (1, 2) AND "Q" > 'x'`; err != nil || got != want {
		t.Fatalf("got %q, %v; want %q", got, err, want)
	}
}
