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
	// statements depend on the schema they create.
	Barrier bool
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
	// Duration stops scheduling ops due later than start+Duration (0: all).
	Duration time.Duration
}

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
	return &Scheduler{opts: opts, clock: opts.Clock}, nil
}

// dueOffset is the op's offset from the start of the run. It is computed
// from absolute values each time (float64 nanoseconds, rounded once), so
// fractional speeds never accumulate drift.
func (s *Scheduler) dueOffset(op *Op, t0 int64) time.Duration {
	switch s.opts.Mode {
	case ModeSpeed:
		return time.Duration(math.Round(float64(op.Time-t0) / s.opts.Speed))
	case ModeRate:
		return time.Duration(math.Round(float64(op.Index) * 1e9 / s.opts.Rate))
	}
	return 0
}

// RunStats summarises a scheduler run.
type RunStats struct {
	Start, End time.Time
	LastDue    time.Time // due time of the last scheduled op
	Ops        int64
	Truncated  bool // Duration cut the run short
}

// Run feeds ops from src to one goroutine per captured session and
// returns when every op has been executed, or ctx ends.
func (s *Scheduler) Run(ctx context.Context, src Source, exec Exec, observe Observe) (RunStats, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	h, _ := s.clock.(holder)
	hold := func() {
		if h != nil {
			h.Hold()
		}
	}
	release := func() {
		if h != nil {
			h.Release()
		}
	}
	var sem chan struct{}
	if s.opts.Mode == ModeMax {
		sem = make(chan struct{}, s.opts.Concurrency)
	}
	var (
		wg       sync.WaitGroup
		inflight sync.WaitGroup // ops dispatched and not yet observed
		sessions = map[SessionKey]*sess{}
		stats    RunStats
		t0       int64
		first    = true
	)
	stats.Start = s.clock.Now()
	hold() // the dispatcher itself, so virtual time waits for it
	// A session counts as running for the fake clock while it has ops
	// queued or executing; the dispatcher holds on its behalf when its
	// first op arrives, so no op is ever "in the mail" unaccounted for.
	done := func(ss *sess) {
		inflight.Done()
		if ss.pending.Add(-1) == 0 {
			release()
		}
	}
	session := func(ss *sess) {
		defer wg.Done()
		for op := range ss.q {
			if ctx.Err() != nil || !s.wait(ctx, op.Due) {
				done(ss) // drain
				continue
			}
			if sem != nil {
				select {
				case sem <- struct{}{}:
				default:
					// Blocked on other sessions, not on time.
					release()
					sem <- struct{}{}
					hold()
				}
			}
			tm := Timing{Due: op.Due, Sent: s.clock.Now()}
			if sem != nil {
				// No schedule at --max: nothing is late, intended = actual.
				op.Due, tm.Due = tm.Sent, tm.Sent
			} else if tm.Sent.Before(tm.Due) {
				tm.Sent = tm.Due
			}
			exec(ctx, op)
			tm.Done = s.clock.Now()
			if sem != nil {
				<-sem
			}
			if observe != nil {
				observe(op, tm)
			}
			done(ss)
		}
	}
	drain := func() { // wait for every dispatched op, not on time
		release()
		inflight.Wait()
		hold()
	}
	var runErr error
	for {
		op, err := src.Next()
		if err != nil || op == nil {
			if err != nil && !isEOF(err) {
				runErr = err
			}
			break
		}
		if first {
			t0, first = op.Time, false
		}
		if s.opts.Mode == ModeMax {
			op.Due = s.clock.Now()
		} else {
			off := s.dueOffset(op, t0)
			if s.opts.Duration > 0 && off > s.opts.Duration {
				stats.Truncated = true
				break
			}
			op.Due = stats.Start.Add(off)
		}
		stats.LastDue = op.Due
		stats.Ops++
		ss := sessions[op.Key]
		if ss == nil {
			ss = &sess{q: make(chan *Op, s.opts.QueueLen)}
			sessions[op.Key] = ss
			wg.Add(1)
			go session(ss)
		}
		if op.Barrier {
			drain()
		}
		inflight.Add(1)
		if ss.pending.Add(1) == 1 {
			hold()
		}
		select {
		case ss.q <- op:
		case <-ctx.Done():
			done(ss)
		}
		if op.Barrier {
			drain()
		}
		if ctx.Err() != nil {
			break
		}
	}
	for _, ss := range sessions {
		close(ss.q)
	}
	release()
	wg.Wait()
	stats.End = s.clock.Now()
	if runErr == nil {
		runErr = ctx.Err()
	}
	return stats, runErr
}

// sess is one replay session: its queue and its ops queued or executing.
type sess struct {
	q       chan *Op
	pending atomic.Int64
}

// wait blocks until due; false when ctx ended first.
func (s *Scheduler) wait(ctx context.Context, due time.Time) bool {
	d := due.Sub(s.clock.Now())
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := s.clock.NewTimer(d)
	select {
	case <-t.C():
		return true
	case <-ctx.Done():
		t.Stop()
		return false
	}
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
