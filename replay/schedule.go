package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dohyo/dohyo/capture"
)

// Mode selects how ops are paced.
type Mode int

// Pacing modes.
const (
	// ModeSpeed keeps the captured timing, scaled: due = start + (t − t0)/speed.
	ModeSpeed Mode = iota
	// ModeRate re-times the merged stream: op i is due at start + i/rate.
	ModeRate
	// ModeMax sends as fast as the target answers, Concurrency sessions at once.
	ModeMax
)

func (m Mode) String() string {
	switch m {
	case ModeSpeed:
		return "speed"
	case ModeRate:
		return "rate"
	case ModeMax:
		return "max"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// SessionKey names a captured session: sessions ids are unique per node.
type SessionKey struct {
	Node    string
	Session uint64
}

// Op is one unit of replay: a statement, or every child of one batch.
type Op struct {
	Index int64             // position in the merged stream (0-based)
	Key   SessionKey        // the captured session
	Recs  []*capture.Record // one record, or the children of a batch in order
	Check *readCheck        // non-nil for reads compared against the capture
	Time  int64             // captured time of the first record (Unix ns)
	Due   time.Time         // filled by the scheduler
	// Barrier ops (schema changes) run alone: every earlier op completes
	// before, and every later op is sent after, because other sessions'
	// statements depend on the schema they create. They are untimed: the
	// schedule pauses from a barrier's due time until it completes, so a
	// slow CREATE TABLE makes no later op late (RunStats.Paused).
	Barrier bool

	class string             // statement class for reports: the fingerprint, or "BATCH"
	out   Outcome            // what the target answered (Check.Out too, for reads)
	one   [1]*capture.Record // Recs' backing store for single statements
}

// Timing is what the scheduler measured for one op.
type Timing struct {
	Due, Sent, Done time.Time
}

// Intended is the latency from the intended send time (coordinated
// omission corrected); Actual is from the real send; Lag is send − due.
func (t Timing) Intended() time.Duration { return t.Done.Sub(t.Due) }

// Actual is the service time seen from the real send.
func (t Timing) Actual() time.Duration { return t.Done.Sub(t.Sent) }

// Lag is how late the op was sent.
func (t Timing) Lag() time.Duration { return t.Sent.Sub(t.Due) }

// ScheduleOptions configure pacing.
type ScheduleOptions struct {
	Mode        Mode
	Speed       float64 // ModeSpeed; > 0
	Rate        float64 // ModeRate, ops/s; > 0
	Concurrency int     // ModeMax; <= 0 means 1
	QueueLen    int     // per-session queue; <= 0 means 1024
	Clock       Clock   // nil means RealClock
	// Duration stops scheduling ops due later than start+Duration (0: all);
	// at ModeMax it stops dispatching once Duration of wall time passed.
	// Paused time (barriers) does not count.
	Duration time.Duration
	// MaxOps stops after this many ops (0: all).
	MaxOps int64
	// Spin is how long before each due time the pacer stops sleeping and
	// busy-waits (yielding), with a clock that supports it (RealClock):
	// Go's timers wake up to ~1 ms late on an idle process. 0 means
	// DefaultSpin, < 0 never spins (timers only, ~1 ms precision).
	Spin time.Duration
}

// DefaultSpin is the default busy-wait before each due time: a little
// more than the kernel's timer slack (50 µs), which bounds how precisely
// the pacer's thread sleeps.
const DefaultSpin = 100 * time.Microsecond

// Validate checks the options.
func (o *ScheduleOptions) Validate() error {
	switch o.Mode {
	case ModeSpeed:
		if !(o.Speed > 0) || math.IsInf(o.Speed, 0) {
			return fmt.Errorf("replay: speed must be > 0, got %v", o.Speed)
		}
	case ModeRate:
		if !(o.Rate > 0) || math.IsInf(o.Rate, 0) {
			return fmt.Errorf("replay: rate must be > 0, got %v", o.Rate)
		}
	case ModeMax:
	default:
		return fmt.Errorf("replay: unknown mode %d", o.Mode)
	}
	return nil
}

// Source yields ops in merged (captured time) order; it returns io.EOF
// (or nil, nil) at the end.
type Source interface {
	Next() (*Op, error)
}

// Exec runs one op; it is called from the op's session goroutine. Timing
// is measured around it.
type Exec func(ctx context.Context, op *Op)

// Observe receives every op with its timing after Exec returns.
type Observe func(op *Op, tm Timing)

// ObserveBatch receives ops of one session with their timings (tms[i] is
// ops[i]'s), after Exec returned for each; it is called from the session
// goroutine, so calls for different sessions run concurrently.
type ObserveBatch func(ops []*Op, tms []Timing)

// Scheduler runs ops on an absolute schedule.
type Scheduler struct {
	opts  ScheduleOptions
	clock Clock
}

// NewScheduler validates opts.
func NewScheduler(opts ScheduleOptions) (*Scheduler, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if opts.Clock == nil {
		opts.Clock = RealClock{}
	}
	if opts.QueueLen <= 0 {
		opts.QueueLen = 1024
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = 1
	}
	if opts.Spin == 0 {
		opts.Spin = DefaultSpin
	}
	return &Scheduler{opts: opts, clock: opts.Clock}, nil
}

// dueOffset is the op's offset from the start of the run. It is computed
// from absolute values each time (float64 nanoseconds, rounded once), so
// fractional speeds never accumulate drift.
// i is the op's position in this run (0-based).
func (s *Scheduler) dueOffset(op *Op, t0, i int64) time.Duration {
	switch s.opts.Mode {
	case ModeSpeed:
		return time.Duration(math.Round(float64(op.Time-t0) / s.opts.Speed))
	case ModeRate:
		return time.Duration(math.Round(float64(i) * 1e9 / s.opts.Rate))
	}
	return 0
}

// RunStats summarises a scheduler run.
type RunStats struct {
	Start, End time.Time
	LastDue    time.Time // due time of the last scheduled op
	Ops        int64
	Truncated  bool // Duration or MaxOps cut the run short
	// Paused is the time the schedule stood still for barriers (schema
	// changes): from each barrier's due time (or its dispatch, at --max)
	// to its completion.
	Paused time.Duration
}

// Measured is the run's wall time without the paused time.
func (st RunStats) Measured() time.Duration { return st.End.Sub(st.Start) - st.Paused }

// MeasuredSpan is start to the last due time without the paused time.
func (st RunStats) MeasuredSpan() time.Duration {
	if st.LastDue.IsZero() {
		return 0
	}
	return st.LastDue.Sub(st.Start) - st.Paused
}

// Run feeds ops from src to one goroutine per captured session and
// returns when every op has been executed, or ctx ends. observe is called
// once per op.
func (s *Scheduler) Run(ctx context.Context, src Source, exec Exec, observe Observe) (RunStats, error) {
	var ob ObserveBatch
	if observe != nil {
		ob = func(ops []*Op, tms []Timing) {
			for i, op := range ops {
				observe(op, tms[i])
			}
		}
	}
	return s.RunBatched(ctx, src, exec, ob)
}

// Hand-off batching. A session takes every op waiting in its queue at
// once. At --max the dispatcher also defers waking a parked session until
// it has maxBatch ops or flushEvery ops were dispatched overall, so the
// cost of a goroutine wake-up is shared by many ops; paced ops are handed
// over the moment they are due. A session keeps a --max concurrency slot
// for at most maxBatch ops, so sessions stay interleaved.
const (
	maxBatch   = 64
	flushEvery = 512
)

// RunBatched is Run with observations delivered per batch (one call per
// group of ops a session executed back to back), which lets the caller
// take its locks once per batch.
//
// One dispatcher goroutine reads src, computes each op's due time and —
// when pacing — waits for it (one timer for the whole run, finished by a
// short busy-wait on the real clock), then hands the op to its session's
// queue. Each session goroutine executes its ops in order: an op is sent
// at max(due, previous completion), and lag is send − due.
func (s *Scheduler) RunBatched(ctx context.Context, src Source, exec Exec, observe ObserveBatch) (RunStats, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &runner{s: s, ctx: ctx, exec: exec, observe: observe, sessions: map[SessionKey]*sess{}}
	r.h, _ = s.clock.(holder)
	if pc, ok := s.clock.(preciseClock); ok && s.opts.Spin > 0 {
		r.precise = pc
	}
	r.paced = s.opts.Mode != ModeMax
	if !r.paced {
		r.sem = make(chan struct{}, s.opts.Concurrency)
	}
	stats, runErr := r.dispatch(src)
	r.flush()
	for _, ss := range r.sessions {
		ss.mu.Lock()
		ss.closed = true
		r.wakeLocked(ss)
		ss.mu.Unlock()
	}
	r.release()
	r.wg.Wait()
	stats.End = s.clock.Now()
	if runErr == nil {
		runErr = ctx.Err()
	}
	return stats, runErr
}

// runner is the state of one Run.
type runner struct {
	s       *Scheduler
	ctx     context.Context
	exec    Exec
	observe ObserveBatch
	h       holder       // the fake clock's goroutine accounting, or nil
	precise preciseClock // nil: wait with timers only
	paced   bool
	sem     chan struct{} // --max concurrency slots

	wg       sync.WaitGroup // session goroutines
	inflight sync.WaitGroup // ops dispatched and not yet observed
	sessions map[SessionKey]*sess
	dirty    []*sess // parked sessions with ops and no wake-up yet (--max)
	unwoken  int     // ops dispatched since the last flush
}

// sess is one replay session: its queue (guarded by mu) and its goroutine.
type sess struct {
	mu     sync.Mutex
	q      []*Op // handed over, not yet taken by the session
	parked bool  // the goroutine waits on wake
	closed bool
	full   bool          // the dispatcher waits on space
	wake   chan struct{} // cap 1; one token per parked → running change
	space  chan struct{} // cap 1
	dirty  bool          // in runner.dirty (dispatcher only)
	// pending counts ops queued or executing, for the fake clock: the
	// session is "running" while it has any.
	pending atomic.Int64
}

func (r *runner) hold() {
	if r.h != nil {
		r.h.Hold()
	}
}

func (r *runner) release() {
	if r.h != nil {
		r.h.Release()
	}
}

// dispatch reads src and hands every op to its session, at its due time
// when pacing.
func (r *runner) dispatch(src Source) (RunStats, error) {
	s := r.s
	var (
		stats RunStats
		t0    int64
		first = true
	)
	stats.Start = s.clock.Now()
	r.hold() // the dispatcher itself, so virtual time waits for it
	for {
		op, err := src.Next()
		if err != nil || op == nil {
			if err != nil && !isEOF(err) {
				return stats, err
			}
			break
		}
		if first {
			t0, first = op.Time, false
		}
		if s.opts.MaxOps > 0 && stats.Ops >= s.opts.MaxOps {
			stats.Truncated = true
			break
		}
		if r.paced {
			off := s.dueOffset(op, t0, stats.Ops)
			if s.opts.Duration > 0 && off > s.opts.Duration {
				stats.Truncated = true
				break
			}
			op.Due = stats.Start.Add(off + stats.Paused)
			stats.LastDue = op.Due
			if !r.wait(op.Due) {
				break
			}
		} else if s.opts.Duration > 0 && s.clock.Now().Sub(stats.Start)-stats.Paused > s.opts.Duration {
			stats.Truncated = true
			break
		}
		stats.Ops++
		ss := r.sessions[op.Key]
		if ss == nil {
			ss = &sess{wake: make(chan struct{}, 1), space: make(chan struct{}, 1)}
			r.sessions[op.Key] = ss
			r.wg.Add(1)
			go r.session(ss)
		}
		if op.Barrier {
			from := op.Due
			if !r.paced {
				from = s.clock.Now()
			}
			r.drain()
			r.push(ss, op, true)
			r.drain()
			// The schedule stands still while the schema changes: later
			// ops are due that much later.
			stats.Paused += max(s.clock.Now().Sub(from), 0)
		} else {
			r.push(ss, op, false)
		}
		if r.ctx.Err() != nil {
			break
		}
	}
	if !r.paced {
		stats.LastDue = s.clock.Now()
	}
	return stats, nil
}

// wait blocks until due; false when ctx ended first.
func (r *runner) wait(due time.Time) bool {
	if r.precise != nil {
		return r.precise.WaitUntil(r.ctx, due, r.s.opts.Spin)
	}
	d := due.Sub(r.s.clock.Now())
	if d <= 0 {
		return r.ctx.Err() == nil
	}
	t := r.s.clock.NewTimer(d)
	select {
	case <-t.C():
		return true
	case <-r.ctx.Done():
		t.Stop()
		return false
	}
}

// push appends op to its session's queue, waiting while the queue is
// full; now wakes the session at once.
func (r *runner) push(ss *sess, op *Op, now bool) {
	r.inflight.Add(1)
	if r.h != nil && ss.pending.Add(1) == 1 {
		r.h.Hold() // on the session's behalf until it has run the op
	}
	ss.mu.Lock()
	for len(ss.q) >= r.s.opts.QueueLen && r.ctx.Err() == nil {
		ss.full = true
		r.wakeLocked(ss)
		ss.mu.Unlock()
		r.flush()
		r.release() // waiting on a session, not on time
		select {
		case <-ss.space:
		case <-r.ctx.Done(): // the session drains whatever is queued
		}
		r.hold()
		ss.mu.Lock()
	}
	ss.q = append(ss.q, op)
	switch {
	case !ss.parked:
	case now || r.paced || len(ss.q) >= maxBatch:
		r.wakeLocked(ss)
	case !ss.dirty:
		ss.dirty = true
		r.dirty = append(r.dirty, ss)
	}
	ss.mu.Unlock()
	if !r.paced {
		if r.unwoken++; r.unwoken >= flushEvery {
			r.flush()
		}
	}
}

// wakeLocked wakes ss if it is parked (ss.mu held).
func (r *runner) wakeLocked(ss *sess) {
	if ss.parked {
		ss.parked = false
		ss.wake <- struct{}{}
	}
}

// flush wakes every parked session that has ops.
func (r *runner) flush() {
	for _, ss := range r.dirty {
		ss.dirty = false
		ss.mu.Lock()
		if len(ss.q) > 0 {
			r.wakeLocked(ss)
		}
		ss.mu.Unlock()
	}
	clear(r.dirty)
	r.dirty = r.dirty[:0]
	r.unwoken = 0
}

// drain waits for every dispatched op, not on time.
func (r *runner) drain() {
	r.flush()
	r.release()
	r.inflight.Wait()
	r.hold()
}

// session is one session's goroutine: it takes every queued op at once
// and runs them in order.
func (r *runner) session(ss *sess) {
	defer r.wg.Done()
	var batch []*Op
	var tms []Timing
	for {
		ss.mu.Lock()
		for len(ss.q) == 0 {
			if ss.closed {
				ss.mu.Unlock()
				return
			}
			ss.parked = true
			ss.mu.Unlock()
			<-ss.wake
			ss.mu.Lock()
		}
		batch, ss.q = ss.q, batch[:0]
		if ss.full {
			ss.full = false
			select { // a token may be left from a wait ended by ctx
			case ss.space <- struct{}{}:
			default:
			}
		}
		ss.mu.Unlock()
		tms = r.run(ss, batch, tms)
		clear(batch) // the queue's next buffer must not keep ops alive
	}
}

// run executes a batch, maxBatch ops per concurrency slot at --max.
func (r *runner) run(ss *sess, batch []*Op, tms []Timing) []Timing {
	clk := r.s.clock
	for len(batch) > 0 {
		ops := batch
		if !r.paced && len(ops) > maxBatch {
			ops = ops[:maxBatch]
		}
		batch = batch[len(ops):]
		if r.sem != nil {
			select {
			case r.sem <- struct{}{}:
			default:
				// Blocked on other sessions, not on time.
				r.release()
				r.sem <- struct{}{}
				r.hold()
			}
		}
		tms = tms[:0]
		now := clk.Now()
		for _, op := range ops {
			if r.ctx.Err() != nil {
				break // the rest is drained, not executed
			}
			// Ops of a batch go back to back: one op's completion is
			// the next one's send.
			tm := Timing{Due: op.Due, Sent: now}
			if !r.paced {
				// No schedule at --max: nothing is late, intended = actual.
				op.Due, tm.Due = now, now
			} else if tm.Sent.Before(tm.Due) {
				tm.Sent = tm.Due
			}
			r.exec(r.ctx, op)
			now = clk.Now()
			tm.Done = now
			tms = append(tms, tm)
		}
		if r.sem != nil {
			<-r.sem
		}
		if r.observe != nil && len(tms) > 0 {
			r.observe(ops[:len(tms)], tms)
		}
		r.inflight.Add(-len(ops))
		if r.h != nil && ss.pending.Add(-int64(len(ops))) == 0 {
			r.h.Release()
		}
	}
	return tms
}

// sliceSource serves ops from memory (tests, benchmarks).
type sliceSource struct {
	ops []*Op
	i   int
}

func (s *sliceSource) Next() (*Op, error) {
	if s.i >= len(s.ops) {
		return nil, nil
	}
	s.i++
	return s.ops[s.i-1], nil
}

func isEOF(err error) bool { return errors.Is(err, io.EOF) }
