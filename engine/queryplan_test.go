package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// TestQueryPlansPerKeyspace: the plan of an unprepared statement (kept
// by session keyspace and text, planFor) is used only for the session
// keyspace and schema it was built for. The same SELECT of an unqualified
// table, run by sessions in two keyspaces, reads each keyspace's table;
// after ALTER TABLE it sees the new column; a second engine given the same
// Parsed runs on its own catalog.
func TestQueryPlansPerKeyspace(t *testing.T) {
	ctx := context.Background()
	e, other := twoKeyspacesTwoEngines(t)

	const q = "SELECT * FROM t WHERE k = 1"
	p, err := cql.Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	run := func(e *Engine, ks string, p *cql.Parsed) *bindings.Result {
		t.Helper()
		res, err := e.Execute(ctx, &bindings.Request{Keyspace: ks, Query: q, Parsed: p})
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
	inA, inB := row(run(e, "a", p)), row(run(e, "b", p))
	if inA == inB {
		t.Fatalf("keyspaces a and b read the same row: %s", inA)
	}
	for range 3 { // alternating sessions keep reading their own keyspace
		if got := row(run(e, "b", p)); got != inB {
			t.Fatalf("keyspace b read %s, want %s", got, inB)
		}
		if got := row(run(e, "a", p)); got != inA {
			t.Fatalf("keyspace a read %s, want %s", got, inA)
		}
	}
	// The other engine's table a.t has a column w: its own plan, its row.
	if got := row(run(other, "a", p)); got == inA {
		t.Fatalf("the other engine read engine e's row: %s", got)
	}
	// A schema change: the kept plan is stale, the new column shows.
	mustExecOn(t, e, "a", "ALTER TABLE t ADD x int")
	if res := run(e, "a", p); len(res.Columns) != 3 {
		t.Fatalf("after ALTER TABLE ADD: columns %v, want k, v, x", res.Columns)
	}
}

// twoKeyspacesTwoEngines returns an engine with keyspaces a and b, each
// with table t (k, v) holding row 1 ('in a', 'in b'), and another engine
// whose keyspace a has a table t of another shape (k, v, w) holding
// (1, 'other engine', 7): a plan or handle used for the wrong keyspace or
// engine reads the wrong row.
func twoKeyspacesTwoEngines(t *testing.T) (e, other *Engine) {
	t.Helper()
	e = newSharedEngines(t, 1, 0)[0]
	other, err := New(context.Background(), newMemKV(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	for _, ks := range []string{"a", "b"} {
		mustExecOn(t, e, "", fmt.Sprintf(sharedKSDDL, ks))
		mustExecOn(t, e, ks, "CREATE TABLE t (k int PRIMARY KEY, v text)")
		mustExecOn(t, e, ks, "INSERT INTO t (k, v) VALUES (1, 'in "+ks+"')")
	}
	mustExecOn(t, other, "", fmt.Sprintf(sharedKSDDL, "a"))
	mustExecOn(t, other, "a", "CREATE TABLE t (k int PRIMARY KEY, v text, w int)")
	mustExecOn(t, other, "a", "INSERT INTO t (k, v, w) VALUES (1, 'other engine', 7)")
	return e, other
}
