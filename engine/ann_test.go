package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/dohyo/dohyo/bindings"
)

// TestANNExactTopK checks ORDER BY ANN OF against a float64 brute force of
// each similarity function on random vectors (ties are improbable), with
// and without a partition restriction.
func TestANNExactTopK(t *testing.T) {
	const n, dim, k = 300, 8, 10
	r := rand.New(rand.NewPCG(1, 2))
	vecs := make([][]float32, n)
	for i := range vecs {
		vecs[i] = make([]float32, dim)
		for j := range vecs[i] {
			vecs[i][j] = float32(r.NormFloat64())
		}
	}
	score := map[string]func(a, b []float32) float64{
		"cosine": func(a, b []float32) float64 {
			var d, x, y float64
			for i := range a {
				d += float64(a[i]) * float64(b[i])
				x += float64(a[i]) * float64(a[i])
				y += float64(b[i]) * float64(b[i])
			}
			return d / math.Sqrt(x*y)
		},
		"euclidean": func(a, b []float32) float64 {
			var d float64
			for i := range a {
				d += (float64(a[i]) - float64(b[i])) * (float64(a[i]) - float64(b[i]))
			}
			return -d
		},
		"dot_product": func(a, b []float32) float64 {
			var d float64
			for i := range a {
				d += float64(a[i]) * float64(b[i])
			}
			return d
		},
	}
	for name, f := range score {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t)
			h.exec("CREATE TABLE t (p int, id int, v vector<float, 8>, PRIMARY KEY (p, id))")
			h.exec(fmt.Sprintf("CREATE INDEX ON t (v) USING 'sai' WITH OPTIONS = {'similarity_function': '%s'}", name))
			for i, v := range vecs {
				h.exec("INSERT INTO t (p, id, v) VALUES (?, ?, ?)", int32(i%3), int32(i), v)
			}
			q := vecs[7]
			for _, part := range []int{-1, 1} {
				var want []string
				ids := []int{}
				for i := range vecs {
					if part < 0 || i%3 == part {
						ids = append(ids, i)
					}
				}
				sort.SliceStable(ids, func(a, b int) bool { return f(vecs[ids[a]], q) > f(vecs[ids[b]], q) })
				for _, i := range ids[:k] {
					want = append(want, fmt.Sprint(i))
				}
				query := "SELECT id FROM t ORDER BY v ANN OF ? LIMIT 10"
				args := []any{q}
				if part >= 0 {
					query = "SELECT id FROM t WHERE p = ? ORDER BY v ANN OF ? LIMIT 10"
					args = []any{int32(part), q}
				}
				if got := h.rows(query, args...); !slices.Equal(got, want) {
					t.Errorf("partition %d: got %v, want %v", part, got, want)
				}
			}
		})
	}
}

// TestANNOnePage checks that the top k come in one page whatever the page
// size, as Cassandra 5.0.9 answers them.
func TestANNOnePage(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (k int PRIMARY KEY, v vector<float, 2>)")
	h.exec("CREATE INDEX ON t (v) USING 'sai'")
	for i := 1; i <= 6; i++ {
		h.exec(fmt.Sprintf("INSERT INTO t (k, v) VALUES (%d, [1, %d])", i, i))
	}
	res, err := h.e.Execute(context.Background(), &bindings.Request{Keyspace: "ks", PageSize: 2,
		Query: "SELECT k FROM t ORDER BY v ANN OF [1, 0] LIMIT 5"})
	if err != nil {
		t.Fatal(err)
	}
	if got := formatRows(res); !slices.Equal(got, []string{"1", "2", "3", "4", "5"}) || res.PagingState != nil {
		t.Fatalf("got %v, paging state %x", got, res.PagingState)
	}
}

// TestANNIndexProbes runs ANN queries through the vector index's buckets
// (the candidate budget made smaller than the table): the answers are
// close to exact, and follow overwrites and deletes.
func TestANNIndexProbes(t *testing.T) {
	h := newHarness(t)
	h.e.annMinCandidates = 100
	h.exec("CREATE TABLE t (id int PRIMARY KEY, v vector<float, 16>)")
	h.exec("CREATE INDEX ON t (v) USING 'sai'")
	r := rand.New(rand.NewPCG(5, 6))
	const n = 2000
	for i := 0; i < n; i++ {
		v := make([]float32, 16)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		h.exec("INSERT INTO t (id, v) VALUES (?, ?)", int32(i), v)
	}
	found := 0
	for i := 0; i < 20; i++ {
		q := make([]float32, 16)
		for j := range q {
			q[j] = float32(r.NormFloat64())
		}
		h.e.annExact = true
		exact := h.rows("SELECT id FROM t ORDER BY v ANN OF ? LIMIT 1", q)
		h.e.annExact = false
		got := h.rows("SELECT id FROM t ORDER BY v ANN OF ? LIMIT 1", q)
		if slices.Equal(got, exact) {
			found++
		}
	}
	// 100 of 2000 rows scored per query: the best is usually among them.
	if found < 10 {
		t.Errorf("approximate top-1 matched exact %d times of 20", found)
	}
	target := make([]float32, 16)
	target[3] = 100
	h.exec("UPDATE t SET v = ? WHERE id = 7", target)
	if got := h.rows("SELECT id FROM t ORDER BY v ANN OF ? LIMIT 1", target); !slices.Equal(got, []string{"7"}) {
		t.Errorf("after overwrite: got %v", got)
	}
	h.exec("DELETE FROM t WHERE id = 7")
	if got := h.rows("SELECT id FROM t ORDER BY v ANN OF ? LIMIT 1", target); slices.Equal(got, []string{"7"}) {
		t.Errorf("deleted row returned")
	}
}
