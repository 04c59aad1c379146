package engine_test

import (
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/embedded"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/engine"
)

// annData is a clustered data set: centers ~ N(0, 1)^dim, points = a
// center + N(0, spread²) noise; queries are drawn the same way.
func annData(r *rand.Rand, n, dim, clusters int, spread float64) (vecs [][]float32, centers [][]float32) {
	centers = make([][]float32, clusters)
	for i := range centers {
		centers[i] = make([]float32, dim)
		for j := range centers[i] {
			centers[i][j] = float32(r.NormFloat64())
		}
	}
	vecs = make([][]float32, n)
	for i := range vecs {
		c := centers[r.IntN(clusters)]
		vecs[i] = make([]float32, dim)
		for j := range vecs[i] {
			vecs[i][j] = c[j] + float32(spread*r.NormFloat64())
		}
	}
	return vecs, centers
}

func vectorBytes(v []float32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, f := range v {
		b = binary.BigEndian.AppendUint32(b, math.Float32bits(f))
	}
	return b
}

// exactTopK is a float64 cosine brute force.
func exactTopK(vecs [][]float32, q []float32, k int) map[int32]bool {
	type hit struct {
		id int
		s  float64
	}
	hits := make([]hit, len(vecs))
	var qn float64
	for _, f := range q {
		qn += float64(f) * float64(f)
	}
	for i, v := range vecs {
		var d, n float64
		for j := range v {
			d += float64(v[j]) * float64(q[j])
			n += float64(v[j]) * float64(v[j])
		}
		hits[i] = hit{i, d / math.Sqrt(n*qn)}
	}
	sort.Slice(hits, func(a, b int) bool { return hits[a].s > hits[b].s })
	out := map[int32]bool{}
	for _, h := range hits[:k] {
		out[int32(h.id)] = true
	}
	return out
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// BenchmarkANNRecall builds a cosine vector index over DOHYO_ANN_N
// (default 100000) clustered 128-dimensional vectors in the embedded
// engine on an in-memory Pebble store (bindings/embedded), then runs DOHYO_ANN_QUERIES (default 50) ANN
// queries with LIMIT 10 through the index and the same queries scoring
// every row (exact), alternating, and reports recall@10 against a float64
// brute force and the latency of both:
//
//	go test -run '^$' -bench BenchmarkANNRecall -benchtime 1x -timeout 60m ./engine/
func BenchmarkANNRecall(b *testing.B) {
	n, nq := envInt("DOHYO_ANN_N", 100000), envInt("DOHYO_ANN_QUERIES", 50)
	const dim, k = 128, 10
	r := rand.New(rand.NewPCG(42, 43))
	vecs, centers := annData(r, n, dim, 100, 0.35)
	ctx := context.Background()
	st, err := embedded.OpenStore(embedded.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	e, err := engine.New(ctx, st, engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (id int PRIMARY KEY, v vector<float, 128>)",
		"CREATE INDEX ON ks.t (v) USING 'sai'",
	} {
		if _, err := e.Execute(ctx, &bindings.Request{Query: q}); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
	ins, err := cql.Parse("INSERT INTO t (id, v) VALUES (?, ?)")
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	for i, v := range vecs {
		_, err := e.Execute(ctx, &bindings.Request{Keyspace: "ks", Query: "INSERT INTO t (id, v) VALUES (?, ?)", Parsed: ins,
			Values: []bindings.Value{{Bytes: binary.BigEndian.AppendUint32(nil, uint32(i))}, {Bytes: vectorBytes(v)}}})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("inserted %d vectors of %d dimensions in %v", n, dim, time.Since(start).Round(time.Millisecond))
	sel, err := cql.Parse("SELECT id FROM t ORDER BY v ANN OF ? LIMIT 10")
	if err != nil {
		b.Fatal(err)
	}
	query := func(q []float32) (map[int32]bool, time.Duration) {
		t0 := time.Now()
		res, err := e.Execute(ctx, &bindings.Request{Keyspace: "ks", Query: "SELECT id FROM t ORDER BY v ANN OF ? LIMIT 10", Parsed: sel,
			Values: []bindings.Value{{Bytes: vectorBytes(q)}}})
		if err != nil {
			b.Fatal(err)
		}
		out := map[int32]bool{}
		for _, row := range res.Rows {
			out[int32(binary.BigEndian.Uint32(row[0]))] = true
		}
		return out, time.Since(t0)
	}
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		var found, exactFound int
		var annTime, exactTime time.Duration
		for i := 0; i < nq; i++ {
			c := centers[r.IntN(len(centers))]
			q := make([]float32, dim)
			for j := range q {
				q[j] = c[j] + float32(0.35*r.NormFloat64())
			}
			truth := exactTopK(vecs, q, k)
			engine.SetANNExact(e, false)
			got, d := query(q)
			annTime += d
			engine.SetANNExact(e, true)
			gotExact, d := query(q)
			exactTime += d
			engine.SetANNExact(e, false)
			for id := range got {
				if truth[id] {
					found++
				}
			}
			for id := range gotExact {
				if truth[id] {
					exactFound++
				}
			}
		}
		recall := float64(found) / float64(nq*k)
		b.ReportMetric(recall, "recall@10")
		b.ReportMetric(float64(exactFound)/float64(nq*k), "exact-recall@10")
		b.ReportMetric(float64(annTime.Microseconds())/float64(nq), "ann-µs/query")
		b.ReportMetric(float64(exactTime.Microseconds())/float64(nq), "exact-µs/query")
		b.Logf("n=%d queries=%d candidates=%d recall@10=%.3f (exact scan %.3f) ann %v/query, exact %v/query (ratio %.1fx)",
			n, nq, engine.ANNCandidates(k), recall, float64(exactFound)/float64(nq*k), annTime/time.Duration(nq), exactTime/time.Duration(nq),
			float64(exactTime)/float64(annTime))
	}
}
