package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/engine/kv"
)

func TestHeldByFindsValuesInTheContext(t *testing.T) {
	x := &execCtx{}
	x.keys = append(x.keyBuf[:0], "partition"...)
	own := []byte("elsewhere")
	cases := []struct {
		name string
		res  *bindings.Result
		want bool
	}{
		{"nil result", nil, false},
		{"values elsewhere", &bindings.Result{Rows: [][][]byte{{own, nil, {}}}}, false},
		{"a value in the key arena", &bindings.Result{Rows: [][][]byte{{own}, {x.keys[2:5]}}}, true},
		{"the key buffer's last byte", &bindings.Result{Rows: [][][]byte{{x.keyBuf[len(x.keyBuf)-1:]}}}, true},
		{"paging state in the key arena", &bindings.Result{PagingState: x.keys}, true},
		{"an empty slice of the arena", &bindings.Result{Rows: [][][]byte{{x.keyBuf[:0:0]}}}, false},
	}
	for _, c := range cases {
		if got := x.heldBy(c.res); got != c.want {
			t.Errorf("%s: heldBy = %v, want %v", c.name, got, c.want)
		}
	}
}

// keepingKV is a SettlingKV that fails every Apply of a row whose key
// contains "fail" and keeps that row key, as a client with the write's RPC
// still queued would; memKV answers everything else.
type keepingKV struct {
	*memKV
	kept, copies [][]byte // the kept row keys (aliased) and their bytes then
}

func (k *keepingKV) SettlesOnSuccess() bool { return true }

func (k *keepingKV) Apply(ctx context.Context, muts []kv.Mutation) error {
	for _, m := range muts {
		if bytes.Contains(m.Row, []byte("fail")) {
			k.kept = append(k.kept, m.Row)
			k.copies = append(k.copies, bytes.Clone(m.Row))
			return errors.New("refused")
		}
	}
	return k.memKV.Apply(ctx, muts)
}

// TestSettlingStoresRecycleOnlyAfterSuccess: on a store that may keep what
// a failed call was given, a failed write's context (whose key arena the
// kept row key points into) is not reused, while successful statements'
// contexts are.
func TestSettlingStoresRecycleOnlyAfterSuccess(t *testing.T) {
	ctx := context.Background()
	open := func(kv kv.KV) *Engine {
		e, err := New(ctx, kv, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{
			"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
			"CREATE TABLE ks.kv (k text PRIMARY KEY, v text)",
		} {
			if _, err := e.Execute(ctx, &bindings.Request{Query: q}); err != nil {
				t.Fatal(err)
			}
		}
		return e
	}
	kv := &keepingKV{memKV: newMemKV()}
	e := open(kv)
	if e.recycle != recycleOnSuccess {
		t.Fatalf("recycling %d, want recycleOnSuccess", e.recycle)
	}
	insert := func(e *Engine, k string) error {
		_, err := e.Execute(ctx, &bindings.Request{Query: "INSERT INTO ks.kv (k, v) VALUES (?, ?)",
			Values: []bindings.Value{{Bytes: []byte(k)}, {Bytes: []byte("v")}}})
		return err
	}
	for i := range 200 {
		if err := insert(e, fmt.Sprintf("fail-%d", i)); err == nil {
			t.Fatal("a refused write succeeded")
		}
		if err := insert(e, fmt.Sprintf("okay-%d", i)); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Execute(ctx, &bindings.Request{Query: "SELECT v FROM ks.kv WHERE k = ?",
			Values: []bindings.Value{{Bytes: []byte(fmt.Sprintf("okay-%d", i))}}}); err != nil {
			t.Fatal(err)
		}
	}
	for i, k := range kv.kept {
		if !bytes.Equal(k, kv.copies[i]) {
			t.Fatalf("kept row key %d changed after the write failed: %q, was %q", i, k, kv.copies[i])
		}
	}

	if raceEnabled {
		return // sync.Pool drops items at random under the race detector
	}
	plain := open(newMemKV())
	n := 0
	allocs := func(e *Engine) float64 {
		return testing.AllocsPerRun(100, func() {
			n++
			if err := insert(e, fmt.Sprintf("k%06d", n)); err != nil {
				t.Fatal(err)
			}
		})
	}
	allocs(e) // warm the caches and pools
	settling, never := allocs(e), allocs(plain)
	// The context and the mutation builder.
	if never-settling < 2 {
		t.Errorf("allocations per INSERT: %.1f recycling after success, %.1f never recycling; want 2 fewer", settling, never)
	}
}
