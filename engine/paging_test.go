package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dohyo/dohyo/bindings"
)

// pages runs q with a page size and returns each page's rows, following
// paging states until the end.
func (h *harness) pages(q string, size int32) [][]string {
	h.t.Helper()
	var out [][]string
	var state []byte
	for i := 0; i < 1000; i++ {
		res, err := h.e.Execute(context.Background(), &bindings.Request{Keyspace: h.ks, Query: q, PageSize: size, PagingState: state})
		if err != nil {
			h.t.Fatalf("%s (page %d): %v", q, i, err)
		}
		if len(res.Rows) > int(size) {
			h.t.Fatalf("%s: page %d has %d rows, page size %d", q, i, len(res.Rows), size)
		}
		out = append(out, formatRows(res))
		if res.PagingState == nil {
			return out
		}
		state = res.PagingState
	}
	h.t.Fatalf("%s: paging does not end", q)
	return nil
}

func flatten(pages [][]string) []string {
	var out []string
	for _, p := range pages {
		out = append(out, p...)
	}
	return out
}

func TestPagingMatchesUnpaged(t *testing.T) {
	for _, salt := range []int{0, 4} {
		t.Run(fmt.Sprintf("salt%d", salt), func(t *testing.T) {
			h := newHarnessOpts(t, Options{Salt: salt})
			h.exec("CREATE TABLE t (k int, c int, s int static, v int, PRIMARY KEY (k, c))")
			for k := 0; k < 7; k++ {
				for c := 0; c < k; c++ {
					h.exec("INSERT INTO t (k, c, v) VALUES (?, ?, ?)", k, c, k*10+c)
				}
			}
			h.exec("INSERT INTO t (k, s) VALUES (0, 100)") // static-only partition
			h.exec("INSERT INTO t (k, s) VALUES (3, 300)")
			if n := len(h.rows("SELECT * FROM t")); n != 22 {
				t.Fatalf("SELECT * returned %d rows, want 22 (21 rows and a static-only partition)", n)
			}
			queries := []string{
				"SELECT * FROM t",
				"SELECT k, c FROM t LIMIT 8",
				"SELECT * FROM t PER PARTITION LIMIT 2",
				"SELECT * FROM t WHERE k = 5",
				"SELECT * FROM t WHERE k = 5 ORDER BY c DESC",
				"SELECT * FROM t WHERE k = 5 AND c > 1 AND c <= 3",
				"SELECT * FROM t WHERE k IN (6, 0, 4, 2)",
				"SELECT * FROM t WHERE k IN (6, 4) AND c IN (3, 0, 1)",
				"SELECT * FROM t WHERE k IN (6, 4, 5) LIMIT 7",
				"SELECT DISTINCT k, s FROM t",
				"SELECT * FROM t WHERE v > 30 ALLOW FILTERING",
				"SELECT k, c FROM t WHERE c = 2 ALLOW FILTERING",
			}
			for _, q := range queries {
				want := h.rows(q)
				for _, size := range []int32{1, 2, 3, 5, 100} {
					got := flatten(h.pages(q, size))
					if strings.Join(got, "\n") != strings.Join(want, "\n") {
						t.Errorf("%s page size %d:\ngot  %q\nwant %q", q, size, got, want)
					}
				}
			}
		})
	}
}

func TestPagingStateRules(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (k int, c int, PRIMARY KEY (k, c))")
	for c := 0; c < 6; c++ {
		h.exec("INSERT INTO t (k, c) VALUES (1, ?)", c)
	}
	h.exec("CREATE TABLE u (k int PRIMARY KEY, v int)")
	h.exec("INSERT INTO u (k, v) VALUES (1, 1)")
	cases := []struct {
		q     string
		size  int32
		pages []int
	}{
		// A full page gets a paging state even when nothing follows, as
		// in Cassandra; the next page is then empty.
		{"SELECT * FROM t WHERE k = 1", 3, []int{3, 3, 0}},
		{"SELECT * FROM t WHERE k = 1", 4, []int{4, 2}},
		// LIMIT reached exactly: no paging state.
		{"SELECT * FROM t WHERE k = 1 LIMIT 3", 3, []int{3}},
		{"SELECT * FROM t WHERE k = 1 LIMIT 5", 2, []int{2, 2, 1}},
		// A single-partition query without clustering is exhausted after
		// its row.
		{"SELECT * FROM u WHERE k = 1", 1, []int{1}},
		{"SELECT COUNT(*) FROM t", 2, []int{1}},
	}
	for _, c := range cases {
		pages := h.pages(c.q, c.size)
		var got []int
		for _, p := range pages {
			got = append(got, len(p))
		}
		if fmt.Sprint(got) != fmt.Sprint(c.pages) {
			t.Errorf("%s page size %d: page lengths %v, want %v", c.q, c.size, got, c.pages)
		}
	}
	// Garbage paging states are a protocol error, never a panic.
	_, err := h.e.Execute(context.Background(), &bindings.Request{Keyspace: "ks", Query: "SELECT * FROM t", PageSize: 2, PagingState: []byte{9, 9}})
	if be := bindings.AsError(err); be == nil || be.Code != bindings.CodeProtocolError {
		t.Errorf("bad paging state: got %v, want ProtocolError", err)
	}
}

func TestTokenRestrictions(t *testing.T) {
	h := newHarnessOpts(t, Options{Salt: 3})
	h.exec("CREATE TABLE t (k int PRIMARY KEY, v int)")
	for k := 0; k < 20; k++ {
		h.exec("INSERT INTO t (k, v) VALUES (?, ?)", k, k)
	}
	all := h.rows("SELECT token(k), k FROM t")
	if len(all) != 20 {
		t.Fatalf("full scan: %d rows", len(all))
	}
	// Rows come back in token order.
	var prev int64
	for i, r := range all {
		var tok int64
		fmt.Sscan(strings.Split(r, " | ")[0], &tok)
		if i > 0 && tok < prev {
			t.Fatalf("row %d token %d after %d", i, tok, prev)
		}
		prev = tok
	}
	mid := strings.Split(all[10], " | ")[0]
	got := h.rows("SELECT token(k), k FROM t WHERE token(k) > " + mid)
	if strings.Join(got, "\n") != strings.Join(all[11:], "\n") {
		t.Errorf("token(k) > %s:\ngot  %q\nwant %q", mid, got, all[11:])
	}
	got = h.rows("SELECT token(k), k FROM t WHERE token(k) <= " + mid)
	if strings.Join(got, "\n") != strings.Join(all[:11], "\n") {
		t.Errorf("token(k) <= %s:\ngot  %q\nwant %q", mid, got, all[:11])
	}
	// With the partition key listed, the token restriction filters the
	// listed partitions, in key order (Cassandra 5.0 accepts both).
	var in, want []string
	for k := 19; k >= 0; k-- {
		in = append(in, fmt.Sprint(k))
	}
	for k := 0; k < 20; k++ {
		for _, r := range all[11:] {
			if strings.Split(r, " | ")[1] == fmt.Sprint(k) {
				want = append(want, fmt.Sprint(k))
			}
		}
	}
	h.expectRows("SELECT k FROM t WHERE token(k) > "+mid+" AND k IN ("+strings.Join(in, ", ")+")", want...)
}

func TestScanSkipsLongPartitions(t *testing.T) {
	for _, salt := range []int{0, 3} {
		h := newHarnessOpts(t, Options{Salt: salt})
		h.exec("CREATE TABLE t (k int, c int, s int static, PRIMARY KEY (k, c))")
		want := 0
		for k := 0; k < 6; k++ {
			n := 3
			if k%2 == 0 {
				n = 150 // long partitions: the scan seeks past them
			}
			for c := 0; c < n; c++ {
				h.exec("INSERT INTO t (k, c) VALUES (?, ?)", k, c)
			}
			want += min(n, 2)
		}
		if got := len(h.rows("SELECT k, c FROM t PER PARTITION LIMIT 2")); got != want {
			t.Errorf("salt %d: PER PARTITION LIMIT 2 returned %d rows, want %d", salt, got, want)
		}
		if got := len(h.rows("SELECT DISTINCT k FROM t")); got != 6 {
			t.Errorf("salt %d: DISTINCT returned %d partitions, want 6", salt, got)
		}
		for _, q := range []string{"SELECT DISTINCT k FROM t", "SELECT k, c FROM t PER PARTITION LIMIT 2", "SELECT k, c FROM t"} {
			want := h.rows(q)
			got := flatten(h.pages(q, 4))
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("salt %d: %s paged differs:\ngot  %q\nwant %q", salt, q, got, want)
			}
		}
	}
}
