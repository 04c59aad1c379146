package embedded

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/dohyo/dohyo/engine"
	"github.com/dohyo/dohyo/engine/faulttest"
	"github.com/dohyo/dohyo/engine/kv"
	"github.com/dohyo/dohyo/engine/kv/kvtest"
)

// eachFormat runs a test on stores of both layouts.
func eachFormat(t *testing.T, test func(t *testing.T, f Format)) {
	for _, f := range []Format{FormatRows, FormatCells} {
		t.Run(map[Format]string{FormatRows: "rows", FormatCells: "cells"}[f], func(t *testing.T) { test(t, f) })
	}
}

func openMem(t *testing.T, f Format) *Store {
	t.Helper()
	s, err := OpenStore(Config{CacheSize: 8 << 20, MemTableSize: 1 << 20, Format: f})
	if err != nil {
		t.Fatalf("OpenStore: %v", err)
	}
	return s
}

// memTable opens a memory store (closed when the test ends) holding one
// empty table.
func memTable(t *testing.T, f Format, name string) (*Store, *kv.TableSpec) {
	t.Helper()
	s := openMem(t, f)
	t.Cleanup(func() { s.Close() })
	ts := &kv.TableSpec{Name: name, ID: name}
	if err := s.CreateTable(t.Context(), ts); err != nil {
		t.Fatal(err)
	}
	return s, ts
}

func openDisk(t *testing.T, dir string, f Format) *Store {
	t.Helper()
	s, err := OpenStore(Config{Dir: dir, CacheSize: 8 << 20, MemTableSize: 1 << 20, Format: f})
	if err != nil {
		t.Fatalf("OpenStore(%s): %v", dir, err)
	}
	return s
}

func TestKVConformanceMemory(t *testing.T) {
	eachFormat(t, func(t *testing.T, f Format) {
		kvtest.Run(t, func(t *testing.T) kv.KV { return openMem(t, f) })
	})
}

func TestKVConformanceDisk(t *testing.T) {
	eachFormat(t, func(t *testing.T, f Format) {
		kvtest.Run(t, func(t *testing.T) kv.KV { return openDisk(t, t.TempDir(), f) })
	})
}

func TestKVConformanceDiskSync(t *testing.T) {
	eachFormat(t, func(t *testing.T, f Format) {
		kvtest.Run(t, func(t *testing.T) kv.KV {
			s, err := OpenStore(Config{Dir: t.TempDir(), Sync: true, Format: f})
			if err != nil {
				t.Fatalf("OpenStore: %v", err)
			}
			return s
		})
	})
}

func val(ts int64, data string) kv.Cell {
	return kv.Cell{Qualifier: []byte("c"), Timestamp: ts, Value: kv.CellValue{Data: []byte(data)}.Encode()}
}

func mustGet(t *testing.T, s *Store, ts *kv.TableSpec, key string) kv.Row {
	t.Helper()
	rows, err := s.Get(t.Context(), ts, [][]byte{[]byte(key)})
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	return rows[0]
}

func cellData(t *testing.T, r kv.Row) []string {
	t.Helper()
	var out []string
	for _, c := range r.Cells {
		v, err := kv.DecodeCellValue(c.Value)
		if err != nil {
			t.Fatalf("decode %q: %v", c.Value, err)
		}
		out = append(out, fmt.Sprintf("%s@%d=%s", c.Qualifier, c.Timestamp, v.Data))
	}
	return out
}

func TestReopenKeepsDataAndMeta(t *testing.T) {
	eachFormat(t, func(t *testing.T, f Format) {
		dir := t.TempDir()
		ctx := t.Context()
		a := &kv.TableSpec{Keyspace: "ks", Name: "a", ID: "id-a"}
		b := &kv.TableSpec{Keyspace: "ks", Name: "b", ID: "id-b"}

		s := openDisk(t, dir, f)
		for _, ts := range []*kv.TableSpec{a, b} {
			if err := s.CreateTable(ctx, ts); err != nil {
				t.Fatalf("CreateTable: %v", err)
			}
		}
		if err := s.Apply(ctx, []kv.Mutation{
			{Table: a, Row: []byte("r1"), Cells: []kv.Cell{val(10, "a-new")}},
			{Table: b, Row: []byte("r1"), Cells: []kv.Cell{val(10, "b")}},
		}); err != nil {
			t.Fatalf("Apply: %v", err)
		}
		if err := s.Apply(ctx, []kv.Mutation{{Table: a, Row: []byte("r1"), Cells: []kv.Cell{val(5, "a-old")}}}); err != nil {
			t.Fatalf("Apply: %v", err)
		}
		if err := s.PutMeta(ctx, "catalog", []byte("snapshot-1")); err != nil {
			t.Fatalf("PutMeta: %v", err)
		}
		if err := s.DropTable(ctx, b); err != nil {
			t.Fatalf("DropTable: %v", err)
		}
		if err := s.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}

		s = openDisk(t, dir, f)
		defer s.Close()
		if got, want := cellData(t, mustGet(t, s, a, "r1")), []string{"c@10=a-new"}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("after reopen: got %v, want %v", got, want)
		}
		if got, err := s.GetMeta(ctx, "catalog"); err != nil || string(got) != "snapshot-1" {
			t.Errorf("GetMeta after reopen: got %q, %v; want snapshot-1", got, err)
		}
		// The dropped table stays dropped; a new table gets a fresh number and
		// does not see the old data of either table.
		if _, err := s.Get(ctx, b, [][]byte{[]byte("r1")}); err == nil {
			t.Errorf("Get on dropped table after reopen: got nil error, want 'does not exist'")
		}
		c := &kv.TableSpec{Keyspace: "ks", Name: "c", ID: "id-c"}
		if err := s.CreateTable(ctx, c); err != nil {
			t.Fatalf("CreateTable after reopen: %v", err)
		}
		if r := mustGet(t, s, c, "r1"); len(r.Cells) != 0 {
			t.Errorf("new table after reopen: got %v, want empty", cellData(t, r))
		}
		if err := s.Apply(ctx, []kv.Mutation{{Table: c, Row: []byte("r1"), Cells: []kv.Cell{val(1, "c")}}}); err != nil {
			t.Fatalf("Apply: %v", err)
		}
		if got, want := cellData(t, mustGet(t, s, a, "r1")), []string{"c@10=a-new"}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("table a after writing c: got %v, want %v", got, want)
		}
	})
}

// TestMergeAcrossFlushes makes Pebble merge versions that live in different
// sstables, during reads and during compaction.
func TestMergeAcrossFlushes(t *testing.T) {
	eachFormat(t, func(t *testing.T, f Format) {
		s, ts := memTable(t, f, "m")
		ctx := t.Context()
		order := []int64{5, 9, 1, 7, 9, 3}
		for _, v := range order {
			if err := s.Apply(ctx, []kv.Mutation{{Table: ts, Row: []byte("r"), Cells: []kv.Cell{val(v, fmt.Sprint("v", v))}}}); err != nil {
				t.Fatal(err)
			}
			if err := s.db.Flush(); err != nil {
				t.Fatal(err)
			}
		}
		want := []string{"c@9=v9"}
		if got := cellData(t, mustGet(t, s, ts, "r")); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("before compaction: got %v, want %v", got, want)
		}
		if err := s.db.Compact(ctx, []byte{0}, []byte{0xff}, false); err != nil {
			t.Fatalf("Compact: %v", err)
		}
		if got := cellData(t, mustGet(t, s, ts, "r")); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("after compaction: got %v, want %v", got, want)
		}
	})
}

// TestBeatsIsATotalOrder checks what Pebble needs of the merge operator:
// the result of merging a set of versions never depends on their order.
func TestBeatsIsATotalOrder(t *testing.T) {
	enc := func(ts int64, v kv.CellValue) []byte {
		b := make([]byte, tsLen+len(v.Encode()))
		encodeValue(b, ts, v.Encode())
		return b
	}
	vals := [][]byte{
		enc(1, kv.CellValue{Data: []byte("a")}),
		enc(1, kv.CellValue{Data: []byte("b")}),
		enc(1, kv.CellValue{Tombstone: true, Expiry: 5}),
		enc(1, kv.CellValue{Tombstone: true, Expiry: 6}),
		enc(1, kv.CellValue{Data: []byte("b"), TTL: 10, Expiry: 100}),
		enc(1, kv.CellValue{Data: []byte("b"), TTL: 20, Expiry: 100}),
		enc(2, kv.CellValue{Data: []byte("a")}),
		enc(0, kv.CellValue{Data: []byte("z")}),
		enc(1, kv.CellValue{})[:tsLen], // timestamp, empty cell value: corrupt
		{1, 2, 3},                      // too short: corrupt
	}
	for i, a := range vals {
		if beats(a, a) {
			t.Errorf("beats(v%d, v%d) = true, want irreflexive", i, i)
		}
		for j, b := range vals {
			if i != j && beats(a, b) == beats(b, a) {
				t.Errorf("v%d vs v%d: beats both ways or neither (%v)", i, j, beats(a, b))
			}
			for k, c := range vals {
				if beats(a, b) && beats(b, c) && !beats(a, c) {
					t.Errorf("not transitive: v%d > v%d > v%d but not v%d > v%d", i, j, k, i, k)
				}
			}
		}
	}
	// Merging any permutation, newer-first or older-first, gives one winner.
	m := newMerger()
	var first []byte
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 50 {
		perm := rng.Perm(len(vals))
		vm, err := m.Merge(nil, vals[perm[0]])
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range perm[1:] {
			if round%2 == 0 {
				err = vm.MergeNewer(vals[p])
			} else {
				err = vm.MergeOlder(vals[p])
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		got, _, err := vm.Finish(true)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = append([]byte(nil), got...)
		} else if !bytes.Equal(got, first) {
			t.Fatalf("round %d: merge result %x differs from %x", round, got, first)
		}
	}
	if !bytes.Equal(first, vals[6]) {
		t.Errorf("winner %x, want the highest timestamp %x", first, vals[6])
	}
}

func TestClosedStore(t *testing.T) {
	eachFormat(t, func(t *testing.T, f Format) {
		s, ts := memTable(t, f, "t")
		ctx := t.Context()
		if err := s.Apply(ctx, []kv.Mutation{{Table: ts, Row: []byte("r"), Cells: []kv.Cell{val(1, "x")}}}); err != nil {
			t.Fatal(err)
		}
		it, err := s.Scan(ctx, ts, kv.ScanRange{})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatalf("Close with an open scan: %v", err)
		}
		if _, ok := it.Next(ctx); ok || !errors.Is(it.Err(), ErrClosed) {
			t.Errorf("Next after store Close: ok=%v err=%v, want false, ErrClosed", ok, it.Err())
		}
		if err := it.Close(); err != nil {
			t.Errorf("iterator Close after store Close: %v", err)
		}
		checks := map[string]error{
			"Apply":  s.Apply(ctx, nil),
			"Create": s.CreateTable(ctx, ts),
			"Drop":   s.DropTable(ctx, ts),
			"Put":    s.PutMeta(ctx, "k", nil),
			"Close":  s.Close(),
		}
		_, checks["Get"] = s.Get(ctx, ts, nil)
		_, checks["GetMeta"] = s.GetMeta(ctx, "k")
		_, checks["Scan"] = s.Scan(ctx, ts, kv.ScanRange{})
		for op, err := range checks {
			if !errors.Is(err, ErrClosed) {
				t.Errorf("%s after Close: got %v, want ErrClosed", op, err)
			}
		}
	})
}

func TestApplyErrors(t *testing.T) {
	eachFormat(t, func(t *testing.T, f Format) {
		s, ts := memTable(t, f, "t")
		ctx := t.Context()
		cases := []struct {
			name string
			muts []kv.Mutation
		}{
			{"unknown table", []kv.Mutation{{Table: &kv.TableSpec{Name: "x", ID: "x"}, Row: []byte("r"), Cells: []kv.Cell{val(1, "v")}}}},
			{"no table id", []kv.Mutation{{Table: &kv.TableSpec{Name: "x"}, Row: []byte("r"), Cells: []kv.Cell{val(1, "v")}}}},
			{"long qualifier", []kv.Mutation{{Table: ts, Row: []byte("r"), Cells: []kv.Cell{{Qualifier: make([]byte, 70000), Value: []byte{0}}}}}},
		}
		for _, c := range cases {
			// The first mutation is valid: a failing call writes nothing.
			muts := append([]kv.Mutation{{Table: ts, Row: []byte("ok"), Cells: []kv.Cell{val(1, "v")}}}, c.muts...)
			if err := s.Apply(ctx, muts); err == nil {
				t.Errorf("%s: Apply returned nil, want an error", c.name)
			}
			if r := mustGet(t, s, ts, "ok"); len(r.Cells) != 0 {
				t.Errorf("%s: failed Apply wrote %v", c.name, cellData(t, r))
			}
		}
		if err := s.TruncateTable(ctx, &kv.TableSpec{Name: "x", ID: "x"}); err == nil {
			t.Errorf("TruncateTable of a missing table: got nil, want an error")
		}
		if err := s.DropTable(ctx, &kv.TableSpec{Name: "x", ID: "x"}); err != nil {
			t.Errorf("DropTable of a missing table: got %v, want nil", err)
		}
	})
}

// TestConcurrentApplyScan runs writers and scanners together (meant for
// -race). Every write sets both cells of a row to one generation in one
// Apply, so a scan must never see a row with mixed generations.
func TestConcurrentApplyScan(t *testing.T) {
	eachFormat(t, func(t *testing.T, f Format) {
		s, ts := memTable(t, f, "t")
		ctx := t.Context()
		const writers, scanners, rounds, rows = 3, 3, 60, 16
		var wg sync.WaitGroup
		errs := make(chan error, writers+scanners)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for gen := range rounds {
					var muts []kv.Mutation
					for r := range rows {
						g := int64(gen*writers + w)
						data := fmt.Sprint(g)
						muts = append(muts, kv.Mutation{Table: ts, Row: fmt.Appendf(nil, "row%02d", r), Cells: []kv.Cell{
							{Qualifier: []byte("a"), Timestamp: g, Value: kv.CellValue{Data: []byte(data)}.Encode()},
							{Qualifier: []byte("b"), Timestamp: g, Value: kv.CellValue{Data: []byte(data)}.Encode()},
						}})
					}
					if err := s.Apply(ctx, muts); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		for sc := range scanners {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range rounds {
					it, err := s.Scan(ctx, ts, kv.ScanRange{Reverse: sc%2 == 1})
					if err != nil {
						errs <- err
						return
					}
					var prev []byte
					for {
						r, ok := it.Next(ctx)
						if !ok {
							break
						}
						if prev != nil && (bytes.Compare(r.Key, prev) > 0) == (sc%2 == 1) {
							errs <- fmt.Errorf("rows out of order: %q after %q", r.Key, prev)
						}
						prev = r.Key
						if len(r.Cells) != 2 || r.Cells[0].Timestamp != r.Cells[1].Timestamp {
							errs <- fmt.Errorf("row %q torn: %v", r.Key, r.Cells)
						}
					}
					if err := it.Err(); err != nil {
						errs <- err
					}
					it.Close()
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		want := int64((rounds-1)*writers + writers - 1)
		for r := range rows {
			got := mustGet(t, s, ts, fmt.Sprintf("row%02d", r))
			if len(got.Cells) != 2 || got.Cells[0].Timestamp != want || got.Cells[1].Timestamp != want {
				t.Errorf("row %d: got %v, want both cells at %d", r, cellData(t, got), want)
			}
		}
	})
}

func TestPrefixEnd(t *testing.T) {
	cases := []struct{ in, want []byte }{
		{[]byte{1, 2}, []byte{1, 3}},
		{[]byte{1, 0xff}, []byte{2}},
		{[]byte{0xff, 0xff}, nil},
		{[]byte{}, nil},
	}
	for _, c := range cases {
		if got := prefixEnd(c.in); !bytes.Equal(got, c.want) || (got == nil) != (c.want == nil) {
			t.Errorf("prefixEnd(%x) = %x, want %x", c.in, got, c.want)
		}
	}
}

// TestEngineFaults runs the engine's fault suite (engine/faulttest) on the
// Pebble store: KV calls fail at chosen points, the engine answers with a
// clean error and leaves nothing half-applied.
func TestEngineFaults(t *testing.T) {
	faulttest.Run(t, func(t *testing.T) kv.KV {
		st, err := OpenStore(Config{})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}, engine.Options{})
}
