package widecolumn

import (
	"context"
	"errors"
	"testing"

	"github.com/dohyo/dohyo/bindings"
)

// TestPagedPostOrdering pins Cassandra 5.0's rule for paged queries with IN
// on the partition key and ORDER BY (checked against a real node by the
// differential test): refused unless the query selects nothing whatever
// the data; a one-value IN is an equality; LIMIT does not matter;
// aggregates are always refused.
func TestPagedPostOrdering(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (k int, c int, v int, PRIMARY KEY (k, c))")
	h.exec("INSERT INTO t (k, c, v) VALUES (1, 1, 1)")
	h.exec("INSERT INTO t (k, c, v) VALUES (2, 2, 2)")
	cases := []struct {
		q       string
		refused bool
		rows    int
	}{
		{"SELECT * FROM t WHERE k IN (1) ORDER BY c DESC", false, 1},
		{"SELECT * FROM t WHERE k IN (1, 1) ORDER BY c DESC", true, 0},
		{"SELECT * FROM t WHERE k IN (1, 2) ORDER BY c DESC", true, 0},
		{"SELECT * FROM t WHERE k IN (1, 2) ORDER BY c DESC LIMIT 1", true, 0},
		{"SELECT * FROM t WHERE k IN (1, 2) AND c > 5 AND c < 2 ORDER BY c DESC", false, 0},
		{"SELECT * FROM t WHERE k IN (1, 2) AND c > 5 AND c < 6 ORDER BY c DESC", true, 0},
		{"SELECT * FROM t WHERE k IN (1, 2) AND c IN () ORDER BY c DESC", false, 0},
		{"SELECT * FROM t WHERE k IN () ORDER BY c DESC", false, 0},
		{"SELECT COUNT(*) FROM t WHERE k IN (1, 2) ORDER BY c DESC", true, 0},
		{"SELECT * FROM t WHERE k IN (1, 2)", false, 2},
	}
	for _, c := range cases {
		res, err := h.e.Execute(context.Background(), &bindings.Request{Keyspace: h.ks, Query: c.q, PageSize: 5})
		switch {
		case c.refused && !errors.Is(err, bindings.ErrInvalid):
			t.Errorf("%s: got %v, want Invalid", c.q, err)
		case !c.refused && err != nil:
			t.Errorf("%s: got %v", c.q, err)
		case !c.refused && len(res.Rows) != c.rows:
			t.Errorf("%s: got %d rows, want %d", c.q, len(res.Rows), c.rows)
		}
	}
}

// TestPostOrderingNulls: rows of static-only partitions (null clustering
// values) come first in the declared clustering order when IN partitions
// are sorted, last in the reversed order (Cassandra's ColumnComparator).
func TestPostOrderingNulls(t *testing.T) {
	h := newHarness(t)
	for _, tbl := range []string{"a", "d"} {
		with := ""
		if tbl == "d" {
			with = " WITH CLUSTERING ORDER BY (c DESC)"
		}
		h.exec("CREATE TABLE " + tbl + " (k int, c int, s int static, PRIMARY KEY (k, c))" + with)
		h.exec("INSERT INTO " + tbl + " (k, c) VALUES (1, 1)")
		h.exec("INSERT INTO " + tbl + " (k, s) VALUES (2, 2)")
		h.exec("INSERT INTO " + tbl + " (k, c) VALUES (3, 3)")
	}
	cases := []struct{ q, want string }{
		{"SELECT k FROM a WHERE k IN (1, 2, 3) ORDER BY c ASC", "2 1 3"},
		{"SELECT k FROM a WHERE k IN (1, 2, 3) ORDER BY c DESC", "3 1 2"},
		{"SELECT k FROM d WHERE k IN (1, 2, 3) ORDER BY c ASC", "1 3 2"},
		{"SELECT k FROM d WHERE k IN (1, 2, 3) ORDER BY c DESC", "2 3 1"},
	}
	for _, c := range cases {
		res := h.exec(c.q)
		got := ""
		for i, r := range res.Rows {
			if i > 0 {
				got += " "
			}
			got += string(rune('0' + r[0][3]))
		}
		if got != c.want {
			t.Errorf("%s: got keys %s, want %s", c.q, got, c.want)
		}
	}
}
