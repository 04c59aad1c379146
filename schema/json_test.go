package schema

import (
	"bytes"
	"encoding/json"
	"maps"
	"strings"
	"testing"
)

func richCatalog(t *testing.T) *Catalog {
	t.Helper()
	c := NewWithOptions(testOptions())
	return run(t, c,
		"CREATE KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 3, 'dc2': 2} AND durable_writes = false",
		"CREATE KEYSPACE other WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		`CREATE TABLE ks."Events" ("Part" int, b text, c timeuuid, s set<text> static, m map<text, frozen<list<int>>>, `+
			`tu tuple<int, frozen<set<text>>>, v text, w int, PRIMARY KEY (("Part", b), c)) WITH CLUSTERING ORDER BY (c DESC) `+
			`AND comment = 'x' AND default_time_to_live = 7 AND compaction = {'class': 'TimeWindowCompactionStrategy'}`,
		"ALTER TABLE ks.\"Events\" DROP w",
		"CREATE TABLE other.cnt (k int PRIMARY KEY, n counter)",
	)
}

func TestJSONRoundTrip(t *testing.T) {
	c := richCatalog(t)
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	got, err := UnmarshalCatalog(data)
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != c.Version {
		t.Errorf("version %s, want %s", got.Version, c.Version)
	}
	if strings.Join(got.KeyspaceNames(), ",") != "ks,other" {
		t.Fatalf("keyspaces %v", got.KeyspaceNames())
	}
	for _, ksName := range c.KeyspaceNames() {
		a, b := c.Keyspace(ksName), got.Keyspace(ksName)
		if a.CreateStatement() != b.CreateStatement() || !maps.Equal(a.Replication, b.Replication) {
			t.Errorf("keyspace %s differs:\n%s\n%s", ksName, a.CreateStatement(), b.CreateStatement())
		}
		for _, tName := range a.TableNames() {
			ta, tb := a.Tables[tName], b.Tables[tName]
			if tb == nil {
				t.Fatalf("table %s.%s missing", ksName, tName)
			}
			if ta.CreateStatement() != tb.CreateStatement() || colSig(ta) != colSig(tb) || ta.ID != tb.ID ||
				ta.Counter != tb.Counter || !maps.Equal(ta.Options, tb.Options) {
				t.Errorf("table %s.%s differs:\n%s\n%s", ksName, tName, ta.CreateStatement(), tb.CreateStatement())
			}
			if len(ta.Dropped) != len(tb.Dropped) {
				t.Errorf("dropped %v vs %v", ta.Dropped, tb.Dropped)
			}
			for n, d := range ta.Dropped {
				if e := tb.Dropped[n]; e == nil || !e.Type.Equal(d.Type) || e.Kind != d.Kind || e.DroppedAt != d.DroppedAt {
					t.Errorf("dropped %s: %+v vs %+v", n, d, e)
				}
			}
			for _, col := range ta.Columns {
				if !col.Type.Equal(tb.Column(col.Name).Type) {
					t.Errorf("column %s type %s vs %s", col.Name, col.Type, tb.Column(col.Name).Type)
				}
			}
		}
	}
	// Encoding is stable.
	again, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, data) {
		t.Errorf("re-encoding differs:\n%s\n%s", data, again)
	}
	// The decoded catalog keeps working.
	next := run(t, got.WithOptions(testOptions()), "ALTER TABLE other.cnt ADD m counter")
	if next.Table("other", "cnt").Column("m") == nil {
		t.Error("apply after decode failed")
	}
}

func TestJSONEmptyCatalog(t *testing.T) {
	data, err := json.Marshal(New())
	if err != nil {
		t.Fatal(err)
	}
	c, err := UnmarshalCatalog(data)
	if err != nil || len(c.Keyspaces) != 0 {
		t.Fatalf("got %v %v", c, err)
	}
}

func TestJSONRejectsBadInput(t *testing.T) {
	good, err := json.Marshal(richCatalog(t))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"not json":        "{",
		"future format":   `{"format": 2, "keyspaces": []}`,
		"no format":       `{"keyspaces": []}`,
		"bad kind":        strings.Replace(string(good), `"kind":"clustering"`, `"kind":"sideways"`, 1),
		"bad type":        strings.Replace(string(good), `{"kind":"timeuuid"}`, `{"kind":"bogus"}`, 1),
		"list no elems":   strings.Replace(string(good), `"kind":"set","elems":[{"kind":"text"}]`, `"kind":"set"`, 1),
		"no partition":    `{"format":1,"keyspaces":[{"name":"k","tables":[{"name":"t","columns":[{"name":"v","type":{"kind":"int"},"kind":"regular"}]}]}]}`,
		"bad position":    `{"format":1,"keyspaces":[{"name":"k","tables":[{"name":"t","columns":[{"name":"k","type":{"kind":"int"},"kind":"partition_key","position":3}]}]}]}`,
		"dup keyspace":    `{"format":1,"keyspaces":[{"name":"k"},{"name":"k"}]}`,
		"missing type":    `{"format":1,"keyspaces":[{"name":"k","tables":[{"name":"t","columns":[{"name":"k","kind":"partition_key"}]}]}]}`,
		"varchar kind":    `{"format":1,"keyspaces":[{"name":"k","tables":[{"name":"t","columns":[{"name":"k","type":{"kind":"varchar"},"kind":"partition_key"}]}]}]}`,
		"deeply nested":   `{"format":1,"keyspaces":[{"name":"k","tables":[{"name":"t","columns":[{"name":"k","kind":"partition_key","type":` + strings.Repeat(`{"kind":"list","elems":[`, 100) + `{"kind":"int"}` + strings.Repeat(`]}`, 100) + `}]}]}]}`,
		"unnamed table":   `{"format":1,"keyspaces":[{"name":"k","tables":[{"columns":[]}]}]}`,
		"duplicate table": `{"format":1,"keyspaces":[{"name":"k","tables":[{"name":"t","columns":[{"name":"k","type":{"kind":"int"},"kind":"partition_key"}]},{"name":"t","columns":[{"name":"k","type":{"kind":"int"},"kind":"partition_key"}]}]}]}`,
	}
	for name, in := range cases {
		if in == string(good) {
			t.Fatalf("%s: replacement did not apply", name)
		}
		if c, err := UnmarshalCatalog([]byte(in)); err == nil {
			t.Errorf("%s: decoded %v, want error", name, c.KeyspaceNames())
		}
	}
}
