package embedded

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/dohyo/dohyo/bindings"
)

// The engine reuses a plain write's execution context and mutation builder
// once the store has copied the write (CopyingKV). These tests write from
// several goroutines at once, with partition keys longer and shorter than
// the context's key buffer, failing statements, LWTs and counters between
// the plain writes, and read every row back: a context or builder reused
// while its mutation was still being applied would put one goroutine's
// keys or values into another's rows.

const (
	recycleTable = `CREATE TABLE IF NOT EXISTS ks.rec (p text, b bigint, c int, s text static,
		v text, l list<int>, m map<text, int>, PRIMARY KEY ((p, b), c))`
	recycleCounter = "CREATE TABLE IF NOT EXISTS ks.recn (p text PRIMARY KEY, n counter)"
)

type recycleRow struct {
	s, v string
	l    string
}

func TestRecycledWriteContextsKeepEveryRow(t *testing.T) {
	b, err := openEngine(t.Context(), Config{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer b.Close()
	if !storeOf(b).CopiesArguments() {
		t.Fatal("the embedded store must copy mutations for this test to test recycling")
	}
	mustExec(t, b, createKS)
	mustExec(t, b, recycleTable)
	mustExec(t, b, recycleCounter)

	const (
		workers = 4
		rounds  = 150
	)
	ctx := context.Background()
	want := make([]map[string]recycleRow, workers)
	counts := make([]int64, workers)
	for w := range workers {
		want[w] = map[string]recycleRow{}
	}
	eachWorker(t, workers, func(w int) error {
		exec := func(q string, vals ...bindings.Value) (*bindings.Result, error) {
			return b.Execute(ctx, &bindings.Request{Query: q, Values: vals, Consistency: bindings.One})
		}
		for i := range rounds {
			// Partition keys from 3 to ~150 bytes: some fit the
			// context's 64-byte key buffer, some do not.
			p := fmt.Sprintf("w%d-%s", w, strings.Repeat("x", (i*37)%150))
			pb := int64(w*1_000_000 + i)
			c := int32(i % 5)
			v := fmt.Sprintf("v-%d-%d-%s", w, i, strings.Repeat("y", i%90))
			s := fmt.Sprintf("s-%d-%d", w, i)
			key := fmt.Sprintf("%s/%d/%d", p, pb, c)
			if _, err := exec("INSERT INTO ks.rec (p, b, c, s, v, l, m) VALUES (?, ?, ?, ?, ?, [1, 2], {'a': 1})",
				text(p), bigint(pb), intv(c), text(s), text(v)); err != nil {
				return fmt.Errorf("insert %s: %w", key, err)
			}
			row := recycleRow{s: s, v: v, l: "[1 2]"}
			switch i % 4 {
			case 0: // an append: another write on the same context kinds
				if _, err := exec("UPDATE ks.rec SET l = l + [3] WHERE p = ? AND b = ? AND c = ?", text(p), bigint(pb), intv(c)); err != nil {
					return fmt.Errorf("append %s: %w", key, err)
				}
				row.l = "[1 2 3]"
			case 1: // a failing write between two good ones
				if _, err := exec("INSERT INTO ks.rec (p, b, c, v) VALUES (?, ?, ?, ?)", text(p), bigint(pb), bindings.Value{}, text("lost")); err == nil {
					return fmt.Errorf("insert with a null clustering key for %s succeeded", key)
				}
			case 2: // an LWT (its context is not recycled) that does not apply
				res, err := exec("INSERT INTO ks.rec (p, b, c, v) VALUES (?, ?, ?, ?) IF NOT EXISTS", text(p), bigint(pb), intv(c), text("lwt"))
				if err != nil || len(res.Rows) != 1 || len(res.Rows[0][0]) != 1 || res.Rows[0][0][0] != 0 {
					return fmt.Errorf("LWT on existing row %s: %v, %v", key, res, err)
				}
			case 3: // a counter (a held write)
				if _, err := exec("UPDATE ks.recn SET n = n + 1 WHERE p = ?", text(fmt.Sprintf("w%d", w))); err != nil {
					return fmt.Errorf("counter: %w", err)
				}
				counts[w]++
			}
			want[w][key] = row
		}
		return nil
	})

	for w := range workers {
		for key, row := range want[w] {
			parts := strings.Split(key, "/")
			var pb int64
			var c int32
			fmt.Sscan(parts[1], &pb)
			fmt.Sscan(parts[2], &c)
			res := mustExec(t, b, "SELECT s, v, l, m FROM ks.rec WHERE p = ? AND b = ? AND c = ?", text(parts[0]), bigint(pb), intv(c))
			if len(res.Rows) != 1 {
				t.Fatalf("%s: %d rows, want 1", key, len(res.Rows))
			}
			r := res.Rows[0]
			if got := string(r[1]); got != row.v {
				t.Errorf("%s: v = %q, want %q", key, got, row.v)
			}
			if got := listInts(t, r[2]); got != row.l {
				t.Errorf("%s: l = %s, want %s", key, got, row.l)
			}
		}
		// The static column holds the last write to each partition; every
		// partition here has one row, so it is that row's.
		for key, row := range want[w] {
			parts := strings.Split(key, "/")
			var pb int64
			fmt.Sscan(parts[1], &pb)
			res := mustExec(t, b, "SELECT s FROM ks.rec WHERE p = ? AND b = ?", text(parts[0]), bigint(pb))
			if len(res.Rows) != 1 || string(res.Rows[0][0]) != row.s {
				t.Errorf("%s: static s = %v, want %q", key, res.Rows, row.s)
			}
		}
		res := mustExec(t, b, "SELECT n FROM ks.recn WHERE p = ?", text(fmt.Sprintf("w%d", w)))
		if len(res.Rows) != 1 || int64(beUint64(res.Rows[0][0])) != counts[w] {
			t.Errorf("counter w%d = %v, want %d", w, res.Rows, counts[w])
		}
	}
	res := mustExec(t, b, "SELECT count(*) FROM ks.rec")
	n := 0
	for w := range workers {
		n += len(want[w])
	}
	if got := int(beUint64(res.Rows[0][0])); got != n {
		t.Errorf("count(*) = %d, want %d", got, n)
	}
}

// TestRecycledReadContextsKeepTheirResults runs reads of several shapes
// from several goroutines, keeps every result, and checks them all only at
// the end: a context recycled while its result still pointed into it would
// have been overwritten by later statements by then.
func TestRecycledReadContextsKeepTheirResults(t *testing.T) {
	b, err := openEngine(t.Context(), Config{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer b.Close()
	mustExec(t, b, createKS)
	mustExec(t, b, "CREATE TABLE ks.rd (k text PRIMARY KEY, v text)")
	mustExec(t, b, "CREATE TABLE ks.rc (p text, c int, v text, PRIMARY KEY (p, c))")
	const keys = 64
	val := func(k int) string { return fmt.Sprintf("value-%d-%s", k, strings.Repeat("z", k)) }
	// Keys from 1 to ~130 bytes: some fit the context's key buffer.
	key := func(k int) string { return fmt.Sprintf("%d%s", k, strings.Repeat("k", 2*k)) }
	for k := range keys {
		mustExec(t, b, "INSERT INTO ks.rd (k, v) VALUES (?, ?)", text(key(k)), text(val(k)))
		for c := range 3 {
			mustExec(t, b, "INSERT INTO ks.rc (p, c, v) VALUES (?, ?, ?)", text(key(k)), intv(int32(c)), text(val(k+c)))
		}
	}

	type kept struct {
		what string
		res  *bindings.Result
		want [][]string // rows of text values
	}
	const workers, rounds = 4, 200
	results := make([][]kept, workers)
	eachWorker(t, workers, func(w int) error {
		for i := range rounds {
			k := (i*7 + w*13) % keys
			var q string
			var vals []bindings.Value
			var want [][]string
			var page int32
			switch i % 5 {
			case 0:
				q, vals = "SELECT v FROM ks.rd WHERE k = ?", []bindings.Value{text(key(k))}
				want = [][]string{{val(k)}}
			case 1:
				q, vals = "SELECT k, v FROM ks.rd WHERE k = ?", []bindings.Value{text(key(k))}
				want = [][]string{{key(k), val(k)}}
			case 2:
				k2 := (k + 1) % keys
				q, vals = "SELECT k, v FROM ks.rd WHERE k IN (?, ?)", []bindings.Value{text(key(k)), text(key(k2))}
				want = [][]string{{key(k), val(k)}, {key(k2), val(k2)}}
				if key(k2) < key(k) {
					want[0], want[1] = want[1], want[0]
				}
			case 3:
				q, vals, page = "SELECT p, v FROM ks.rc WHERE p = ?", []bindings.Value{text(key(k))}, 2
				want = [][]string{{key(k), val(k)}, {key(k), val(k + 1)}}
			case 4:
				q, vals = "UPDATE ks.rd SET v = 'never' WHERE k = ? IF v = 'other'", []bindings.Value{text(key(k))}
				want = [][]string{{"false", val(k)}}
			}
			res, err := b.Execute(context.Background(), &bindings.Request{Query: q, Values: vals, Consistency: bindings.One, PageSize: page})
			if err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
			if page > 0 && len(res.PagingState) == 0 {
				return fmt.Errorf("%s: no paging state after a full page", q)
			}
			results[w] = append(results[w], kept{what: fmt.Sprintf("%s %v", q, key(k)), res: res, want: want})
		}
		return nil
	})
	for w := range workers {
		for _, r := range results[w] {
			got := make([][]string, len(r.res.Rows))
			for i, row := range r.res.Rows {
				for _, v := range row {
					if len(v) == 1 && v[0] <= 1 {
						got[i] = append(got[i], fmt.Sprint(v[0] == 1))
						continue
					}
					got[i] = append(got[i], string(v))
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(r.want) {
				t.Errorf("%s: kept result %q, want %q", r.what, got, r.want)
			}
		}
	}
}

// TestPlainWritesReuseTheirContext checks that recycling happens: a plain
// INSERT allocates in the engine only its result.
func TestPlainWritesReuseTheirContext(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	b, err := openEngine(t.Context(), Config{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer b.Close()
	setupKV(t, b)
	req := &bindings.Request{Query: insertKV, Consistency: bindings.One, Values: []bindings.Value{bigint(0), text("value")}}
	var k int64
	ctx := context.Background()
	// One round first: the statement and plan caches, the pools.
	if _, err := b.Execute(ctx, req); err != nil {
		t.Fatal(err)
	}
	key := req.Values[0].Bytes
	allocs := testing.AllocsPerRun(200, func() {
		k++
		for i := range 8 {
			key[7-i] = byte(k >> (8 * i))
		}
		if _, err := b.Execute(ctx, req); err != nil {
			t.Fatal(err)
		}
	})
	// Without recycling: the context, the mutation builder and the result.
	if allocs > 1 {
		t.Errorf("%.1f allocations per plain INSERT, want at most 1 (its result)", allocs)
	}
}

// eachWorker runs fn(0..workers-1) on goroutines of their own and fails t
// with the first error any returned.
func eachWorker(t *testing.T, workers int, fn func(w int) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fn(w); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func intv(n int32) bindings.Value {
	return bindings.Value{Bytes: []byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}}
}

func beUint64(b []byte) uint64 {
	var n uint64
	for _, c := range b {
		n = n<<8 | uint64(c)
	}
	return n
}

// listInts renders a serialized list<int> as "[1 2 3]".
func listInts(t *testing.T, b []byte) string {
	t.Helper()
	if len(b) < 4 {
		t.Fatalf("list of %d bytes", len(b))
	}
	n := int(beUint64(b[:4]))
	b = b[4:]
	out := make([]string, 0, n)
	for range n {
		if len(b) < 8 {
			t.Fatalf("truncated list")
		}
		out = append(out, fmt.Sprint(int32(beUint64(b[4:8]))))
		b = b[8:]
	}
	return "[" + strings.Join(out, " ") + "]"
}
