package engine

import (
	"context"
	"testing"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/engine/kv"
)

// callCounter counts a KV's data calls and the cells written.
type callCounter struct {
	kv.KV
	applies, gets, scans, cells int
}

func (c *callCounter) Apply(ctx context.Context, muts []kv.Mutation) error {
	c.applies++
	for _, m := range muts {
		c.cells += len(m.Cells)
	}
	return c.KV.Apply(ctx, muts)
}

func (c *callCounter) Get(ctx context.Context, t *kv.TableSpec, keys [][]byte) ([]kv.Row, error) {
	c.gets++
	return c.KV.Get(ctx, t, keys)
}

func (c *callCounter) Scan(ctx context.Context, t *kv.TableSpec, r kv.ScanRange) (kv.RowIterator, error) {
	c.scans++
	return c.KV.Scan(ctx, t, r)
}

// TestPointStatementsCallTheStoreOnce: YCSB's statements reach the store
// as a native client's calls would (docs/BENCHMARKS.md, "dohyo on HBase",
// compares HBase's CPU behind dohyo with that behind YCSB's HBase client):
// an INSERT is one Apply of its cells and the row marker, an UPDATE of one
// column one Apply of one cell, no read before either; a point SELECT one
// Get.
func TestPointStatementsCallTheStoreOnce(t *testing.T) {
	ctx := context.Background()
	kv := &callCounter{KV: newMemKV()}
	e, err := New(ctx, kv, Options{})
	if err != nil {
		t.Fatal(err)
	}
	exec := func(q string, vals ...string) callCounter {
		t.Helper()
		before := *kv
		req := &bindings.Request{Keyspace: "ks", Query: q, Consistency: bindings.One}
		for _, v := range vals {
			req.Values = append(req.Values, bindings.Value{Bytes: []byte(v)})
		}
		if _, err := e.Execute(ctx, req); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return callCounter{applies: kv.applies - before.applies, gets: kv.gets - before.gets,
			scans: kv.scans - before.scans, cells: kv.cells - before.cells}
	}
	exec("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	exec("CREATE TABLE usertable (y_id text PRIMARY KEY, field0 text, field1 text, field2 text)")
	for _, tc := range []struct {
		q    string
		vals []string
		want callCounter
	}{
		{"INSERT INTO usertable (y_id, field0, field1, field2) VALUES (?, ?, ?, ?)",
			[]string{"user1", "a", "b", "c"}, callCounter{applies: 1, cells: 4}},
		{"UPDATE usertable SET field1 = ? WHERE y_id = ?", []string{"x", "user1"}, callCounter{applies: 1, cells: 1}},
		{"SELECT * FROM usertable WHERE y_id = ?", []string{"user1"}, callCounter{gets: 1}},
	} {
		if got := exec(tc.q, tc.vals...); got != tc.want {
			t.Errorf("%s: %d applies (%d cells), %d gets, %d scans; want %d (%d), %d, %d", tc.q,
				got.applies, got.cells, got.gets, got.scans, tc.want.applies, tc.want.cells, tc.want.gets, tc.want.scans)
		}
	}
}
