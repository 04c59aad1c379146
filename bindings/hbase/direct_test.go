package hbase

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/dohyo/dohyo/engine/kv"
)

func TestBeginPoint(t *testing.T) {
	s := &Store{directMax: 2}
	if !s.beginPoint() || !s.beginPoint() {
		t.Fatal("the first two point RPCs in flight are not direct")
	}
	if s.beginPoint() {
		t.Fatal("a third point RPC in flight is direct")
	}
	s.endPoint()
	s.endPoint()
	if !s.beginPoint() {
		t.Fatal("with one left in flight a new point RPC is not direct")
	}
	s.endPoint()
	s.endPoint()
	if n := s.points.Load(); n != 0 {
		t.Fatalf("%d point RPCs counted after all ended", n)
	}
	if off := (&Store{}); off.beginPoint() {
		t.Fatal("directMax 0 sends directly")
	}
}

func TestRowPutSkipBatch(t *testing.T) {
	for _, direct := range []bool{false, true} {
		p, err := newRowPut(context.Background(), []byte("ns:t"), []byte("r"), nil, direct)
		if err != nil {
			t.Fatal(err)
		}
		if p.SkipBatch() != direct {
			t.Fatalf("direct %v: SkipBatch %v", direct, p.SkipBatch())
		}
	}
}

// TestDirectPointRPCs writes and reads single rows from many goroutines at
// once with every point RPC batched, every one direct (written by its
// caller, concurrently on one region client connection), and the two
// mixed, and checks every row read back.
func TestDirectPointRPCs(t *testing.T) {
	s := openTestStore(t)
	defer s.Close()
	ctx := t.Context()
	ts, drop := testTable(t, s, "direct", []byte{0x40}, []byte{0x80}, []byte{0xc0})
	defer drop()
	const workers, perWorker = 32, 8
	for _, limit := range []int64{0, 1 << 30, 4} {
		s.directMax = limit // no RPC in flight here
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range perWorker {
					k := []byte{byte(w * 8), byte(i), byte(limit)}
					v := fmt.Sprintf("%d/%d/%d", limit, w, i)
					err := s.Apply(ctx, []kv.Mutation{{Table: ts, Row: k,
						Cells: []kv.Cell{liveCell("a", int64(i+1), v)}}})
					if err != nil {
						errs <- err
						return
					}
					rows, err := s.Get(ctx, ts, [][]byte{k})
					if err != nil {
						errs <- err
						return
					}
					want := liveCell("a", int64(i+1), v)
					if len(rows) != 1 || len(rows[0].Cells) != 1 || string(rows[0].Cells[0].Value) != string(want.Value) {
						errs <- fmt.Errorf("directMax %d: row %x: %+v, want %s", limit, k, rows, v)
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if n := s.points.Load(); n != 0 {
			t.Fatalf("directMax %d: %d point RPCs still counted", limit, n)
		}
	}
}

// BenchmarkPointRPC measures one single-row Apply and one single-key Get
// against the test HBase, one at a time, queued for gohbase's batching
// writer (batched) and written by the caller (direct): with -benchmem, the
// allocations and latency of the point path in dohyo and gohbase, and the
// test process's read and write system calls (syscr/op, syscw/op, from
// /proc/self/io) and CPU time (cpu-µs/op, user + system) per RPC, whatever
// its goroutines did meanwhile (the store's background work included).
//
//	DOHYO_TEST_HBASE_ZK=127.0.0.1:2181 go test -run '^$' -bench PointRPC -benchmem ./bindings/hbase/
func BenchmarkPointRPC(b *testing.B) {
	s := openTestStore(b)
	defer s.Close()
	ctx := b.Context()
	ts, drop := testTable(b, s, "point")
	defer drop()
	for _, mode := range []struct {
		name  string
		limit int64
	}{{"batched", 0}, {"direct", defaultDirectMax}} {
		s.directMax = mode.limit
		b.Run(mode.name+"/put", func(b *testing.B) {
			start := readProcessCost(b)
			for i := range b.N {
				k := []byte{byte(i), byte(i >> 8)}
				if err := s.Apply(ctx, []kv.Mutation{{Table: ts, Row: k,
					Cells: []kv.Cell{liveCell("a", 1, "value")}}}); err != nil {
					b.Fatal(err)
				}
			}
			start.report(b)
		})
		b.Run(mode.name+"/get", func(b *testing.B) {
			start := readProcessCost(b)
			for i := range b.N {
				if _, err := s.Get(ctx, ts, [][]byte{{byte(i), byte(i >> 8)}}); err != nil {
					b.Fatal(err)
				}
			}
			start.report(b)
		})
	}
}
