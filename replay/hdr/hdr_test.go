package hdr

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

func TestIndexBoundsRoundTrip(t *testing.T) {
	for _, v := range []int64{0, 1, 2047, 2048, 2049, 4095, 4096, 1e6, 123456789, math.MaxInt64} {
		lo, hi := bounds(index(v))
		if v < lo || v > hi {
			t.Errorf("value %d not within its bucket [%d, %d]", v, lo, hi)
		}
		if hi-lo > v/1000+1 {
			t.Errorf("bucket of %d is too wide: [%d, %d]", v, lo, hi)
		}
	}
}

func TestQuantilesWithinRelativeError(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	h := New()
	vals := make([]int64, 100000)
	for i := range vals {
		vals[i] = int64(r.ExpFloat64() * 1e6)
		h.Record(vals[i])
	}
	sort.Slice(vals, func(i, j int) bool { return vals[i] < vals[j] })
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999, 1} {
		exact := vals[int(math.Ceil(q*float64(len(vals))))-1]
		got := h.Quantile(q)
		if diff := math.Abs(float64(got-exact)) / float64(exact); diff > 0.002 {
			t.Errorf("q%.3f = %d, exact %d (rel err %.4f)", q, got, exact, diff)
		}
	}
	if h.Max() != vals[len(vals)-1] || h.Min() != vals[0] {
		t.Errorf("min/max = %d/%d, want %d/%d", h.Min(), h.Max(), vals[0], vals[len(vals)-1])
	}
}

func TestMergeEqualsRecordingEverything(t *testing.T) {
	a, b, all := New(), New(), New()
	for i := int64(0); i < 5000; i++ {
		v := i * i
		all.Record(v)
		if i%2 == 0 {
			a.Record(v)
		} else {
			b.Record(v)
		}
	}
	a.Merge(b)
	for _, q := range []float64{0.1, 0.5, 0.99, 1} {
		if a.Quantile(q) != all.Quantile(q) {
			t.Errorf("q%v merged %d != direct %d", q, a.Quantile(q), all.Quantile(q))
		}
	}
	if a.Count() != all.Count() || a.Mean() != all.Mean() {
		t.Errorf("count/mean differ: %d/%v vs %d/%v", a.Count(), a.Mean(), all.Count(), all.Mean())
	}
}

func TestJSONRoundTrip(t *testing.T) {
	h := New()
	for _, v := range []int64{5, 5, 900, 1e5, 7e9} {
		h.Record(v)
	}
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	var g Histogram
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	for _, q := range []float64{0, 0.2, 0.5, 0.8, 1} {
		if g.Quantile(q) != h.Quantile(q) {
			t.Errorf("q%v after round trip %d, want %d", q, g.Quantile(q), h.Quantile(q))
		}
	}
	if err := json.Unmarshal([]byte(`{"buckets":[[99999999,1]]}`), &g); err == nil {
		t.Error("absurd bucket index accepted")
	}
}

func TestEmpty(t *testing.T) {
	h := New()
	if h.Quantile(0.99) != 0 || h.Min() != 0 || h.Max() != 0 || h.Mean() != 0 {
		t.Error("empty histogram reports non-zero values")
	}
}

func BenchmarkRecord(b *testing.B) {
	h := New()
	for i := 0; i < b.N; i++ {
		h.Record(int64(i) * 37)
	}
}
