package hbase

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tsuna/gohbase/hrpc"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/engine"
	"github.com/dohyo/dohyo/engine/kv"
)

// Several engines over one HBase, each with its own Store (its own HBase
// client connections): the situation of several dohyo processes sharing a
// backend, for LWT, counters and read-before-write.

// stripeOnlyKV hides the Store's CondKV, so the engine falls back to
// in-process stripe locks: the engine before cross-process coordination.
type stripeOnlyKV struct{ kv.KV }

// stripeOnly reports DOHYO_TEST_LWT_STRIPE_ONLY=1: run the tier tests on
// engines with in-process stripe locks only, to show what they catch.
func stripeOnly() bool { return os.Getenv("DOHYO_TEST_LWT_STRIPE_ONLY") == "1" }

// openTier opens n engines on one catalog. setup runs on the first before the
// others open (they load the catalog when they start).
func openTier(t testing.TB, n int, opts engine.Options, stripeOnly bool, setup func(e *engine.Engine)) []*engine.Engine {
	t.Helper()
	return openTierOn(t, testZK(t), n, opts, stripeOnly, setup)
}

func openTierOn(t testing.TB, zk string, n int, opts engine.Options, stripeOnly bool, setup func(e *engine.Engine)) []*engine.Engine {
	t.Helper()
	catalog := uniqueName("tier_")
	var out []*engine.Engine
	for i := range n {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		st, err := OpenStore(ctx, Config{ZooKeeper: zk, Catalog: catalog})
		if err != nil {
			cancel()
			t.Fatalf("OpenStore: %v", err)
		}
		var kv kv.KV = st
		if stripeOnly {
			kv = stripeOnlyKV{st}
		}
		e, err := engine.New(ctx, kv, opts)
		cancel()
		if err != nil {
			t.Fatalf("engine %d: %v", i, err)
		}
		t.Cleanup(func() { _ = e.Close() })
		if i == 0 && setup != nil {
			setup(e)
		}
		out = append(out, e)
	}
	return out
}

// run executes one statement with a bounded context.
func run(ctx context.Context, e *engine.Engine, q string, cl bindings.Consistency, vals ...bindings.Value) (*bindings.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	return e.Execute(ctx, &bindings.Request{Query: q, Values: vals, Consistency: cl, SerialConsistency: bindings.Serial})
}

func tierKeyspace(t testing.TB, e *engine.Engine, tables ...string) string {
	t.Helper()
	ks := uniqueName("tier_lwt_")
	exec(t, e, "CREATE KEYSPACE "+ks+replication)
	dropKeyspace(t, e, ks)
	for _, tb := range tables {
		exec(t, e, fmt.Sprintf(tb, ks))
	}
	return ks
}

func applied(res *bindings.Result) bool {
	return len(res.Rows) == 1 && len(res.Rows[0]) > 0 && len(res.Rows[0][0]) == 1 && res.Rows[0][0][0] == 1
}

func TestTierCountersExact(t *testing.T) {
	var ks string
	es := openTier(t, 3, engine.Options{}, stripeOnly(), func(e *engine.Engine) {
		ks = tierKeyspace(t, e, "CREATE TABLE %s.c (k int PRIMARY KEY, n counter)")
	})
	const workers, per, keys = 8, 50, 2 // 1,200 increments
	var wg sync.WaitGroup
	for i, e := range es {
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range per {
					k := (i + w + j) % keys
					if _, err := run(t.Context(), e, "UPDATE "+ks+".c SET n = n + 1 WHERE k = ?", bindings.One, intVal(k)); err != nil {
						t.Errorf("increment: %v", err)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	var total int64
	for k := range keys {
		res := exec(t, es[k%len(es)], "SELECT n FROM "+ks+".c WHERE k = ?", intVal(k))
		if len(res.Rows) != 1 {
			t.Fatalf("key %d: %d rows", k, len(res.Rows))
		}
		total += int64(binary.BigEndian.Uint64(res.Rows[0][0]))
	}
	if want := int64(len(es) * workers * per); total != want {
		t.Errorf("3 engines, %d increments: counters sum to %d", want, total)
	}
}

func intVal(n int) bindings.Value {
	return bindings.Value{Bytes: binary.BigEndian.AppendUint32(nil, uint32(n))}
}

func TestTierInsertIfNotExistsOnce(t *testing.T) {
	var ks string
	es := openTier(t, 3, engine.Options{}, stripeOnly(), func(e *engine.Engine) {
		ks = tierKeyspace(t, e, "CREATE TABLE %s.t (k int PRIMARY KEY, who int)")
	})
	const keys = 300
	wins := make([]atomic.Int32, keys)
	var wg sync.WaitGroup
	for i, e := range es {
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := w; j < keys; j += 4 {
					k := j // every engine races on the same key at once
					res, err := run(t.Context(), e, "INSERT INTO "+ks+".t (k, who) VALUES (?, ?) IF NOT EXISTS", bindings.One, intVal(k), intVal(i))
					if err != nil {
						t.Errorf("insert %d: %v", k, err)
						return
					}
					if applied(res) {
						wins[k].Add(1)
					}
				}
			}()
		}
	}
	wg.Wait()
	for k := range wins {
		if n := wins[k].Load(); n != 1 {
			t.Errorf("key %d: [applied] = true %d times, want exactly once", k, n)
		}
	}
}

// TestTierListByIndexExact runs read-before-write list updates from three
// engines: DELETE l[0] reads the list to find its first element, so two
// racing deletions that read the same list remove one element between
// them. Sequentially, every deletion removes a different element.
func TestTierListByIndexExact(t *testing.T) {
	const size, workers, per = 60, 2, 8 // 48 deletions
	var ks string
	es := openTier(t, 3, engine.Options{}, stripeOnly(), func(e *engine.Engine) {
		ks = tierKeyspace(t, e, "CREATE TABLE %s.l (k int PRIMARY KEY, l list<int>)")
		vals := make([]string, size)
		for i := range vals {
			vals[i] = fmt.Sprint(i)
		}
		exec(t, e, "INSERT INTO "+ks+".l (k, l) VALUES (0, ["+strings.Join(vals, ", ")+"])")
	})
	var wg sync.WaitGroup
	for _, e := range es {
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range per {
					if _, err := run(t.Context(), e, "DELETE l[0] FROM "+ks+".l WHERE k = 0", bindings.One); err != nil {
						t.Errorf("delete l[0]: %v", err)
						return
					}
					// A read-before-write that changes nothing.
					if _, err := run(t.Context(), e, "UPDATE "+ks+".l SET l = l - [-1] WHERE k = 0", bindings.One); err != nil {
						t.Errorf("remove: %v", err)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	res := exec(t, es[1], "SELECT l FROM "+ks+".l WHERE k = 0")
	got := decodeIntList(t, res.Rows[0][0])
	var want []int
	for i := len(es) * workers * per; i < size; i++ {
		want = append(want, i)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("list after %d concurrent DELETE l[0]: %v, want %v", len(es)*workers*per, got, want)
	}
}

func decodeIntList(t *testing.T, b []byte) []int {
	t.Helper()
	if len(b) < 4 {
		t.Fatalf("list value of %d bytes", len(b))
	}
	n := int(binary.BigEndian.Uint32(b))
	b = b[4:]
	out := make([]int, 0, n)
	for range n {
		l := int(binary.BigEndian.Uint32(b))
		out = append(out, int(int32(binary.BigEndian.Uint32(b[4:4+l]))))
		b = b[4+l:]
	}
	return out
}

// TestTierCommittedLWTOfDeadHolderCompletes abandons an LWT between commit
// and apply (the AfterCommit hook, as if the process died there): another
// engine gets the partition once the lease ends, and a SERIAL read there
// sees the committed write, completed. That the partition does not stay
// locked is a fact the engine reports: a partition still held when
// LWTTimeout (a minute here, over a hundred leases) passes fails the
// SERIAL read with a timeout error; how long it waited is only logged.
func TestTierCommittedLWTOfDeadHolderCompletes(t *testing.T) {
	var ks string
	errDied := errors.New("test: process died after commit")
	var die atomic.Bool
	lease := 500 * time.Millisecond
	opts := engine.Options{LWTLease: lease, LWTTimeout: time.Minute, AfterCommit: func() error {
		if die.Load() {
			return errDied
		}
		return nil
	}}
	es := openTier(t, 2, opts, stripeOnly(), func(e *engine.Engine) {
		ks = tierKeyspace(t, e, "CREATE TABLE %s.t (k int PRIMARY KEY, v int)")
	})
	die.Store(true)
	_, err := run(t.Context(), es[0], "INSERT INTO "+ks+".t (k, v) VALUES (1, 7) IF NOT EXISTS", bindings.One)
	if err == nil || !strings.Contains(err.Error(), errDied.Error()) {
		t.Fatalf("LWT with the dying hook: %v, want %v", err, errDied)
	}
	die.Store(false)
	// Nothing was applied: a plain read does not see it yet.
	if res := exec(t, es[1], "SELECT v FROM "+ks+".t WHERE k = 1"); len(res.Rows) != 0 {
		t.Fatalf("plain read before completion: %d rows, want 0", len(res.Rows))
	}
	start := time.Now()
	res, err := run(t.Context(), es[1], "SELECT v FROM "+ks+".t WHERE k = 1", bindings.Serial)
	if err != nil {
		t.Fatalf("SERIAL read: %v", err)
	}
	if len(res.Rows) != 1 || int32(binary.BigEndian.Uint32(res.Rows[0][0])) != 7 {
		t.Fatalf("SERIAL read after the holder died: %v, want the committed v = 7", res.Rows)
	}
	t.Logf("SERIAL read answered %v after the holder died (lease %v)", time.Since(start).Round(time.Millisecond), lease)
	res, err = run(t.Context(), es[1], "INSERT INTO "+ks+".t (k, v) VALUES (1, 8) IF NOT EXISTS", bindings.One)
	if err != nil || applied(res) {
		t.Fatalf("second IF NOT EXISTS: applied=%v err=%v, want not applied", err == nil && applied(res), err)
	}
	// The partition is free again for the first engine too.
	res, err = run(t.Context(), es[0], "UPDATE "+ks+".t SET v = 9 WHERE k = 1 IF v = 7", bindings.One)
	if err != nil || !applied(res) {
		t.Fatalf("CAS after completion: err=%v", err)
	}
}

// DROP TABLE and DROP KEYSPACE delete the coordination cells the dropped
// tables' LWT left behind, and only theirs.
func TestDropDeletesCoordinationCells(t *testing.T) {
	b := openTestBackend(t, "catalog="+uniqueName("tier_cells_"))
	ks := uniqueName("tier_cells_")
	exec(t, b, "CREATE KEYSPACE "+ks+replication)
	dropKeyspace(t, b, ks)
	const keys = 3
	ids := map[string]string{}
	for _, tb := range []string{"a", "b"} {
		exec(t, b, "CREATE TABLE "+ks+"."+tb+" (k int PRIMARY KEY, v int)")
		for k := range keys {
			res := exec(t, b, "INSERT INTO "+ks+"."+tb+" (k, v) VALUES (?, 1) IF NOT EXISTS", intVal(k))
			if !applied(res) {
				t.Fatalf("%s: insert %d not applied", tb, k)
			}
		}
		ids[tb] = tableSpec(t, b, ks, tb).ID
	}
	st := storeOf(b)
	for tb, id := range ids {
		if n := countCells(t, st, id); n != keys {
			t.Fatalf("table %s: %d coordination cells after LWT on %d partitions, want %d", tb, n, keys, keys)
		}
	}
	exec(t, b, "DROP TABLE "+ks+".a")
	b.WaitDrops() // the HBase table and its cells are dropped in the background
	if n := countCells(t, st, ids["a"]); n != 0 {
		t.Errorf("dropped table a: %d coordination cells remain", n)
	}
	if n := countCells(t, st, ids["b"]); n != keys {
		t.Errorf("table b: %d coordination cells after dropping a, want %d", n, keys)
	}
	exec(t, b, "DROP KEYSPACE "+ks)
	b.WaitDrops()
	if n := countCells(t, st, ids["b"]); n != 0 {
		t.Errorf("dropped keyspace: %d coordination cells of table b remain", n)
	}
}

// countCells counts the rows of the coordination table under table id.
func countCells(t *testing.T, s *Store, id string) int {
	t.Helper()
	start := s.cellRow(kv.CoordTablePrefix(id))
	stop := append(bytes.Clone(start[:len(start)-1]), start[len(start)-1]+1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sc, err := hrpc.NewScanRange(ctx, []byte(lwtTable), start, stop)
	if err != nil {
		t.Fatal(err)
	}
	scanner := s.client.Scan(sc)
	defer scanner.Close()
	n := 0
	for {
		_, err := scanner.Next()
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil {
			t.Fatalf("scan coordination cells: %v", err)
		}
		n++
	}
}
