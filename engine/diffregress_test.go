package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"github.com/dohyo/dohyo/bindings"
)

// Regressions found by the differential test (bindings/difftest) against
// Cassandra 5.0.9; each case was checked on a real node.

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

// TestGroupByPaging: GROUP BY results are paged by group, at most page
// size groups per page, LIMIT counting groups across pages.
func TestGroupByPaging(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (p int, c int, v int, PRIMARY KEY (p, c))")
	for p := range 7 {
		for c := range 2 {
			h.exec("INSERT INTO t (p, c, v) VALUES (?, ?, 1)", int32(p), int32(c))
		}
	}
	for _, c := range []struct {
		q     string
		size  int32
		pages []int
	}{
		{"SELECT p, COUNT(*) FROM t GROUP BY p", 3, []int{3, 3, 1}},
		{"SELECT p, COUNT(*) FROM t GROUP BY p LIMIT 5", 4, []int{4, 1}},
		{"SELECT p, c, COUNT(*) FROM t WHERE p = 1 GROUP BY p, c", 1, []int{1, 1}},
		{"SELECT p, COUNT(*) FROM t GROUP BY p", 0, []int{7}},
	} {
		req := &bindings.Request{Keyspace: h.ks, Query: c.q, PageSize: c.size}
		var got []int
		seen := map[string]bool{}
		for len(got) < 20 {
			res, err := h.e.Execute(context.Background(), req)
			if err != nil {
				t.Fatalf("%s: %v", c.q, err)
			}
			got = append(got, len(res.Rows))
			for _, r := range res.Rows {
				k := string(r[0]) + string(r[1])
				if seen[k] {
					t.Errorf("%s: group %x returned twice", c.q, k)
				}
				seen[k] = true
			}
			if res.PagingState == nil {
				break
			}
			r := *req
			r.PagingState = res.PagingState
			req = &r
		}
		if fmt.Sprint(got) != fmt.Sprint(c.pages) {
			t.Errorf("%s (page size %d): pages %v, want %v", c.q, c.size, got, c.pages)
		}
	}
}

// TestTokenBindMarkers: markers inside token(...) take the partition key
// column types.
func TestTokenBindMarkers(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (a int, b text, v int, PRIMARY KEY ((a, b)))")
	p, err := h.e.Prepare(context.Background(), h.ks, "SELECT * FROM t WHERE token(a, b) > token(?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Bind) != 2 || p.Bind[0].Type.String() != "int" || p.Bind[1].Type.String() != "text" || p.Bind[0].Name != "arg0(system.token)" {
		t.Errorf("bind specs: got %+v", p.Bind)
	}
	h.exec("INSERT INTO t (a, b, v) VALUES (1, 'x', 1)")
	if res := h.exec("SELECT v FROM t WHERE token(a, b) >= token(?, ?)", int32(1), "x"); len(res.Rows) == 0 {
		t.Error("token(?, ?) >= its own token selected nothing")
	}
}

// TestFilteringStaticOnlyPartition: a filter on a static column still
// returns the row of a partition that has only static content.
func TestFilteringStaticOnlyPartition(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE s (k int, c int, st list<int> static, v int, PRIMARY KEY (k, c))")
	h.exec("INSERT INTO s (k, c, st, v) VALUES (1, 1, [3], 1)")
	h.exec("INSERT INTO s (k, st) VALUES (2, [3])")
	h.exec("INSERT INTO s (k, c, st) VALUES (3, 1, [4])")
	if n := len(h.exec("SELECT * FROM s WHERE st CONTAINS 3 ALLOW FILTERING").Rows); n != 2 {
		t.Errorf("static filter: got %d rows, want 2 (k=1 and static-only k=2)", n)
	}
	if n := len(h.exec("SELECT * FROM s WHERE st CONTAINS 3 AND v = 1 ALLOW FILTERING").Rows); n != 1 {
		t.Errorf("static and regular filter: got %d rows, want 1", n)
	}
}

// TestAggregateQuirks: avg() of bigint is exact (Cassandra switches to
// BigInteger on overflow) while sum() wraps; min/max of a timeuuid are
// typed blob.
func TestAggregateQuirks(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE a (k int, c int, b bigint, u timeuuid, PRIMARY KEY (k, c))")
	for c := range 3 {
		h.exec("INSERT INTO a (k, c, b, u) VALUES (1, ?, 9223372036854775807, 50554d6e-29bb-11e5-b345-feff819cdc9f)", int32(c))
	}
	res := h.exec("SELECT SUM(b), AVG(b), MIN(u), MAX(u) FROM a WHERE k = 1")
	row := res.Rows[0]
	if got := int64(binary.BigEndian.Uint64(row[0])); got != 9223372036854775805 {
		t.Errorf("sum: got %d, want the wrapped 9223372036854775805", got)
	}
	if got := int64(binary.BigEndian.Uint64(row[1])); got != 9223372036854775807 {
		t.Errorf("avg: got %d, want 9223372036854775807", got)
	}
	if got := res.Columns[2].Type.String(); got != "blob" || len(row[2]) != 16 {
		t.Errorf("min(timeuuid): got type %s, %x", got, row[2])
	}
}
