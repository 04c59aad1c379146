package schema

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func golden(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".cql"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(string(b), "\n")
}

func TestTableCreateStatement(t *testing.T) {
	cases := []struct {
		golden   string
		ks       string
		stmts    []string
		keyspace string
		table    string
	}{
		{"simple", "ks", []string{"CREATE TABLE t (k int PRIMARY KEY, v text)"}, "ks", "t"},
		{"keyonly", "ks", []string{"CREATE TABLE keyonly (k int, PRIMARY KEY ((k)))"}, "ks", "keyonly"},
		{"clustered", "shop", []string{"CREATE TABLE shop.items (category text, price int, id int, model text, producer text, " +
			"properties map<text, text>, PRIMARY KEY (category, price, id)) WITH CLUSTERING ORDER BY (price DESC, id ASC)"}, "shop", "items"},
		{"complex", `"MyKs"`, []string{`CREATE TABLE "MyKs"."Events" ("Part" int, b text, c timeuuid, d bigint, s set<text> static, ` +
			`s2 int static, z text, a list<int>, f frozen<list<int>>, tu tuple<int, text>, PRIMARY KEY (("Part", b), c, d)) ` +
			`WITH CLUSTERING ORDER BY (c DESC, d ASC) AND comment = 'it''s' AND compaction = {'class': 'LeveledCompactionStrategy'} ` +
			`AND compression = {'enabled': false} AND default_time_to_live = 100 AND caching = {'keys': 'NONE', 'rows_per_partition': 5} ` +
			`AND speculative_retry = '95percentile'`}, "MyKs", "Events"},
		{"simple", "ks", []string{"CREATE TABLE t (k int PRIMARY KEY, v text)", "ALTER TABLE t DROP v", "ALTER TABLE t ADD v text"}, "ks", "t"},
	}
	for _, tc := range cases {
		t.Run(tc.golden, func(t *testing.T) {
			c := NewWithOptions(testOptions())
			c = run(t, c, "CREATE KEYSPACE "+tc.ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
			c = run(t, c, tc.stmts...)
			got := c.Table(tc.keyspace, tc.table).CreateStatement()
			if want := golden(t, tc.golden); got != want {
				t.Errorf("CreateStatement mismatch\n--- got\n%s\n--- want\n%s", got, want)
			}
		})
	}
}

func TestCreateStatementReparses(t *testing.T) {
	// DESCRIBE output must be valid DDL that recreates the same table.
	for _, name := range []string{"simple", "clustered", "complex", "keyonly"} {
		text := golden(t, name)
		stmt := parse(t, text)
		c := NewWithOptions(testOptions())
		c = run(t, c, `CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy'}`,
			`CREATE KEYSPACE shop WITH replication = {'class': 'SimpleStrategy'}`,
			`CREATE KEYSPACE "MyKs" WITH replication = {'class': 'SimpleStrategy'}`)
		next, ch, err := c.Apply(stmt, "")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := next.Table(ch.Keyspace, ch.Table).CreateStatement(); got != text {
			t.Errorf("%s: re-created table renders differently\n%s", name, got)
		}
	}
}

func TestKeyspaceCreateStatement(t *testing.T) {
	cases := []struct{ golden, stmt, name string }{
		{"keyspace_simple", "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", "ks"},
		{"keyspace_nts", "CREATE KEYSPACE my_test_ks WITH REPLICATION = {'class' : 'NetworkTopologyStrategy', 'dc1' : 1, 'dc2' : 1}", "my_test_ks"},
		{"keyspace_quoted", `CREATE KEYSPACE "MyKs" WITH replication = {'class': 'org.apache.cassandra.locator.SimpleStrategy', 'replication_factor': 3} AND durable_writes = false`, "MyKs"},
	}
	for _, tc := range cases {
		t.Run(tc.golden, func(t *testing.T) {
			c := run(t, NewWithOptions(testOptions()), tc.stmt)
			if got, want := c.Keyspace(tc.name).CreateStatement(), golden(t, tc.golden); got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

func TestJavaHashOrder(t *testing.T) {
	// java.util.HashMap iteration order for these keys, as Cassandra prints
	// them (dc2 hashes to a lower bucket than dc1).
	got := javaHashOrder([]string{"dc1", "dc2"})
	if strings.Join(got, ",") != "dc2,dc1" {
		t.Errorf("order = %v", got)
	}
	if h := javaHash("dc1"); h != 99218^1 {
		t.Errorf("javaHash(dc1) = %d", h)
	}
}

func TestOptionsCQL(t *testing.T) {
	c := newCatalog(t, "CREATE TABLE t (k int PRIMARY KEY) WITH comment = 'a''b' AND caching = {'keys': 'ALL'}")
	opts := c.Table("ks", "t").Options
	want := map[string]string{
		"comment": "'a''b'", "caching": "{'keys': 'ALL', 'rows_per_partition': 'NONE'}",
		"bloom_filter_fp_chance": "0.01", "gc_grace_seconds": "864000", "extensions": "{}",
	}
	for k, v := range want {
		if opts[k] != v {
			t.Errorf("Options[%s] = %q, want %q", k, opts[k], v)
		}
	}
	if len(opts) != len(tableOptionOrder) {
		t.Errorf("%d options, want %d", len(opts), len(tableOptionOrder))
	}
}
