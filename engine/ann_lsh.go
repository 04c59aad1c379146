package engine

// The approximate vector index. An SAI index on a vector<float, n> column
// is an IVF-style index whose lists are random-hyperplane buckets: each
// vector's entry is filed under the bucket of its sign pattern against
// lshBits hyperplanes (Gaussian, generated from the index id, so every
// engine of a tier derives the same ones with no shared state but the
// schema). The lists are ordinary index entries in the index's KV table
// (bucket term, then the base row key), written with every base write and
// verified on read like every other index entry (index.go). A query probes
// the buckets nearest its own (multi-probe: fewest, smallest-margin bit
// flips first) until it holds annCandidates(k) candidate rows, then scores
// them exactly; an index with no more entries than that is read whole, so
// small tables get exact answers.

import (
	"context"
	"encoding/binary"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

// lshBits is the number of hyperplanes (2^lshBits buckets).
const lshBits = 10

// defaultANNCandidates is the least number of candidate rows an ANN query
// over a vector index gathers before scoring (docs/BENCHMARKS.md, "Vector
// search", gives the recall it reaches).
const defaultANNCandidates = 8000

// annCandidates is how many candidate rows an ANN query with LIMIT k
// gathers (min overrides the default when positive, for tests).
func annCandidates(k, min int) int {
	if min <= 0 {
		min = defaultANNCandidates
	}
	return max(800*k, min)
}

// lshIndex holds an index's hyperplanes.
type lshIndex struct {
	dim    int
	planes [][]float32 // lshBits × dim
}

// newLSH derives the hyperplanes of a vector index from its id.
func newLSH(ix *schema.Index, dim int) *lshIndex {
	h := fnv.New64a()
	h.Write([]byte(ix.ID))
	seed := h.Sum64()
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	l := &lshIndex{dim: dim, planes: make([][]float32, lshBits)}
	for i := range l.planes {
		p := make([]float32, dim)
		for j := range p {
			p[j] = float32(r.NormFloat64())
		}
		l.planes[i] = p
	}
	return l
}

// projections are a vector's signed distances to the hyperplanes.
func (l *lshIndex) projections(v []float32) []float32 {
	out := make([]float32, len(l.planes))
	for i, p := range l.planes {
		var d float32
		for j := range p {
			d += p[j] * v[j]
		}
		out[i] = d
	}
	return out
}

func bucketOf(proj []float32) uint32 {
	var b uint32
	for i, d := range proj {
		if d >= 0 {
			b |= 1 << i
		}
	}
	return b
}

// bucketTerm is the index term of a bucket: self-delimiting and ordered.
func bucketTerm(b uint32) []byte {
	return indexTerm(nil, cql.Scalar(cql.KindInt), binary.BigEndian.AppendUint32(nil, b))
}

// vectorTerm is the index term of a vector value (nil when malformed).
func (ii *indexInfo) vectorTerm(v []byte) []byte {
	f, ok := cql.VectorFloats(ii.term, v)
	if !ok {
		return nil
	}
	return bucketTerm(bucketOf(ii.lsh.projections(f)))
}

// probeOrder ranks buckets for a query: by the summed margins of the bits
// that differ from the query's own bucket (its own bucket first).
func (l *lshIndex) probeOrder(q []float32) []uint32 {
	proj := l.projections(q)
	own := bucketOf(proj)
	cost := make([]float32, 1<<lshBits)
	order := make([]uint32, 1<<lshBits)
	for b := range order {
		order[b] = uint32(b)
		diff := uint32(b) ^ own
		var c float32
		for i := 0; diff != 0; i, diff = i+1, diff>>1 {
			if diff&1 != 0 {
				c += float32(math.Abs(float64(proj[i])))
			}
		}
		cost[b] = c
	}
	sort.SliceStable(order, func(i, j int) bool { return cost[order[i]] < cost[order[j]] })
	return order
}

// openANNSource gathers the candidate rows of an ANN query from the
// vector index's buckets.
func (s *selectRun) openANNSource(ctx context.Context, ranges []KeyRange) (*indexSource, error) {
	ti, ii := s.ti, s.p.ann.index
	src := &indexSource{ti: ti, x: s.x, ranges: ranges}
	want := annCandidates(s.ann.limit, s.x.e.annMinCandidates)
	seen := map[string]bool{}
	add := func(base []byte) {
		if !seen[string(base)] && src.partitionInRange(base) {
			seen[string(base)] = true
			src.cands = append(src.cands, base)
		}
	}
	// Small index: read it whole (exact).
	n, all := 0, true
	if err := s.x.scanIndexUntil(ctx, ii, KeyRange{}, want+1, func(base []byte) bool {
		n++
		if n > want {
			all = false
			return false
		}
		add(base)
		return true
	}); err != nil {
		return nil, err
	}
	if !all {
		src.cands, seen = src.cands[:0], map[string]bool{}
		for _, b := range ii.lsh.probeOrder(s.ann.query) {
			term := bucketTerm(b)
			if err := s.x.scanIndexUntil(ctx, ii, KeyRange{Start: term, Stop: prefixEnd(term)}, 0, func(base []byte) bool {
				add(base)
				return true
			}); err != nil {
				return nil, err
			}
			if len(src.cands) >= want {
				break
			}
		}
	}
	slices.SortFunc(src.cands, ti.codec.MergeCompare)
	return src, nil
}

// scanIndexUntil calls fn with the base key of the entries of ii in rg
// until fn returns false.
func (x *execCtx) scanIndexUntil(ctx context.Context, ii *indexInfo, rg KeyRange, hint int, fn func(base []byte) bool) error {
	stop := errStopScan
	err := x.scanIndexFn(ctx, ii, rg, hint, func(base []byte) error {
		if !fn(base) {
			return stop
		}
		return nil
	})
	if err == stop {
		return nil
	}
	return err
}
