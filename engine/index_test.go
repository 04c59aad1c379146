package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/engine/kv"
	"github.com/dohyo/dohyo/schema"
)

// TestIndexConcurrentWrites runs writers (inserts, updates, deletes, set
// additions) against indexed columns while readers query the indexes and
// a CREATE INDEX builds a new one. Every indexed answer during the run must
// hold only rows that match (stale entries never leak), and at the end
// every index answers exactly what a full read of the table says.
func TestIndexConcurrentWrites(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (k int, c int, v int, w int, s set<int>, PRIMARY KEY (k, c))")
	h.exec("CREATE INDEX ON t (v) USING 'sai'")
	h.exec("CREATE INDEX ON t (s)")
	const writers, ops, keys, vals = 6, 300, 20, 6
	// Rows the writers never touch: only the build of the index created
	// below can index them.
	for k := 100; k < 110; k++ {
		h.exec(fmt.Sprintf("INSERT INTO t (k, c, v, w) VALUES (%d, 0, %d, %d)", k, k%vals, k%vals))
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers+4)
	for g := 0; g < writers; g++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, 7))
			for i := 0; i < ops; i++ {
				k, c, v := r.IntN(keys), r.IntN(3), r.IntN(vals)
				var q string
				switch r.IntN(6) {
				case 0, 1:
					q = fmt.Sprintf("INSERT INTO t (k, c, v, w) VALUES (%d, %d, %d, %d)", k, c, v, v)
				case 2:
					q = fmt.Sprintf("UPDATE t SET v = %d, w = %d WHERE k = %d AND c = %d", v, v, k, c)
				case 3:
					q = fmt.Sprintf("DELETE FROM t WHERE k = %d AND c = %d", k, c)
				case 4:
					q = fmt.Sprintf("UPDATE t SET s = s + {%d} WHERE k = %d AND c = %d", v, k, c)
				default:
					q = fmt.Sprintf("UPDATE t SET s = s - {%d}, v = null WHERE k = %d AND c = %d", v, k, c)
				}
				if _, err := h.run(q); err != nil {
					errs <- fmt.Errorf("%s: %w", q, err)
					return
				}
			}
		}(uint64(g))
	}
	stop := make(chan struct{})
	var rg sync.WaitGroup
	for g := 0; g < 2; g++ {
		rg.Add(1)
		go func() {
			defer rg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				v := i % vals
				res, err := h.run(fmt.Sprintf("SELECT v, s FROM t WHERE v = %d", v))
				if err != nil {
					errs <- err
					return
				}
				for _, row := range formatRows(res) {
					if !strings.HasPrefix(row, fmt.Sprintf("%d |", v)) {
						errs <- fmt.Errorf("v = %d returned %q", v, row)
						return
					}
				}
			}
		}()
	}
	// An index created while the writers run must see every row.
	if _, err := h.run("CREATE INDEX ON t (w) USING 'sai'"); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(stop)
	rg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	all := h.rows("SELECT k, c, v, w, s FROM t")
	for x := 0; x < vals; x++ {
		var wantV, wantW, wantS []string
		for _, row := range all {
			f := strings.Split(row, " | ")
			kc := f[0] + " | " + f[1]
			if f[2] == fmt.Sprint(x) {
				wantV = append(wantV, kc)
			}
			if f[3] == fmt.Sprint(x) {
				wantW = append(wantW, kc)
			}
			if strings.Contains(strings.NewReplacer("{", " ", "}", " ", ",", " ").Replace(f[4]), fmt.Sprintf(" %d ", x)) {
				wantS = append(wantS, kc)
			}
		}
		for _, c := range []struct {
			q    string
			want []string
		}{
			{fmt.Sprintf("SELECT k, c FROM t WHERE v = %d", x), wantV},
			{fmt.Sprintf("SELECT k, c FROM t WHERE w = %d", x), wantW},
			{fmt.Sprintf("SELECT k, c FROM t WHERE s CONTAINS %d", x), wantS},
		} {
			got := h.rows(c.q)
			if c.want == nil {
				c.want = []string{}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("%s:\n got %q\nwant %q", c.q, got, c.want)
			}
		}
	}
	if len(all) == 0 {
		t.Fatal("no rows left: the workload proves nothing")
	}
}

// TestIndexStaleEntriesVerified checks that an index entry left behind by
// an overwrite is skipped by the read: the index answers from the rows.
func TestIndexStaleEntriesVerified(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (k int PRIMARY KEY, v int)")
	h.exec("CREATE INDEX vi ON t (v)")
	h.exec("INSERT INTO t (k, v) VALUES (1, 1)")
	h.exec("INSERT INTO t (k, v) VALUES (1, 2)")
	st := h.e.st.Load()
	ii := st.tables[tableKey{"ks", "t"}].indexes[0]
	it, err := h.kv.Scan(t.Context(), ii.spec, kv.ScanRange{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		if _, ok := it.Next(t.Context()); !ok {
			break
		}
		n++
	}
	it.Close()
	if n != 2 {
		t.Fatalf("index entries = %d, want 2 (the stale one stays)", n)
	}
	h.expectRows("SELECT k FROM t WHERE v = 1")
	h.expectRows("SELECT k FROM t WHERE v = 2", "1")
}

// TestIndexChangeIsTableUpdate checks that an index created or dropped by
// another engine of a tier reaches this engine's clients as UPDATED TABLE.
func TestIndexChangeIsTableUpdate(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (k int PRIMARY KEY, v int)")
	before := h.e.st.Load().cat
	h.exec("CREATE INDEX ON t (v)")
	after := h.e.st.Load().cat
	for _, c := range [][2]*schema.Catalog{{before, after}, {after, before}} {
		chs := diffCatalogs(c[0], c[1])
		if len(chs) != 1 || chs[0].Type != bindings.Updated || chs[0].Target != bindings.TargetTable || chs[0].Object != "t" {
			t.Errorf("changes: %+v", chs)
		}
	}
}
