package proxy

import (
	"testing"

	"github.com/dohyo/dohyo/cql"
)

// TestStatementIdempotent: which statements the relay may send twice.
func TestStatementIdempotent(t *testing.T) {
	for _, c := range []struct {
		q    string
		ts   bool // the request carries a client timestamp
		want bool
	}{
		{"SELECT v FROM ks.t WHERE k = ?", false, true},
		{"INSERT INTO ks.t (k, v) VALUES (?, ?)", true, true},
		{"INSERT INTO ks.t (k, v) VALUES (?, ?)", false, false},
		{"INSERT INTO ks.t (k, v) VALUES (?, ?) USING TIMESTAMP 5", false, true},
		{"INSERT INTO ks.t (k, v) VALUES (?, (int) ?)", true, true},
		{"INSERT INTO ks.t (k, v) VALUES (?, ?) IF NOT EXISTS", true, false},
		{"INSERT INTO ks.t (k, u) VALUES (?, now())", true, false},
		{"INSERT INTO ks.t (k, l) VALUES (?, [uuid()])", true, false},
		{"UPDATE ks.t SET v = ? WHERE k = ?", true, true},
		{"UPDATE ks.t SET v = ? WHERE k = ? IF v = 1", true, false},
		{"UPDATE ks.t SET v = ? WHERE k = ? IF EXISTS", true, false},
		{"UPDATE ks.c SET n = n + 1 WHERE k = ?", true, false},
		{"UPDATE ks.t SET l = l + [1] WHERE k = ?", true, false},
		{"UPDATE ks.t SET l = [1] + l WHERE k = ?", true, false},
		{"UPDATE ks.t SET l[0] = 1 WHERE k = ?", true, true},
		{"DELETE FROM ks.t WHERE k = ?", true, true},
		{"DELETE FROM ks.t WHERE k = ?", false, false},
		{"DELETE l[0] FROM ks.t WHERE k = ?", true, false},
		{"DELETE FROM ks.t WHERE k = ? IF EXISTS", true, false},
		{"BEGIN BATCH INSERT INTO ks.t (k, v) VALUES (1, 1); DELETE FROM ks.t WHERE k = 2; APPLY BATCH", true, true},
		{"BEGIN BATCH INSERT INTO ks.t (k, v) VALUES (1, 1) IF NOT EXISTS; APPLY BATCH", true, false},
		{"BEGIN BATCH USING TIMESTAMP 3 INSERT INTO ks.t (k, v) VALUES (1, 1); APPLY BATCH", false, true},
		{"BEGIN COUNTER BATCH UPDATE ks.c SET n = n + 1 WHERE k = 1; APPLY BATCH", true, false},
		{"CREATE TABLE ks.x (k int PRIMARY KEY)", true, false},
		{"TRUNCATE ks.t", true, false},
	} {
		p, err := cql.Parse(c.q)
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		if got := StatementIdempotent(p.Stmt, c.ts); got != c.want {
			t.Errorf("%s (client timestamp %v): idempotent %v, want %v", c.q, c.ts, got, c.want)
		}
	}
}
