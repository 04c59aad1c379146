package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"
)

// sharedCondKV is one process's handle on a store with a shared schema and
// coordination cells (what HBase gives a tier).
type sharedCondKV struct {
	*sharedKV
	cells *condMem
}

func (s *sharedCondKV) CellGet(ctx context.Context, key []byte) ([]byte, error) {
	return s.cells.CellGet(ctx, key)
}

func (s *sharedCondKV) CellSwap(ctx context.Context, key, expected, value []byte) (bool, error) {
	return s.cells.CellSwap(ctx, key, expected, value)
}

// viewMatchesBase checks that the view holds exactly one row per live base
// row, with the base row's values.
func viewMatchesBase(t *testing.T, e *Engine) {
	t.Helper()
	base := map[string]bool{}
	res := mustExecOn(t, e, "ks", "SELECT v, k, w FROM t")
	for _, r := range formatRows(res) {
		if !strings.HasPrefix(r, "null") {
			base[r] = true
		}
	}
	got := map[string]bool{}
	for _, r := range formatRows(mustExecOn(t, e, "ks", "SELECT v, k, w FROM mv")) {
		if got[r] {
			t.Errorf("view row %s twice", r)
		}
		got[r] = true
	}
	if fmt.Sprint(got) != fmt.Sprint(base) {
		t.Fatalf("view rows %v, base rows %v", got, base)
	}
}

// TestViewConcurrentWritesOnePartition: writes racing on one base row,
// from two engines sharing a store (and two goroutines each), leave the
// view with exactly the row the base ends with.
func TestViewConcurrentWritesOnePartition(t *testing.T) {
	base, cell := newMemKV(), &schemaCell{}
	cells := &condMem{memKV: base, cells: map[string][]byte{}}
	var es []*Engine
	for range 2 {
		e, err := New(context.Background(), &sharedCondKV{sharedKV: &sharedKV{memKV: base, cell: cell}, cells: cells},
			Options{SchemaPoll: 10 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		es = append(es, e)
	}
	mustExecOn(t, es[0], "", fmt.Sprintf(sharedKSDDL, "ks"))
	mustExecOn(t, es[0], "ks", "CREATE TABLE t (k int PRIMARY KEY, v int, w int)")
	mustExecOn(t, es[0], "ks", "INSERT INTO t (k, v, w) VALUES (1, 0, 0)")
	mustExecOn(t, es[0], "ks", "CREATE MATERIALIZED VIEW mv AS SELECT * FROM t WHERE v IS NOT NULL AND k IS NOT NULL PRIMARY KEY (v, k)")
	// The other engine loads the view on its next poll; CREATE waited for it.
	if _, err := execOn(es[1], "ks", "SELECT * FROM mv"); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 4 {
		e := es[i%2]
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, 1))
			for n := 0; n < 40; n++ {
				var q string
				switch r.IntN(6) {
				case 0:
					q = "DELETE FROM t WHERE k = 1"
				case 1:
					q = fmt.Sprintf("UPDATE t SET w = %d WHERE k = 1", r.IntN(100))
				case 2:
					q = fmt.Sprintf("UPDATE t SET v = %d WHERE k = 1 IF EXISTS", r.IntN(5))
				default:
					q = fmt.Sprintf("INSERT INTO t (k, v, w) VALUES (1, %d, %d)", r.IntN(5), r.IntN(100))
				}
				if _, err := execOn(e, "ks", q); err != nil {
					t.Errorf("%s: %v", q, err)
					return
				}
			}
		}(uint64(i))
	}
	wg.Wait()
	viewMatchesBase(t, es[0])
	viewMatchesBase(t, es[1])
}

// TestViewBuildAndOlderTimestamps: the build covers rows already present,
// and writes with older timestamps than the view row's last maintenance
// still replace it.
func TestViewBuildAndOlderTimestamps(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (k int PRIMARY KEY, v int, w int)")
	for k := range 20 {
		h.exec(fmt.Sprintf("INSERT INTO t (k, v, w) VALUES (%d, %d, %d)", k, k%3, k))
	}
	h.exec("CREATE MATERIALIZED VIEW mv AS SELECT * FROM t WHERE v IS NOT NULL AND k IS NOT NULL PRIMARY KEY (v, k)")
	viewMatchesBase(t, h.e)
	h.exec("INSERT INTO t (k, v, w) VALUES (100, 1, 1) USING TIMESTAMP 9000000000000000")
	h.exec("UPDATE t USING TIMESTAMP 5 SET w = 2 WHERE k = 100") // older: loses in the base
	viewMatchesBase(t, h.e)
	h.exec("UPDATE t USING TIMESTAMP 9000000000000001 SET v = 2 WHERE k = 100")
	h.exec("UPDATE t SET w = 7 WHERE k = 1") // a write older than the view rows' newest cells
	viewMatchesBase(t, h.e)
	h.expectRows("SELECT k, w FROM mv WHERE v = 2 AND k = 100", "100 | 1")
}

// TestViewCreateWhileWriting: writes racing with CREATE MATERIALIZED VIEW
// are either seen by its build or maintain the view themselves.
func TestViewCreateWhileWriting(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (k int PRIMARY KEY, v int, w int)")
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		for k := 0; k < 5000; k++ {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			if _, err := execOn(h.e, "ks", fmt.Sprintf("INSERT INTO t (k, v, w) VALUES (%d, %d, 1)", k, k%7)); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for k := 0; k < 50; k++ { // let the writer start
		h.exec(fmt.Sprintf("INSERT INTO t (k, v, w) VALUES (%d, 1, 0)", 100000+k))
	}
	h.exec("CREATE MATERIALIZED VIEW mv AS SELECT * FROM t WHERE v IS NOT NULL AND k IS NOT NULL PRIMARY KEY (v, k)")
	for k := 0; k < 50; k++ {
		h.exec(fmt.Sprintf("UPDATE t SET v = 3 WHERE k = %d", 100000+k))
	}
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	viewMatchesBase(t, h.e)
}

// BenchmarkViewWrite measures the cost a view adds to a write (the held
// partition, the read of the base row and of the view row it replaces).
func BenchmarkViewWrite(b *testing.B) {
	for _, views := range []int{0, 1, 2} {
		b.Run(fmt.Sprintf("views=%d", views), func(b *testing.B) {
			h := newHarness(b)
			h.exec("CREATE TABLE t (k int PRIMARY KEY, v int, w int)")
			for i := range views {
				h.exec(fmt.Sprintf("CREATE MATERIALIZED VIEW mv%d AS SELECT * FROM t WHERE v IS NOT NULL AND k IS NOT NULL PRIMARY KEY (v, k)", i))
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				h.exec(fmt.Sprintf("INSERT INTO t (k, v, w) VALUES (%d, %d, 1)", i%1000, i))
			}
		})
	}
}
