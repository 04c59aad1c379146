package main

import (
	"reflect"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// TestRelayReprepareSeesAlteredTable: a statement prepared through the
// relay before ALTER TABLE … ADD is forgotten by Cassandra; the relay
// re-prepares it, sees that its result now has another column, and answers
// UNPREPARED instead of re-running it, so gocql (which skips result
// metadata on EXECUTE) prepares again and reads the new column instead of
// failing with "not enough columns to scan into".
func TestRelayReprepareSeesAlteredTable(t *testing.T) {
	addr := cassandraAddr(t)
	const ks = "relay_shape"
	direct := ddlSession(t, addr)
	mustExec(t, direct, "DROP KEYSPACE IF EXISTS "+ks)
	mustExec(t, direct, "CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	for _, tbl := range []string{"t3", "t4"} {
		mustExec(t, direct, "CREATE TABLE "+ks+"."+tbl+" (k int PRIMARY KEY, a int)")
		mustExec(t, direct, "INSERT INTO "+ks+"."+tbl+" (k, a) VALUES (1, 10)")
	}
	p := startServe(t, "--backend", "cassandra://"+addr)
	for _, proto := range []int{3, 4} {
		tbl := []string{3: "t3", 4: "t4"}[proto]
		s := gocqlSession(t, p.CQLAddr, proto, nil, func(c *gocql.ClusterConfig) { c.Timeout = 30 * time.Second })
		var k, a int
		if err := s.Query("SELECT * FROM "+ks+"."+tbl+" WHERE k = ?", 1).Scan(&k, &a); err != nil || a != 10 {
			t.Fatalf("v%d before ALTER: a=%d, %v", proto, a, err)
		}
		mustExec(t, direct, "ALTER TABLE "+ks+"."+tbl+" ADD b int")
		mustExec(t, direct, "UPDATE "+ks+"."+tbl+" SET b = 20 WHERE k = 1")
		var b int
		if err := s.Query("SELECT * FROM "+ks+"."+tbl+" WHERE k = ?", 1).Scan(&k, &a, &b); err != nil || b != 20 {
			t.Fatalf("v%d after ALTER TABLE ADD b: b=%d, %v", proto, b, err)
		}
	}
}

// TestRelaySystemSchemaIsCassandras: for a keyspace relayed to Cassandra,
// every system_schema table read through dohyo has exactly the rows read
// from Cassandra directly — UDTs, indexes (legacy and SAI) and dropped
// columns included, which dohyo's own catalog does not describe.
func TestRelaySystemSchemaIsCassandras(t *testing.T) {
	addr := cassandraAddr(t)
	const ks = "relay_sysschema"
	direct := ddlSession(t, addr)
	mustExec(t, direct, "DROP KEYSPACE IF EXISTS "+ks)
	for _, q := range []string{
		"CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TYPE " + ks + ".addr (street text, zip int)",
		"CREATE TYPE " + ks + ".person (name text, home frozen<addr>)",
		"CREATE TABLE " + ks + ".t (k int, c int, v text, p frozen<person>, tags set<text>, gone int, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC)",
		"CREATE INDEX t_v ON " + ks + ".t (v)",
		"CREATE INDEX t_tags ON " + ks + ".t (tags) USING 'sai'",
		"ALTER TABLE " + ks + ".t DROP gone",
	} {
		mustExec(t, direct, q)
	}
	p := startServe(t, "--backend", "cassandra://"+addr)
	s := gocqlSession(t, p.CQLAddr, 4, nil, func(c *gocql.ClusterConfig) { c.Timeout = 30 * time.Second })
	read := func(s *gocql.Session, table string) ([]map[string]any, error) {
		return s.Query("SELECT * FROM system_schema." + table + " WHERE keyspace_name = '" + ks + "'").Iter().SliceMap()
	}
	tables := []string{"keyspaces", "tables", "columns", "column_masks", "dropped_columns", "triggers",
		"views", "types", "functions", "aggregates", "indexes"}
	for _, table := range tables {
		want, err := read(direct, table)
		if err != nil {
			t.Fatalf("system_schema.%s from Cassandra: %v", table, err)
		}
		got, err := read(s, table)
		if err != nil {
			t.Fatalf("system_schema.%s through dohyo: %v", table, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("system_schema.%s through dohyo:\n%v\nCassandra has:\n%v", table, got, want)
		}
		switch table {
		case "types", "indexes", "dropped_columns":
			if len(want) == 0 {
				t.Errorf("system_schema.%s: Cassandra lists nothing for %s: the test set up nothing to compare", table, ks)
			}
		}
	}
	// DESCRIBE is answered by dohyo from its catalog of Cassandra's schema:
	// the types are there, described as Cassandra describes them.
	for _, q := range []string{"DESCRIBE TYPE " + ks + ".addr", "DESCRIBE TYPE " + ks + ".person"} {
		want, err := direct.Query(q).Iter().SliceMap()
		if err != nil {
			t.Fatalf("%s on Cassandra: %v", q, err)
		}
		got, err := s.Query(q).Iter().SliceMap()
		if err != nil {
			t.Fatalf("%s through dohyo: %v", q, err)
		}
		if len(want) != 1 || !reflect.DeepEqual(got, want) {
			t.Errorf("%s through dohyo:\n%v\nCassandra answers:\n%v", q, got, want)
		}
	}
	// A type created after dohyo started shows up too (the relay's schema
	// event refreshes what dohyo lists).
	mustExec(t, direct, "CREATE TYPE "+ks+".later (x int)")
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		if err := s.Query("SELECT COUNT(*) FROM system_schema.types WHERE keyspace_name = ? AND type_name = 'later'", ks).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a type created on Cassandra never appeared in system_schema.types through dohyo")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// ddlSession is a gocql session straight to Cassandra that waits long
// enough for DDL on a busy shared Cassandra (longer than directCassandra).
func ddlSession(t *testing.T, addr string) *gocql.Session {
	t.Helper()
	return gocqlSession(t, addr, 0, nil, func(c *gocql.ClusterConfig) { c.Timeout = 2 * time.Minute })
}
