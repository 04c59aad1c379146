package main

import (
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
	dropCassandraKeyspaces(t, addr, ks)
	direct := directCassandra(t, addr)
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
