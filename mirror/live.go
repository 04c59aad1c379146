package mirror

import (
	"maps"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/dohyo/dohyo/replay/hdr"
)

// The live comparison: every mirror keeps, per one-minute slice of the
// last hour, per statement class, the primary's latencies of the requests
// it applied next to its own, its errors and its compared reads. Report
// turns a window of slices into a replay-format report (the slices are
// its rounds), so a live comparison ends in the same verdict as a replay.
const (
	sliceLen       = time.Minute
	liveSlices     = 60
	maxLiveClasses = 32 // per slice; the rest is counted under otherClass
	latBins        = 256
	latGrowth      = 1.1 // bins grow by 10%: quantiles within ±5%
)

// otherClass collects the classes beyond maxLiveClasses of a slice.
const otherClass = "(other statement classes)"

// bins counts latencies in bins growing by latGrowth.
type bins [latBins]uint32

func binIndex(ns int64) int {
	if ns < 1 {
		return 0
	}
	return min(int(math.Log(float64(ns))/math.Log(latGrowth)), latBins-1)
}

func (b *bins) record(d time.Duration) { b[binIndex(int64(d))]++ }

// addTo records the bins into h at each bin's geometric middle.
func (b *bins) addTo(h *hdr.Histogram) {
	for i, n := range b {
		if n > 0 {
			h.RecordN(int64(math.Pow(latGrowth, float64(i)+0.5)), uint64(n))
		}
	}
}

// liveClass is one statement class in one slice.
type liveClass struct {
	primary, mirror bins
	ops             int64 // applied on the mirror (both latencies known)
	errs            map[string]int64
	compared, mism  int64
}

// slice is one minute of a mirror's traffic.
type slice struct {
	start   time.Time
	classes map[string]*liveClass
}

// live is one mirror's ring of slices.
type live struct {
	mu   sync.Mutex
	ring [liveSlices]*slice
}

// class returns fp's stats in the slice of now, starting a new slice
// (and dropping the one an hour old) at each minute. Called with l.mu.
func (l *live) class(now time.Time, fp string) *liveClass {
	start := now.Truncate(sliceLen)
	i := int(start.Unix()/int64(sliceLen/time.Second)) % liveSlices
	s := l.ring[i]
	if s == nil || !s.start.Equal(start) {
		s = &slice{start: start, classes: map[string]*liveClass{}}
		l.ring[i] = s
	}
	c := s.classes[fp]
	if c == nil {
		if len(s.classes) >= maxLiveClasses {
			fp = otherClass
			if c = s.classes[fp]; c != nil {
				return c
			}
		}
		c = &liveClass{}
		s.classes[fp] = c
	}
	return c
}

// applied records a request the mirror answered: the primary's latency
// next to the mirror's, and for a sampled read whether it compared equal.
func (l *live) applied(now time.Time, fp string, primary, mirror time.Duration, read, mismatch bool) {
	l.mu.Lock()
	c := l.class(now, fp)
	c.ops++
	c.primary.record(primary)
	c.mirror.record(mirror)
	if read {
		c.compared++
		if mismatch {
			c.mism++
		}
	}
	l.mu.Unlock()
}

// failed records a request the primary answered and the mirror failed.
func (l *live) failed(now time.Time, fp, code string) {
	l.mu.Lock()
	c := l.class(now, fp)
	if c.errs == nil {
		c.errs = map[string]int64{}
	}
	c.errs[code]++
	l.mu.Unlock()
}

// window returns copies of the slices that overlap [now-d, now], oldest
// first, each with its measured length (the current one is partial).
func (l *live) window(now time.Time, d time.Duration) ([]*slice, []time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	from := now.Add(-d)
	var out []*slice
	for _, s := range l.ring {
		if s == nil || !s.start.Add(sliceLen).After(from) || s.start.After(now) {
			continue
		}
		c := &slice{start: s.start, classes: make(map[string]*liveClass, len(s.classes))}
		for fp, lc := range s.classes {
			cp := *lc
			cp.errs = maps.Clone(lc.errs)
			c.classes[fp] = &cp
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].start.Before(out[j].start) })
	lens := make([]time.Duration, len(out))
	for i, s := range out {
		lens[i] = min(sliceLen, now.Sub(s.start))
	}
	return out, lens
}
