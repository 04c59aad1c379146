package cql

import "testing"

func TestKeyspaceOf(t *testing.T) {
	for q, want := range map[string]struct {
		ks string
		ok bool
	}{
		"SELECT * FROM ks.t":           {"ks", true},
		"INSERT INTO t (a) VALUES (1)": {"", true},
		"CREATE KEYSPACE k2 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}": {"k2", true},
		"USE k3":                   {"k3", true},
		"DROP TYPE k4.ty":          {"k4", true},
		"CREATE INDEX ON k5.t (v)": {"k5", true},
		"BEGIN BATCH INSERT INTO k6.t (a) VALUES (1) APPLY BATCH": {"", false},
		"CREATE ROLE r": {"", false},
	} {
		p, err := Parse(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if ks, ok := KeyspaceOf(p.Stmt); ks != want.ks || ok != want.ok {
			t.Errorf("KeyspaceOf(%q) = %q, %v; want %q, %v", q, ks, ok, want.ks, want.ok)
		}
	}
}
