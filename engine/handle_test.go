package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/internal/lru"
)

// TestPreparedHandle: a prepared statement's handle (Prepared.Handle)
// runs its own plan, with no lookup of the text in the parse and plan
// caches, even when they are emptied; after ALTER TABLE it re-plans and
// sees the new column. A handle is used only by the engine and session
// keyspace it was prepared for: the same handle run by a session in
// another keyspace reads that keyspace's table, and another engine given
// it runs on its own catalog (both plan from the text).
func TestPreparedHandle(t *testing.T) {
	ctx := context.Background()
	e, other := twoKeyspacesTwoEngines(t)

	const q = "SELECT * FROM t WHERE k = ?"
	prep, err := e.Prepare(ctx, "a", q)
	if err != nil {
		t.Fatal(err)
	}
	if prep.Handle == nil || len(prep.Bind) != 1 || len(prep.Result) != 2 || len(prep.PKIndexes) != 1 {
		t.Fatalf("Prepare: %+v, want a handle, 1 bind marker, 2 result columns, 1 pk index", prep)
	}
	run := func(e *Engine, ks string) *bindings.Result {
		t.Helper()
		res, err := e.Execute(ctx, &bindings.Request{Keyspace: ks, Query: q, Handle: prep.Handle,
			Values: []bindings.Value{{Bytes: be32(1)}}})
		if err != nil {
			t.Fatalf("%s in %q: %v", q, ks, err)
		}
		return res
	}
	// row renders a one-row result as column=value pairs.
	row := func(res *bindings.Result) string {
		t.Helper()
		if len(res.Rows) != 1 {
			t.Fatalf("%d rows, want 1", len(res.Rows))
		}
		s := ""
		for i, c := range res.Columns {
			s += fmt.Sprintf("%s=%x ", c.Name, res.Rows[0][i])
		}
		return s
	}
	lookups := func(c interface{ Stats() lru.Stats }) uint64 { s := c.Stats(); return s.Hits + s.Misses }
	// Empty the text-keyed caches: the handle does not need them.
	e.plans.RemoveIf(func(planKey, *cachedPlan) bool { return true })
	plans0, parsed0 := lookups(e.plans), lookups(e.parsed)
	inA := row(run(e, "a"))
	for range 3 {
		if got := row(run(e, "a")); got != inA {
			t.Fatalf("keyspace a read %s, then %s", inA, got)
		}
	}
	if p, s := lookups(e.plans), lookups(e.parsed); p != plans0 || s != parsed0 || e.plans.Stats().Size != 0 {
		t.Fatalf("EXECUTE with the handle looked the text up: %d plan and %d parse lookups, %d plans cached",
			p-plans0, s-parsed0, e.plans.Stats().Size)
	}
	// Another session keyspace: planned from the text, b's table.
	if got := row(run(e, "b")); got == inA {
		t.Fatalf("keyspace b read keyspace a's row: %s", got)
	}
	// Another engine: its own plan, its row (a column w).
	if got := row(run(other, "a")); got == inA {
		t.Fatalf("the other engine read engine e's row: %s", got)
	}
	// A schema change: the handle's plan is stale, it re-plans once and
	// the new column shows.
	mustExecOn(t, e, "a", "ALTER TABLE t ADD x int")
	old := prep.Handle.(*preparedStmt).cp.Load()
	plans0, parsed0 = lookups(e.plans), lookups(e.parsed)
	if res := run(e, "a"); len(res.Columns) != 3 {
		t.Fatalf("after ALTER TABLE ADD: columns %v, want k, v, x", res.Columns)
	}
	replanned := prep.Handle.(*preparedStmt).cp.Load()
	if replanned == old || replanned.st != e.st.Load() {
		t.Fatal("the handle kept its stale plan")
	}
	run(e, "a")
	if prep.Handle.(*preparedStmt).cp.Load() != replanned {
		t.Fatal("the handle re-planned twice for one schema change")
	}
	if p, s := lookups(e.plans), lookups(e.parsed); p != plans0 || s != parsed0 {
		t.Fatalf("re-planning the handle looked the text up: %d plan and %d parse lookups", p-plans0, s-parsed0)
	}
}

// TestPreparedHandleInBatch: a prepared batch child runs its handle's
// plan without a text lookup, and re-plans after ALTER TABLE.
func TestPreparedHandleInBatch(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	h.exec("CREATE TABLE t (k int PRIMARY KEY, v int)")
	const q = "INSERT INTO t (k, v) VALUES (?, ?)"
	prep, err := h.e.Prepare(ctx, "ks", q)
	if err != nil {
		t.Fatal(err)
	}
	batch := func(k int32) {
		t.Helper()
		before := h.e.plans.Stats()
		_, err := h.e.Batch(ctx, &bindings.BatchRequest{Keyspace: "ks", Entries: []bindings.BatchEntry{
			{Query: q, Handle: prep.Handle, Values: []bindings.Value{{Bytes: be32(k)}, {Bytes: be32(k)}}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		if after := h.e.plans.Stats(); after.Hits+after.Misses != before.Hits+before.Misses || after.Size != 0 {
			t.Fatalf("a prepared batch child looked its text up: %+v then %+v", before, after)
		}
	}
	h.e.plans.RemoveIf(func(planKey, *cachedPlan) bool { return true })
	batch(1)
	h.exec("ALTER TABLE t ADD w int")
	h.e.plans.RemoveIf(func(planKey, *cachedPlan) bool { return true })
	batch(2)
	h.expectRows("SELECT k, v, w FROM t WHERE k = 2", "2 | 2 | null")
}
