package kvfault

import (
	"context"
	"errors"
	"testing"

	"github.com/dohyo/dohyo/engine/kv"
)

// fakeKV counts the calls that reach it.
type fakeKV struct {
	calls int
	rows  []kv.Row
}

func (f *fakeKV) CreateTable(context.Context, *kv.TableSpec) error   { f.calls++; return nil }
func (f *fakeKV) DropTable(context.Context, *kv.TableSpec) error     { f.calls++; return nil }
func (f *fakeKV) TruncateTable(context.Context, *kv.TableSpec) error { f.calls++; return nil }
func (f *fakeKV) Apply(context.Context, []kv.Mutation) error         { f.calls++; return nil }
func (f *fakeKV) Get(context.Context, *kv.TableSpec, [][]byte) ([]kv.Row, error) {
	f.calls++
	return nil, nil
}
func (f *fakeKV) Scan(context.Context, *kv.TableSpec, kv.ScanRange) (kv.RowIterator, error) {
	f.calls++
	return &sliceIter{rows: f.rows}, nil
}
func (f *fakeKV) GetMeta(context.Context, string) ([]byte, error) { f.calls++; return nil, nil }
func (f *fakeKV) PutMeta(context.Context, string, []byte) error   { f.calls++; return nil }
func (f *fakeKV) Close() error                                    { return nil }
func (f *fakeKV) AppliesAtomically() bool                         { return true }

type condFake struct{ fakeKV }

func (c *condFake) CellGet(context.Context, []byte) ([]byte, error) { c.calls++; return nil, nil }
func (c *condFake) CellSwap(context.Context, []byte, []byte, []byte) (bool, error) {
	c.calls++
	return true, nil
}

type sliceIter struct {
	rows []kv.Row
	i    int
}

func (s *sliceIter) Next(context.Context) (kv.Row, bool) {
	if s.i >= len(s.rows) {
		return kv.Row{}, false
	}
	s.i++
	return s.rows[s.i-1], true
}
func (s *sliceIter) Err() error   { return nil }
func (s *sliceIter) Close() error { return nil }

func TestRuleSkipCountAndTable(t *testing.T) {
	f := &fakeKV{}
	r := &Rule{Ops: OpApply, Table: "ks.a", Skip: 2, Count: 2}
	w := Wrap(f, r)
	ctx := context.Background()
	a := &kv.TableSpec{Keyspace: "ks", Name: "a"}
	b := &kv.TableSpec{Keyspace: "ks", Name: "b"}
	var failed []int
	for i := range 6 {
		if err := w.Apply(ctx, []kv.Mutation{{Table: a}}); err != nil {
			if !errors.Is(err, ErrInjected) {
				t.Fatalf("call %d: %v does not wrap ErrInjected", i, err)
			}
			failed = append(failed, i)
		}
		if err := w.Apply(ctx, []kv.Mutation{{Table: b}}); err != nil {
			t.Fatalf("another table's write failed: %v", err)
		}
		if _, err := w.Get(ctx, a, nil); err != nil {
			t.Fatalf("a read failed under a write rule: %v", err)
		}
	}
	if len(failed) != 2 || failed[0] != 2 || failed[1] != 3 {
		t.Fatalf("failed calls %v, want [2 3]", failed)
	}
	if r.Hits() != 2 || r.Seen() != 6 {
		t.Fatalf("hits %d seen %d, want 2 and 6", r.Hits(), r.Seen())
	}
	if f.calls != 6*3-2 {
		t.Fatalf("%d calls reached the store, want %d (failed calls are not made)", f.calls, 6*3-2)
	}
	// A multi-table Apply matches any of its tables.
	r2 := &Rule{Ops: OpApply, Table: "ks.a"}
	if err := Wrap(f, r2).Apply(ctx, []kv.Mutation{{Table: b}, {Table: a}}); err == nil {
		t.Fatal("an Apply touching ks.a second was not matched")
	}
}

func TestScanStepFails(t *testing.T) {
	f := &fakeKV{rows: []kv.Row{{Key: []byte{1}}, {Key: []byte{2}}, {Key: []byte{3}}}}
	w := Wrap(f, &Rule{Ops: OpNext, Skip: 1, Count: 1})
	it, err := w.Scan(context.Background(), &kv.TableSpec{Keyspace: "ks", Name: "t"}, kv.ScanRange{})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	n := 0
	for _, ok := it.Next(context.Background()); ok; _, ok = it.Next(context.Background()) {
		n++
	}
	if n != 1 || !errors.Is(it.Err(), ErrInjected) {
		t.Fatalf("read %d rows, err %v; want 1 row then the injected error", n, it.Err())
	}
}

func TestWrapKeepsCapabilities(t *testing.T) {
	plain := Wrap(&fakeKV{}, nil)
	if _, ok := plain.(kv.CondKV); ok {
		t.Error("a store without CondKV gained it through the wrapper")
	}
	if a, ok := plain.(kv.AtomicKV); !ok || !a.AppliesAtomically() {
		t.Error("AppliesAtomically not forwarded")
	}
	if c, ok := plain.(kv.CopyingKV); !ok || c.CopiesArguments() {
		t.Error("CopiesArguments must be false for a store without it")
	}
	cf := &condFake{}
	sw := &Switch{}
	w := Wrap(cf, sw)
	cond, ok := w.(kv.CondKV)
	if !ok {
		t.Fatal("CondKV lost through the wrapper")
	}
	if _, ok := w.(kv.SharedSchema); ok {
		t.Error("SharedSchema gained through the wrapper")
	}
	sw.Set(&Rule{Ops: OpCellSwap})
	if _, err := cond.CellSwap(context.Background(), nil, nil, []byte{1}); !errors.Is(err, ErrInjected) {
		t.Fatalf("CellSwap under a swap rule: %v", err)
	}
	sw.Set(nil)
	if _, err := cond.CellSwap(context.Background(), nil, nil, []byte{1}); err != nil || cf.calls != 1 {
		t.Fatalf("after the switch was cleared: %v, %d calls", err, cf.calls)
	}
}
