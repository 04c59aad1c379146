package widecolumn

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
