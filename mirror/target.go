package mirror

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// job is one request to re-apply (or re-read) on a mirror.
type job struct {
	o      bindings.Observation
	parsed *cql.Parsed
	ks     string
	kind   kind
	queued time.Time
	done   chan struct{} // flush markers only
	bar    *barrier      // schema statements: one per mirror, in every queue
}

// barrier holds a mirror's workers at a schema statement: the last to
// reach it applies the statement (every request queued before it on any
// worker applied by then), and they all go on after it.
type barrier struct {
	waiting atomic.Int32 // workers still to arrive
	dropped atomic.Bool  // a queue was full: the statement is not applied
	j       *job
	done    chan struct{}
}

// State of a mirror.
const (
	StateOK     = "ok"     // keeping up
	StateBehind = "behind" // its queue is over half full
	StateDown   = "down"   // its last requests failed as unavailable
)

// downAfter is how many consecutive unavailable answers mark a mirror down.
const downAfter = 3

// target is one mirror's queues, workers and counters.
type target struct {
	m      *Mirror
	t      Target
	queues []chan *job

	sent, applied, dropped, failed atomic.Int64
	compared, mismatched           atomic.Int64
	queued                         atomic.Int64
	unavailableRun                 atomic.Int64
	lagNs                          atomic.Int64 // queue time of the last applied request

	mu       sync.Mutex
	errs     map[string]int64 // by error code
	examples []Mismatch
	state    string
	lat      map[string]*latency // by statement class (fingerprint)
	live     live                // the last hour by minute, for Report
}

// latency sums a class's latencies on the primary and on this mirror.
type latency struct {
	N                   int64
	PrimaryNs, MirrorNs int64
	Compared, Mismatch  int64 // sampled reads of the class
}

// Mismatch is one sampled read whose mirror answer differed.
type Mismatch struct {
	Time      time.Time `json:"time"`
	Keyspace  string    `json:"keyspace"`
	Statement string    `json:"statement"`
	Values    string    `json:"values"`
	Primary   string    `json:"primary"` // rows and digest
	Mirror    string    `json:"mirror"`
}

// Status is one mirror's state and counters.
type Status struct {
	Name       string           `json:"name"`
	State      string           `json:"state"`
	Sent       int64            `json:"sent"`    // accepted into its queue
	Applied    int64            `json:"applied"` // answered without error
	Failed     int64            `json:"failed"`
	Dropped    int64            `json:"dropped"` // queue full: never sent
	Queued     int64            `json:"queued"`
	LagMs      float64          `json:"lag_ms"` // queue time of the last applied request
	Errors     map[string]int64 `json:"errors,omitempty"`
	Compared   int64            `json:"reads_compared"`
	Mismatches int64            `json:"mismatches"`
	Examples   []Mismatch       `json:"examples,omitempty"`
	// Classes are mean latencies per statement class, primary vs mirror.
	Classes map[string]ClassLatency `json:"classes,omitempty"`
}

// ClassLatency is one statement class's mean latency on both sides and
// its sampled reads.
type ClassLatency struct {
	N          int64   `json:"n"`
	PrimaryMs  float64 `json:"primary_ms"`
	MirrorMs   float64 `json:"mirror_ms"`
	Compared   int64   `json:"reads_compared,omitempty"`
	Mismatches int64   `json:"mismatches,omitempty"`
}

func newTarget(m *Mirror, t Target, depth, workers int) *target {
	tg := &target{m: m, t: t, errs: map[string]int64{}, state: StateOK, lat: map[string]*latency{}}
	for i := 0; i < workers; i++ {
		q := make(chan *job, depth)
		tg.queues = append(tg.queues, q)
		m.wg.Add(1)
		go tg.work(q)
	}
	return tg
}

// enqueue hands j to its partition's worker, or drops it when that queue
// is full (the primary is never made to wait).
func (t *target) enqueue(shard uint64, j *job) {
	q := t.queues[shard%uint64(len(t.queues))]
	select {
	case q <- j:
		t.sent.Add(1)
		if n := t.queued.Add(1); n > int64(cap(q)*len(t.queues)/2) {
			t.setState(StateBehind)
		}
	default:
		t.dropped.Add(1)
		t.setState(StateBehind)
	}
}

func (t *target) work(q chan *job) {
	defer t.m.wg.Done()
	for j := range q {
		if j.done != nil {
			close(j.done)
			continue
		}
		t.queued.Add(-1)
		if j.bar != nil {
			t.arrive(j.bar)
			continue
		}
		t.apply(j)
	}
}

// enqueueBarrier puts a schema statement in every queue of the mirror.
// A full queue drops it (counted, never waited for); the workers that got
// it still meet, and nobody applies it.
func (t *target) enqueueBarrier(j *job) {
	b := &barrier{j: j, done: make(chan struct{})}
	b.waiting.Store(int32(len(t.queues)))
	bj := &job{bar: b}
	for _, q := range t.queues {
		select {
		case q <- bj:
			t.queued.Add(1)
		default:
			if !b.dropped.Swap(true) {
				t.dropped.Add(1)
				t.setState(StateBehind)
			}
			// Arrive for this queue without waiting: the caller is the
			// primary's request, which never waits for a mirror.
			if b.waiting.Add(-1) == 0 {
				close(b.done)
			}
		}
	}
	if !b.dropped.Load() {
		t.sent.Add(1)
	}
}

// arrive is a worker (or a queue that could not take the barrier)
// reaching b: the last one applies the statement and lets the others go.
func (t *target) arrive(b *barrier) {
	if b.waiting.Add(-1) > 0 {
		<-b.done
		return
	}
	if !b.dropped.Load() {
		t.apply(b.j)
	}
	close(b.done)
}

// apply runs one request on the mirror with the primary's values,
// consistency and timestamp, and compares a read's rows.
func (t *target) apply(j *job) {
	ctx, cancel := context.WithTimeout(context.Background(), t.m.cfg.Timeout)
	defer cancel()
	t.lagNs.Store(int64(t.m.now().Sub(j.queued)))
	o := &j.o
	req := &bindings.Request{Keyspace: o.Keyspace, Query: o.Query, Parsed: j.parsed, Values: o.Values, Names: o.Names,
		Consistency: o.Consistency, SerialConsistency: o.SerialConsistency, PageSize: o.PageSize,
		Timestamp: o.Timestamp, HasTimestamp: o.HasTimestamp}
	start := time.Now()
	res, err := t.t.Backend.Execute(ctx, req)
	took := time.Since(start)
	if err != nil {
		t.failed.Add(1)
		code := bindings.AsError(err).Code
		t.mu.Lock()
		t.errs[code.String()]++
		t.mu.Unlock()
		t.live.failed(t.m.now(), cql.Fingerprint(o.Query), code.String())
		if code == bindings.CodeUnavailable || ctx.Err() != nil {
			if t.unavailableRun.Add(1) == downAfter {
				t.setState(StateDown)
			}
		}
		return
	}
	t.applied.Add(1)
	t.unavailableRun.Store(0)
	t.setState(t.calmState())
	read := j.kind == kindRead
	mismatch := read && !t.compare(j.ks, o, res)
	fp := cql.Fingerprint(o.Query)
	t.mu.Lock()
	l := t.lat[fp]
	if l == nil && len(t.lat) < 256 { // bounded: the first classes seen
		l = &latency{}
		t.lat[fp] = l
	}
	if l != nil {
		l.N++
		l.PrimaryNs += int64(o.Latency)
		l.MirrorNs += int64(took)
		if read {
			l.Compared++
		}
		if mismatch {
			l.Mismatch++
		}
	}
	t.mu.Unlock()
	t.live.applied(t.m.now(), fp, o.Latency, took, read, mismatch)
}

// compare checks a sampled read's first page against the primary's, as
// an order-insensitive digest of the rows.
func (t *target) compare(ks string, o *bindings.Observation, res *bindings.Result) (equal bool) {
	t.compared.Add(1)
	var rows int
	var d uint64
	if res != nil {
		rows, d = len(res.Rows), bindings.RowsDigest(res.Rows)
	}
	if rows == o.Rows && d == o.Digest {
		return true
	}
	t.mismatched.Add(1)
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.examples) < maxExamples {
		t.examples = append(t.examples, Mismatch{Time: o.Time, Keyspace: ks, Statement: o.Query,
			Values: valuesText(o.Values), Primary: fmt.Sprintf("%d rows, digest %016x", o.Rows, o.Digest),
			Mirror: fmt.Sprintf("%d rows, digest %016x", rows, d)})
	}
	return false
}

func (t *target) calmState() string {
	if t.queued.Load() > int64(cap(t.queues[0])*len(t.queues)/2) {
		return StateBehind
	}
	return StateOK
}

func (t *target) setState(s string) {
	t.mu.Lock()
	old := t.state
	t.state = s
	t.mu.Unlock()
	if old != s {
		t.m.log.Warn("mirror state changed", "mirror", t.t.Name, "from", old, "to", s,
			"dropped", t.dropped.Load(), "queued", t.queued.Load())
	}
}

func (t *target) status() Status {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := Status{Name: t.t.Name, State: t.state, Sent: t.sent.Load(), Applied: t.applied.Load(),
		Failed: t.failed.Load(), Dropped: t.dropped.Load(), Queued: t.queued.Load(),
		LagMs: float64(t.lagNs.Load()) / 1e6, Errors: map[string]int64{}, Compared: t.compared.Load(),
		Mismatches: t.mismatched.Load(), Examples: append([]Mismatch(nil), t.examples...),
		Classes: map[string]ClassLatency{}}
	for k, v := range t.errs {
		st.Errors[k] = v
	}
	for fp, l := range t.lat {
		st.Classes[fp] = ClassLatency{N: l.N, PrimaryMs: float64(l.PrimaryNs) / float64(l.N) / 1e6,
			MirrorMs: float64(l.MirrorNs) / float64(l.N) / 1e6, Compared: l.Compared, Mismatches: l.Mismatch}
	}
	return st
}

// flush waits for every worker to pass a marker queued behind the jobs
// queued so far.
func (t *target) flush(ctx context.Context) error {
	for _, q := range t.queues {
		j := &job{done: make(chan struct{})}
		select {
		case q <- j:
		case <-ctx.Done():
			return ctx.Err()
		}
		select {
		case <-j.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func (t *target) close() {
	for _, q := range t.queues {
		close(q)
	}
}

// valuesText renders bound values briefly for an example (hex, cut).
func valuesText(vs []bindings.Value) string {
	out := ""
	for i, v := range vs {
		if i > 0 {
			out += ", "
		}
		if v.Bytes == nil {
			out += "null"
			continue
		}
		b := v.Bytes
		if len(b) > 16 {
			b = b[:16]
		}
		out += fmt.Sprintf("0x%x", b)
		if len(v.Bytes) > 16 {
			out += "…"
		}
	}
	return out
}
