package mirror_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/mirror"
)

// backfillDDL is a keyspace with clustering, static, TTL'd, collection and
// counter columns, created on both sides.
var backfillDDL = []string{
	"CREATE KEYSPACE bf WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
	"CREATE TABLE bf.t (k int, c int, s text STATIC, v text, w int, l list<int>, PRIMARY KEY (k, c))",
	"CREATE TABLE bf.kv (k text PRIMARY KEY, v text)",
	"CREATE TABLE bf.n (k int PRIMARY KEY, n counter)",
}

func exec(t *testing.T, b bindings.Backend, q string, vals ...bindings.Value) {
	t.Helper()
	if _, err := b.Execute(context.Background(), &bindings.Request{Keyspace: "bf", Query: q, Values: vals, Consistency: bindings.One}); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func withDDL(t *testing.T) bindings.Backend {
	t.Helper()
	b := open(t)
	for _, q := range backfillDDL {
		exec(t, b, q)
	}
	return b
}

// TestBackfillThenCompare: rows written to the source before a mirror
// existed (different write times per cell, TTLs, statics, a key-only row,
// a collection) are copied by Backfill while live mirrored writes of the
// same rows go on; afterwards Compare finds the keyspaces equal, write
// times included, and the counter table is reported as not backfilled.
func TestBackfillThenCompare(t *testing.T) {
	ctx := t.Context()
	src, dst := withDDL(t), withDDL(t)
	for k := 0; k < 300; k++ {
		exec(t, src, fmt.Sprintf("INSERT INTO bf.t (k, c, v, w) VALUES (%d, 1, 'old', %d) USING TIMESTAMP %d", k, k, 1000+k))
		exec(t, src, fmt.Sprintf("UPDATE bf.t USING TIMESTAMP %d SET w = %d WHERE k = %d AND c = 1", 5000+k, -k, k))
		exec(t, src, fmt.Sprintf("UPDATE bf.t USING TIMESTAMP 7 SET s = 'static %d' WHERE k = %d", k, k))
		exec(t, src, fmt.Sprintf("INSERT INTO bf.t (k, c, v) VALUES (%d, 2, 'ttl') USING TTL 3600", k))
		exec(t, src, fmt.Sprintf("INSERT INTO bf.t (k, c) VALUES (%d, 3)", k))
		exec(t, src, fmt.Sprintf("INSERT INTO bf.kv (k, v) VALUES ('key%d', 'v')", k))
		exec(t, src, fmt.Sprintf("UPDATE bf.n SET n = n + 1 WHERE k = %d", k))
	}
	exec(t, src, "UPDATE bf.t SET l = [1, 2, 3] WHERE k = 0 AND c = 1")
	exec(t, src, "UPDATE bf.t USING TIMESTAMP 9 SET s = 'partition without rows' WHERE k = 1000")

	if res, err := mirror.Compare(ctx, src, dst, mirror.CompareOptions{Keyspace: "bf", Table: "t"}); err != nil || res.Equal || res.Tables[0].Missing != 901 {
		t.Fatalf("compare before backfill: %v %+v", err, res)
	}
	// Live mirrored writes during the backfill: both sides get the same
	// write with the same timestamp, newer than the old cells.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for k := 0; k < 300; k += 3 {
			q := fmt.Sprintf("UPDATE bf.t USING TIMESTAMP %d SET v = 'live' WHERE k = %d AND c = 1", 1_000_000+k, k)
			exec(t, src, q)
			exec(t, dst, q)
			q = fmt.Sprintf("DELETE FROM bf.kv USING TIMESTAMP %d WHERE k = 'key%d'", 9_000_000_000_000_000+k, k)
			exec(t, src, q)
			exec(t, dst, q)
		}
	}()
	st, err := mirror.Backfill(ctx, src, dst, mirror.BackfillOptions{Keyspace: "bf", Workers: 4})
	wg.Wait()
	if err != nil || st.Failed != 0 {
		t.Fatalf("backfill: %v %+v", err, st)
	}
	if len(st.Notes) != 1 || st.Tables[0].Table != "kv" || st.Tables[1].Skipped != "counter table" {
		t.Fatalf("backfill %+v: want the counter table n skipped with a note", st)
	}
	res, err := mirror.Compare(ctx, src, dst, mirror.CompareOptions{Keyspace: "bf", Table: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Equal || res.Tables[0].SourceRows != 901 || res.Tables[0].Equal != 901 {
		t.Fatalf("compare after backfill: %+v", res)
	}
	res, err = mirror.Compare(ctx, src, dst, mirror.CompareOptions{Keyspace: "bf", Table: "kv"})
	if err != nil || !res.Equal || res.Tables[0].SourceRows != 200 {
		t.Fatalf("compare kv after backfill (100 deleted live): %v %+v", err, res)
	}
	// The counter table was not copied: Compare says so.
	res, err = mirror.Compare(ctx, src, dst, mirror.CompareOptions{Keyspace: "bf"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Equal || res.Tables[0].Table != "kv" || res.Tables[1].Missing != 300 || res.Tables[2].Equal != 901 {
		t.Fatalf("compare of the whole keyspace: %+v", res)
	}
}

// TestCompareFindsDifferences: a changed value, a changed write time, a
// missing and an extra row are each counted and shown as an example.
func TestCompareFindsDifferences(t *testing.T) {
	ctx := t.Context()
	src, dst := withDDL(t), withDDL(t)
	for _, b := range []bindings.Backend{src, dst} {
		for k := 0; k < 10; k++ {
			exec(t, b, fmt.Sprintf("INSERT INTO bf.kv (k, v) VALUES ('key%d', 'v') USING TIMESTAMP 100", k))
		}
	}
	exec(t, dst, "UPDATE bf.kv USING TIMESTAMP 150 SET v = 'changed' WHERE k = 'key1'")
	exec(t, dst, "UPDATE bf.kv USING TIMESTAMP 101 SET v = 'v' WHERE k = 'key2'")
	exec(t, dst, "DELETE FROM bf.kv USING TIMESTAMP 200 WHERE k = 'key3'")
	exec(t, dst, "INSERT INTO bf.kv (k, v) VALUES ('extra', 'v')")
	res, err := mirror.Compare(ctx, src, dst, mirror.CompareOptions{Keyspace: "bf", Table: "kv", Examples: 3})
	if err != nil {
		t.Fatal(err)
	}
	ct := res.Tables[0]
	if res.Equal || ct.SourceRows != 10 || ct.TargetRows != 10 || ct.Equal != 7 || ct.Different != 2 || ct.Missing != 1 || ct.Extra != 1 {
		t.Fatalf("compare: %+v", res)
	}
	if len(res.Examples) != 3 {
		t.Fatalf("want 3 examples (the bound), got %+v", res.Examples)
	}
	res, err = mirror.Compare(ctx, src, dst, mirror.CompareOptions{Keyspace: "bf", Table: "kv"})
	if err != nil || len(res.Examples) != 4 {
		t.Fatalf("compare: %v %+v", err, res.Examples)
	}
	kinds := map[string]int{}
	for _, d := range res.Examples {
		kinds[d.Kind+" "+d.Column]++
	}
	if kinds["different v (value)"] != 1 || kinds["different v (write time)"] != 1 || kinds["missing "] != 1 || kinds["extra "] != 1 {
		t.Fatalf("examples %+v", res.Examples)
	}
	if _, err := mirror.Compare(ctx, src, dst, mirror.CompareOptions{Keyspace: "nope"}); err == nil {
		t.Fatal("compare of a missing keyspace: want an error")
	}
}

// TestBackfillProgressAndDone: Progress reports every page's rows and
// each table once complete; a table in Done is not copied again.
func TestBackfillProgressAndDone(t *testing.T) {
	src, dst := withDDL(t), withDDL(t)
	for k := 0; k < 1200; k++ {
		exec(t, src, fmt.Sprintf("INSERT INTO bf.kv (k, v) VALUES ('key%d', 'v')", k))
	}
	exec(t, src, "INSERT INTO bf.t (k, c, v) VALUES (1, 1, 'x')")
	var calls []string
	st, err := mirror.Backfill(t.Context(), src, dst, mirror.BackfillOptions{Keyspace: "bf", Done: map[string]bool{"t": true},
		Progress: func(table string, rows int64, done bool) {
			calls = append(calls, fmt.Sprint(table, " ", rows, " ", done))
		}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"kv 500 false", "kv 1000 false", "kv 1200 true"}
	if !slices.Equal(calls, want) {
		t.Errorf("progress %q, want %q", calls, want)
	}
	for _, ts := range st.Tables {
		if ts.Table == "t" && (ts.Rows != 0 || ts.Skipped != "copied by an earlier run") {
			t.Errorf("table t in Done: %+v", ts)
		}
	}
	if res, err := mirror.Compare(t.Context(), src, dst, mirror.CompareOptions{Keyspace: "bf", Table: "kv"}); err != nil || !res.Equal {
		t.Errorf("kv after the backfill: %v %+v", err, res)
	}
}
