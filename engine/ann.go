package engine

// SELECT ... ORDER BY v ANN OF [...] LIMIT k: Cassandra 5.0's vector search
// through an SAI index on the vector column. The answer is exact: the rows
// the other restrictions select (read through their indexes, the partition
// key or a scan) are scored with the index's similarity function and the k
// most similar are returned, most similar first. Rows without a vector are
// never returned.

import (
	"container/heap"
	"math"
	"sort"

	"github.com/dohyo/dohyo/cql"
)

// maxANNLimit is Cassandra's bound on the LIMIT of an ANN query.
const maxANNLimit = 1000

// annPlan is a planned ANN ordering.
type annPlan struct {
	col    int // the vector column
	index  *indexInfo
	typ    *cql.Type
	term   cql.Term
	metric vectorMetric
}

// metricByName maps an index's similarity_function to its metric.
func metricByName(name string) vectorMetric {
	switch name {
	case "EUCLIDEAN":
		return metricEuclidean
	case "DOT_PRODUCT":
		return metricDotProduct
	}
	return metricCosine
}

// hasANN reports an ANN ordering.
func hasANN(s *cql.Select) bool {
	for _, o := range s.OrderBy {
		if o.ANN != nil {
			return true
		}
	}
	return false
}

// planANN checks an ANN query as Cassandra does and plans its ordering.
func (b *planner) planANN(ti *tableInfo, s *cql.Select, w *where) (*annPlan, error) {
	if len(s.OrderBy) > 1 {
		return nil, invalidf("ANN ordering does not support any other ordering")
	}
	o := s.OrderBy[0]
	c, err := ti.column(o.Column)
	if err != nil {
		return nil, err
	}
	col := ti.cols[c]
	if col.Type.Kind != cql.KindVector {
		return nil, invalidf("Unexpected receiver type '%s'; only list and vector are expected", col.Type)
	}
	var ix *indexInfo
	for _, ii := range ti.indexes {
		if ii.col == c && ii.ix.SAI && ii.ix.Target == cql.IndexSimple {
			ix = ii
		}
	}
	if ix == nil {
		return nil, invalidf("ANN ordering by vector requires the column to be indexed")
	}
	if hasINOnKey(w) {
		return nil, errIndexWithIN
	}
	indexed := func(rs []*restriction) bool {
		for _, r := range rs {
			ok := false
			for _, ii := range ti.indexes {
				ok = ok || indexAnswers(ti, ii, r)
			}
			if !ok {
				return false
			}
		}
		return true
	}
	unindexed := !indexed(w.others)
	if !w.pkExact() {
		for _, rs := range w.ck {
			unindexed = unindexed || !indexed(rs)
		}
		unindexed = unindexed || len(w.multi) > 0
	}
	if unindexed {
		return nil, invalidf("ANN ordering by vector requires all restricted column(s) to be indexed")
	}
	b.walkTerm(o.ANN, col.Type, col.Name, ti)
	return &annPlan{col: c, index: ix, typ: col.Type, term: o.ANN, metric: metricByName(ix.ix.SimilarityFunction())}, nil
}

// checkANNSelect applies the checks that need the rest of the plan.
func (p *selectPlan) checkANNSelect(s *cql.Select) error {
	switch {
	case p.sel.aggregate || len(s.GroupBy) > 0:
		return invalidf("Top-K queries can not be run with aggregation")
	case s.PerPartitionLimit != nil:
		return invalidf("Top-K queries do not support per-partition limits")
	case s.Limit == nil:
		return errTopKLimit
	}
	return nil
}

var errTopKLimit = invalidf("Top-K queries must have a limit specified and the limit must be less than the query page size")

// annRun is the execution state of an ANN query: the query vector and the
// best rows so far (a bounded min-heap on the score).
type annRun struct {
	plan  *annPlan
	query []float32
	limit int
	best  annHeap
	seq   int
}

// startANN evaluates the query vector and the limit.
func (s *selectRun) startANN() error {
	ap := s.p.ann
	b, _, err := s.x.eval(ap.typ, ap.term, s.ti.cols[ap.col].Name)
	if err != nil {
		return err
	}
	if b == nil {
		return invalidf("Unsupported null value for column %s", s.ti.cols[ap.col].Name)
	}
	q, ok := cql.VectorFloats(ap.typ, b)
	if !ok {
		return invalidf("Invalid vector value for column %s", s.ti.cols[ap.col].Name)
	}
	if ap.metric == metricCosine && allZero(q) {
		return invalidf("Function system.similarity_cosine doesn't support all-zero vectors.")
	}
	switch {
	case s.limit < 0:
		return errTopKLimit
	case s.limit > maxANNLimit:
		return invalidf("Use of ANN OF in an ORDER BY clause requires a LIMIT that is not greater than %d. LIMIT was %d", maxANNLimit, s.limit)
	}
	// As Cassandra 5.0.9 does, the top k come in one page whatever the
	// page size.
	s.ann = &annRun{plan: ap, query: q, limit: s.limit}
	s.collect, s.pageSize = true, 0
	return nil
}

// offer scores one row; rows without a vector (or that cosine cannot score)
// are not candidates. It keeps the limit best rows.
func (a *annRun) offer(s *selectRun, r, statics *cqlRow) {
	v := s.p.sel.columnValue(s.ti, selector{kind: selColumn, col: a.plan.col}, r, statics, s.env)
	vec, ok := cql.VectorFloats(a.plan.typ, v)
	if !ok {
		return
	}
	score := a.plan.metric.similarity(vec, a.query)
	if math.IsNaN(float64(score)) {
		return
	}
	a.seq++
	if len(a.best) == a.limit && !a.best[0].less(score, a.seq) {
		return
	}
	row := s.p.sel.project(s.ti, r, statics, s.env)
	if len(a.best) == a.limit {
		a.best[0] = annHit{score: score, seq: a.seq, row: row}
		heap.Fix(&a.best, 0)
		return
	}
	heap.Push(&a.best, annHit{score: score, seq: a.seq, row: row})
}

// rows returns the best rows, most similar first (read order breaks ties).
func (a *annRun) rows() [][][]byte {
	hits := append([]annHit(nil), a.best...)
	sort.Slice(hits, func(i, j int) bool { return hits[j].less(hits[i].score, hits[i].seq) })
	out := make([][][]byte, len(hits))
	for i, h := range hits {
		out[i] = h.row
	}
	return out
}

type annHit struct {
	score float32
	seq   int
	row   [][]byte
}

// less reports that h ranks below a row with this score read at seq.
func (h annHit) less(score float32, seq int) bool {
	if h.score != score {
		return h.score < score
	}
	return h.seq > seq
}

// annHeap is a min-heap: the worst kept row on top.
type annHeap []annHit

func (h annHeap) Len() int           { return len(h) }
func (h annHeap) Less(i, j int) bool { return h[i].less(h[j].score, h[j].seq) }
func (h annHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *annHeap) Push(x any)        { *h = append(*h, x.(annHit)) }
func (h *annHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// restrictsVectorIndex reports a WHERE restriction on a column with an SAI
// vector index, which Cassandra refuses (the index answers ANN only).
func restrictsVectorIndex(ti *tableInfo, w *where) bool {
	var all []*restriction
	for _, rs := range w.pk {
		all = append(all, rs...)
	}
	for _, rs := range w.ck {
		all = append(all, rs...)
	}
	all = append(all, w.others...)
	for _, r := range all {
		if r.token || r.multi {
			continue
		}
		for _, ii := range ti.indexes {
			if ii.ix.SAI && ii.col == r.cols[0] && ti.cols[ii.col].Type.Kind == cql.KindVector {
				return true
			}
		}
	}
	return false
}
