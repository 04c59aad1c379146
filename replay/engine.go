package replay

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/capture"
	"github.com/dohyo/dohyo/cql"
)

// NamedTarget is a target with the name reports use for it.
type NamedTarget struct {
	Name   string
	Target Target
}

// Warmup is the first part of the capture, replayed once per target before
// the measured rounds and excluded from every figure: Ops ops, or the ops
// due within Duration (at --max: dispatched within Duration of wall time,
// on the first target; the others warm up with the same ops).
type Warmup struct {
	Ops      int64
	Duration time.Duration
}

func (w Warmup) set() bool { return w.Ops > 0 || w.Duration > 0 }

// Options configure a replay run.
type Options struct {
	Captures []string // files or directories, merged by time across nodes
	Schedule ScheduleOptions
	Shard    Shard
	// CreateSchema applies the capture's schema DDL to every target first,
	// untimed (the schema phase).
	CreateSchema bool
	Warmup       Warmup
	// Repeat is how many times the measured phase runs per target (<= 0:
	// once). Rounds are interleaved: round 1 on every target in turn, then
	// round 2...
	Repeat int
	// AbortLag stops the run when an op is sent later than this (0: never).
	AbortLag time.Duration
	// LagThreshold and LateFraction decide "could not keep up": lag p99
	// above LagThreshold, or a measured round finishing more than
	// LateFraction later than its schedule.
	LagThreshold time.Duration
	LateFraction float64
	// Baseline names the target reads are compared with (and the verdict
	// compares with); "" or an unknown name: the first.
	Baseline string
	// Progress, if set, counts executed ops (summed over targets).
	Progress *atomic.Int64
	// openRecords replaces capture.NewMerger (tests).
	openRecords func(ctx context.Context) (recordSource, string, func() error, error)
}

func (o *Options) open(ctx context.Context) (recordSource, string, func() error, error) {
	if o.openRecords != nil {
		return o.openRecords(ctx)
	}
	m, err := capture.NewMerger(ctx, capture.MergeOptions{}, o.Captures...)
	if err != nil {
		return nil, "", nil, err
	}
	// Every capture's schema (captures of different clusters or
	// generated workloads each bring their own); repeats once.
	var ddls []string
	for _, h := range m.Headers() {
		if h.SchemaDDL != "" && !slices.Contains(ddls, h.SchemaDDL) {
			ddls = append(ddls, h.SchemaDDL)
		}
	}
	ddl := strings.Join(ddls, "\n")
	ra := newReadAhead(m)
	return ra, ddl, func() error { ra.Close(); return m.Close() }, nil
}

// Replay runs the phases on every target and compares results:
//
//  1. schema: --create-schema DDL, statement by statement, untimed;
//  2. warm-up: the first part of the capture (Options.Warmup), once per
//     target, excluded from the figures;
//  3. measurement: the rest of the capture, Repeat rounds per target,
//     interleaved (A1 B1 A2 B2 ...). Targets run one at a time, so no
//     target competes with another for the client machine, and drift of
//     the machine over time is spread over every target.
//
// Schema changes captured in the stream are replayed in place (later
// statements depend on them) with the schedule paused while they run: they
// are reported in the schema table, not in the figures. Reads are compared
// with the capture and with the baseline target in the warm-up and round 1,
// which together are one pass over the capture; later rounds start from a
// state the capture never saw, so they are timed only.
func Replay(ctx context.Context, opts Options, targets []NamedTarget) (*Run, error) {
	if len(targets) == 0 {
		return nil, errors.New("replay: no targets")
	}
	if _, err := NewScheduler(opts.Schedule); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	rounds := max(opts.Repeat, 1)
	run := &Run{Rounds: rounds}
	checks := make([][]*readCheck, len(targets))
	for _, nt := range targets {
		st := newTargetStats(nt.Name)
		run.Targets = append(run.Targets, st)
		if opts.CreateSchema {
			if err := applySchema(ctx, &opts, nt, st); err != nil {
				return nil, err
			}
		}
	}
	var errs []error
	skip := int64(0)
	if opts.Warmup.set() {
		for i, nt := range targets {
			so := opts.Schedule
			so.Duration, so.MaxOps = opts.Warmup.Duration, opts.Warmup.Ops
			if i > 0 {
				so.Duration, so.MaxOps = 0, skip
			}
			p, err := runPass(ctx, cancel, &opts, so, nt, 0, 0, &checks[i])
			if i == 0 {
				skip = p.rs.Ops
			}
			run.Targets[i].addWarmup(p)
			run.Keyspaces = mergeSorted(run.Keyspaces, p.keyspaces)
			errs = append(errs, err)
		}
	}
	for r := 1; r <= rounds && ctx.Err() == nil; r++ {
		for i, nt := range targets {
			if ctx.Err() != nil {
				break
			}
			var ck *[]*readCheck
			if r == 1 {
				ck = &checks[i]
			}
			p, err := runPass(ctx, cancel, &opts, opts.Schedule, nt, r, skip, ck)
			p.st.judge(opts.LagThreshold, opts.LateFraction, opts.Schedule.Mode != ModeMax)
			run.Targets[i].addRound(r, p)
			run.Keyspaces = mergeSorted(run.Keyspaces, p.keyspaces)
			errs = append(errs, err)
		}
	}
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		run.Aborted = cause.Error()
	} else if err := errors.Join(errs...); err != nil {
		if ctx.Err() == nil {
			return nil, err
		}
		run.Aborted = err.Error()
	}
	base := slices.IndexFunc(targets, func(t NamedTarget) bool { return t.Name == opts.Baseline })
	compare(run, checks, max(base, 0))
	return run, nil
}

// applySchema is the schema phase of one target: each statement of the
// capture's schema, timed on its own, before any clock starts.
func applySchema(ctx context.Context, opts *Options, nt NamedTarget, st *TargetStats) error {
	_, ddl, closeSrc, err := opts.open(ctx)
	if err != nil {
		return fmt.Errorf("replay: open captures: %w", err)
	}
	closeSrc()
	if ddl == "" {
		return nil
	}
	stmts, err := cql.ParseScript(ddl)
	if err != nil {
		return fmt.Errorf("replay: target %s: schema: %w", nt.Name, err)
	}
	for _, p := range stmts {
		t0 := time.Now()
		err := nt.Target.ApplySchema(ctx, p.Text)
		so := SchemaOutcome{Phase: PhaseSchema, Statement: short(p.Text), Duration: time.Since(t0), Result: "ok"}
		var se *SchemaError
		switch {
		case errors.As(err, &se):
			so.Result = se.Failed[0]
			st.SchemaErrors = append(st.SchemaErrors, se.Failed...)
		case err != nil && ctx.Err() != nil:
			return fmt.Errorf("replay: target %s: %w", nt.Name, err)
		case err != nil:
			so.Result = err.Error()
			st.SchemaErrors = append(st.SchemaErrors, fmt.Sprintf("%s: %v", so.Statement, err))
		}
		st.Schema = append(st.Schema, so)
	}
	return nil
}

// pass is one scheduler run over (part of) the capture on one target.
type pass struct {
	st        *TargetStats
	rs        RunStats
	keyspaces []string
}

// skipSource drops the first n ops (the warm-up) of a source.
type skipSource struct {
	src Source
	n   int64
}

func (s *skipSource) Next() (*Op, error) {
	for ; s.n > 0; s.n-- {
		if op, err := s.src.Next(); err != nil || op == nil {
			return op, err
		}
	}
	return s.src.Next()
}

// runPass replays the capture on one target, skipping its first skip ops;
// round 0 is the warm-up. Reads are appended to checks when it is not nil.
func runPass(ctx context.Context, cancel context.CancelCauseFunc, opts *Options, so ScheduleOptions, nt NamedTarget,
	round int, skip int64, checks *[]*readCheck) (pass, error) {
	st := newTargetStats(nt.Name)
	p := pass{st: st}
	src, _, closeSrc, err := opts.open(ctx)
	if err != nil {
		return p, fmt.Errorf("replay: open captures: %w", err)
	}
	defer closeSrc()
	sched, err := NewScheduler(so)
	if err != nil {
		return p, err
	}
	phase := PhaseWarmup
	if round > 0 {
		phase = fmt.Sprintf("captured, round %d", round)
	}
	var mu sync.Mutex // st and checks; taken once per batch
	var start time.Time
	first := true
	exec := func(ctx context.Context, op *Op) {
		op.out = nt.Target.Do(ctx, op)
	}
	observe := func(ops []*Op, tms []Timing) {
		mu.Lock()
		defer mu.Unlock()
		if first {
			start, first = tms[0].Due, false
		}
		for j, op := range ops {
			tm, r := tms[j], op.Recs[0]
			if c := op.Check; c != nil && checks != nil {
				c.Index, c.Out = op.Index, op.out
				*checks = append(*checks, c)
			}
			if op.Barrier {
				st.observeSchema(phase, op, tm, r.Err, r.ErrCode)
				continue
			}
			st.observe(start, op.class, tm, &op.out, r.Err, r.ErrCode)
			if opts.AbortLag > 0 && tm.Lag() > opts.AbortLag {
				msg := fmt.Sprintf("target %s lagged %v behind schedule (--abort-lag %v)", nt.Name, tm.Lag(), opts.AbortLag)
				if !st.Late {
					st.Late, st.LateReason = true, msg
				}
				cancel(errors.New(msg))
			}
		}
		if opts.Progress != nil {
			opts.Progress.Add(int64(len(ops)))
		}
	}
	ob := newOpBuilder(src, opts.Shard)
	var s Source = ob
	if skip > 0 {
		s = &skipSource{src: ob, n: skip}
	}
	rs, err := sched.RunBatched(ctx, s, exec, observe)
	p.rs, p.keyspaces = rs, ob.keyspaces()
	mu.Lock()
	st.Elapsed = rs.Measured()
	st.ScheduleSpan = rs.MeasuredSpan()
	st.SchemaPaused = rs.Paused
	mu.Unlock()
	return p, err
}

// observeSchema records a captured schema change: its outcome goes to the
// schema table, not to the figures.
func (s *TargetStats) observeSchema(phase string, op *Op, tm Timing, capErr bool, capCode bindings.ErrorCode) {
	so := SchemaOutcome{Phase: phase, Statement: short(op.Recs[0].Query), Duration: tm.Actual(), Result: "ok"}
	if out := op.out; out.Err {
		so.Result = out.Code.String() + ": " + out.Msg
		if out.Code == bindings.CodeAlreadyExists {
			so.Result = "already exists"
		} else if !capErr || capCode != out.Code {
			s.Unexpected++
			s.Errors[out.Code.String()]++
		}
	}
	s.Schema = append(s.Schema, so)
}
