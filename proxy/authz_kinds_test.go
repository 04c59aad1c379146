package proxy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dohyo/dohyo/cql"
)

// TestRequiredPermissions pins what each statement form needs, as
// Cassandra's authorize methods say (resource and permission).
func TestRequiredPermissions(t *testing.T) {
	cases := map[string]string{
		"SELECT * FROM ks.t":                            "SELECT <table ks.t>",
		"SELECT * FROM t":                               "SELECT <table s.t>",
		"INSERT INTO ks.t (k) VALUES (1)":               "MODIFY <table ks.t>",
		"INSERT INTO ks.t (k) VALUES (1) IF NOT EXISTS": "MODIFY <table ks.t>, SELECT <table ks.t>",
		"UPDATE t SET v = 1 WHERE k = 1 IF v = 2":       "MODIFY <table s.t>, SELECT <table s.t>",
		"DELETE FROM ks.t WHERE k = 1":                  "MODIFY <table ks.t>",
		"TRUNCATE t":                                    "MODIFY <table s.t>",
		"BEGIN BATCH INSERT INTO a.t (k) VALUES (1); DELETE FROM b.u WHERE k = 1; APPLY BATCH":      "MODIFY <table a.t>, MODIFY <table b.u>",
		"CREATE KEYSPACE k WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}": "CREATE <all keyspaces>",
		"ALTER KEYSPACE k WITH durable_writes = false":                                              "ALTER <keyspace k>",
		"DROP KEYSPACE k":                    "DROP <keyspace k>",
		"CREATE TABLE t (k int PRIMARY KEY)": "CREATE <keyspace s>",
		"ALTER TABLE ks.t ADD v int":         "ALTER <table ks.t>",
		"DROP TABLE ks.t":                    "DROP <table ks.t>",
		"CREATE MATERIALIZED VIEW ks.v AS SELECT * FROM b.base WHERE k IS NOT NULL PRIMARY KEY (k)": "ALTER <table b.base>",
		"DROP MATERIALIZED VIEW ks.v": "DROP <table ks.v>",
		"CREATE INDEX ON ks.t (v)":    "ALTER <table ks.t>",
		"DROP INDEX ks.i":             "ALTER <keyspace ks>",
		"CREATE TYPE ks.a (x int)":    "CREATE <keyspace ks>",
		"DROP TYPE a":                 "DROP <keyspace s>",
		"DROP FUNCTION ks.f":          "DROP <keyspace ks>",
		"USE ks":                      "",
		"DESCRIBE TABLES":             "",
	}
	for q, want := range cases {
		p, err := cql.Parse(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var got []string
		for _, c := range requiredPermissions(nil, p.Stmt, "s") {
			got = append(got, fmt.Sprintf("%v %v", c.perm, c.res))
		}
		if g := strings.Join(got, ", "); g != want {
			t.Errorf("%s: needs %q, want %q", q, g, want)
		}
	}
}
