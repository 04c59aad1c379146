package soak

import (
	"sort"
	"sync"
	"time"

	"github.com/dohyo/dohyo/replay/hdr"
)

// maxErrorEvents bounds the error events kept for the verdict; past it
// every further error counts as outside any fault window (the verdict can
// only be wrong towards failing).
const maxErrorEvents = 1 << 20

// ErrorEvent is one failed request: when it was due and when it ended
// (seconds since the run's start), its operation, keyspace and class.
type ErrorEvent struct {
	Due, End float64
	Op       string
	Keyspace string
	Class    string
}

// recorder collects the clients' outcomes: per sampling interval (reset
// at each sample), per report period, and in total.
type recorder struct {
	start time.Time

	mu       sync.Mutex
	ops      int64 // in the current interval
	errs     int64
	stale    int64
	lat      *hdr.Histogram // current interval: latency from the intended send time, ns
	periods  []*hdr.Histogram
	period   time.Duration
	totalOps map[string]int64
	classes  map[string]int64  // error class → count
	example  map[string]string // error class → first message
	events   []ErrorEvent
	dropped  int64 // errors past maxErrorEvents
	staleAll int64
}

func newRecorder(start time.Time, period time.Duration) *recorder {
	return &recorder{start: start, period: period, lat: hdr.New(), totalOps: map[string]int64{},
		classes: map[string]int64{}, example: map[string]string{}}
}

func (r *recorder) since(t time.Time) float64 { return t.Sub(r.start).Seconds() }

// record one finished request.
func (r *recorder) record(ks, op string, due, end time.Time, o outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ops++
	r.totalOps[op]++
	if o.stale {
		r.stale++
		r.staleAll++
	}
	if o.err != nil {
		r.errs++
		c := ErrorClass(o.err)
		r.classes[c]++
		if _, ok := r.example[c]; !ok {
			r.example[c] = o.err.Error()
		}
		if len(r.events) < maxErrorEvents {
			r.events = append(r.events, ErrorEvent{Due: r.since(due), End: r.since(end), Op: op, Keyspace: ks, Class: c})
		} else {
			r.dropped++
		}
		return
	}
	d := end.Sub(due).Nanoseconds()
	r.lat.Record(d)
	p := int(due.Sub(r.start) / r.period)
	for len(r.periods) <= p {
		r.periods = append(r.periods, hdr.New())
	}
	r.periods[p].Record(d)
}

// ClientSample is the clients' figures over one sampling interval.
type ClientSample struct {
	Ops    int64   `json:"ops"`
	Rate   float64 `json:"ops_per_s"`
	Errors int64   `json:"errors"`
	Stale  int64   `json:"stale_reads"`
	P50    float64 `json:"p50_ms"` // latency from the intended send time
	P99    float64 `json:"p99_ms"`
	Max    float64 `json:"max_ms"`
}

// cut returns the interval's figures and starts the next interval.
func (r *recorder) cut(interval time.Duration) ClientSample {
	r.mu.Lock()
	defer r.mu.Unlock()
	ms := func(ns int64) float64 { return float64(ns) / 1e6 }
	s := ClientSample{Ops: r.ops, Rate: float64(r.ops) / interval.Seconds(), Errors: r.errs, Stale: r.stale}
	if r.lat.Count() > 0 {
		s.P50, s.P99, s.Max = ms(r.lat.Quantile(.5)), ms(r.lat.Quantile(.99)), ms(r.lat.Max())
	}
	r.ops, r.errs, r.stale, r.lat = 0, 0, 0, hdr.New()
	return s
}

// PeriodLatency is the latency over one report period.
type PeriodLatency struct {
	From, To float64 // seconds
	Ops      uint64
	P50, P99 float64 // ms
	P999     float64
}

// totals are the run's figures once it is over.
type totals struct {
	Ops      map[string]int64
	Classes  map[string]int64
	Examples map[string]string
	Events   []ErrorEvent
	Dropped  int64
	Stale    int64
	Periods  []PeriodLatency
}

func (r *recorder) totals() totals {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := totals{Ops: r.totalOps, Classes: r.classes, Examples: r.example, Events: r.events, Dropped: r.dropped, Stale: r.staleAll}
	sort.Slice(t.Events, func(i, j int) bool { return t.Events[i].Due < t.Events[j].Due })
	ms := func(ns int64) float64 { return float64(ns) / 1e6 }
	for i, h := range r.periods {
		p := PeriodLatency{From: (time.Duration(i) * r.period).Seconds(), To: (time.Duration(i+1) * r.period).Seconds(), Ops: h.Count()}
		if h.Count() > 0 {
			p.P50, p.P99, p.P999 = ms(h.Quantile(.5)), ms(h.Quantile(.99)), ms(h.Quantile(.999))
		}
		t.Periods = append(t.Periods, p)
	}
	return t
}
