package hdr

import (
	"encoding/json"
	"errors"
	"math"
	"math/bits"
)

// Values below linearLimit get one bucket each; above it every power of two
// is split into halfSub buckets, which bounds the relative error by 1/1024.
const (
	linearLimit = 2048
	halfSub     = 1024
)

// Histogram counts int64 values >= 0 (negative values are recorded as 0).
// It is not safe for concurrent use; give each goroutine its own and Merge.
type Histogram struct {
	counts []uint64
	total  uint64
	min    int64
	max    int64
	sum    float64
}

// New returns an empty histogram.
func New() *Histogram { return &Histogram{min: math.MaxInt64} }

func index(v int64) int {
	if v < linearLimit {
		return int(v)
	}
	msb := 63 - bits.LeadingZeros64(uint64(v))
	shift := msb - 10
	sub := int(v >> uint(shift))
	return linearLimit + (shift-1)*halfSub + (sub - halfSub)
}

// bounds returns the lowest and highest value that map to bucket i.
func bounds(i int) (lo, hi int64) {
	if i < linearLimit {
		return int64(i), int64(i)
	}
	j := i - linearLimit
	shift := uint(j/halfSub + 1)
	sub := int64(j%halfSub + halfSub)
	return sub << shift, (sub+1)<<shift - 1
}

// Record adds one value.
func (h *Histogram) Record(v int64) { h.RecordN(v, 1) }

// RecordN adds n occurrences of v.
func (h *Histogram) RecordN(v int64, n uint64) {
	if n == 0 {
		return
	}
	if v < 0 {
		v = 0
	}
	i := index(v)
	if i >= len(h.counts) {
		// Geometric growth: a latency histogram reaches its final size in
		// a few steps instead of one copy per new maximum.
		grown := make([]uint64, max(i+1+i/8, 2*len(h.counts)))
		copy(grown, h.counts)
		h.counts = grown
	}
	h.counts[i] += n
	h.total += n
	h.sum += float64(v) * float64(n)
	if v < h.min {
		h.min = v
	}
	if v > h.max {
		h.max = v
	}
}

// Count is the number of recorded values.
func (h *Histogram) Count() uint64 { return h.total }

// Min and Max are the exact extremes (0 when empty).
func (h *Histogram) Min() int64 {
	if h.total == 0 {
		return 0
	}
	return h.min
}

// Max is the largest recorded value.
func (h *Histogram) Max() int64 { return h.max }

// Mean is the exact arithmetic mean.
func (h *Histogram) Mean() float64 {
	if h.total == 0 {
		return 0
	}
	return h.sum / float64(h.total)
}

// Quantile returns the value at q in [0, 1]: the highest value equivalent to
// the bucket holding the q-th recorded value, capped by Max.
func (h *Histogram) Quantile(q float64) int64 {
	if h.total == 0 {
		return 0
	}
	if q <= 0 {
		return h.min
	}
	rank := uint64(math.Ceil(q * float64(h.total)))
	if rank < 1 {
		rank = 1
	}
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			_, hi := bounds(i)
			if hi > h.max {
				hi = h.max
			}
			if hi < h.min {
				hi = h.min
			}
			return hi
		}
	}
	return h.max
}

// Merge adds every value of o into h.
func (h *Histogram) Merge(o *Histogram) {
	if o == nil || o.total == 0 {
		return
	}
	if len(o.counts) > len(h.counts) {
		grown := make([]uint64, len(o.counts))
		copy(grown, h.counts)
		h.counts = grown
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.total += o.total
	h.sum += o.sum
	if o.min < h.min {
		h.min = o.min
	}
	if o.max > h.max {
		h.max = o.max
	}
}

// CDF returns (value, fraction <= value) points, one per non-empty bucket.
func (h *Histogram) CDF() [][2]float64 {
	var out [][2]float64
	var seen uint64
	for i, c := range h.counts {
		if c == 0 {
			continue
		}
		seen += c
		_, hi := bounds(i)
		out = append(out, [2]float64{float64(min(hi, h.max)), float64(seen) / float64(h.total)})
	}
	return out
}

// wire is the JSON form: sparse (index, count) pairs.
type wire struct {
	Buckets [][2]uint64 `json:"buckets"`
	Min     int64       `json:"min"`
	Max     int64       `json:"max"`
	Sum     float64     `json:"sum"`
}

// MarshalJSON encodes the histogram losslessly.
func (h *Histogram) MarshalJSON() ([]byte, error) {
	w := wire{Min: h.Min(), Max: h.max, Sum: h.sum, Buckets: [][2]uint64{}}
	for i, c := range h.counts {
		if c != 0 {
			w.Buckets = append(w.Buckets, [2]uint64{uint64(i), c})
		}
	}
	return json.Marshal(w)
}

// errBadIndex rejects bucket indexes beyond the largest int64 value.
var errBadIndex = errors.New("hdr: bucket index out of range")

// UnmarshalJSON decodes MarshalJSON's output.
func (h *Histogram) UnmarshalJSON(b []byte) error {
	var w wire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*h = *New()
	limit := uint64(index(math.MaxInt64))
	for _, bc := range w.Buckets {
		if bc[0] > limit {
			return errBadIndex
		}
		lo, _ := bounds(int(bc[0]))
		h.RecordN(lo, bc[1])
	}
	if h.total > 0 {
		h.min, h.max, h.sum = w.Min, w.Max, w.Sum
	}
	return nil
}
