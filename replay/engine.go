package replay

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dohyo/dohyo/capture"
)

// NamedTarget is a target with the name reports use for it.
type NamedTarget struct {
	Name   string
	Target Target
}

// Options configure a replay run.
type Options struct {
	Captures []string // files or directories, merged by time across nodes
	Schedule ScheduleOptions
	Shard    Shard
	// CreateSchema applies the capture's schema DDL to every target first.
	CreateSchema bool
	// AbortLag stops the run when an op is sent later than this (0: never).
	AbortLag time.Duration
	// LagThreshold and LateFraction decide "could not keep up": lag p99
	// above LagThreshold, or the run finishing more than LateFraction later
	// than its schedule.
	LagThreshold time.Duration
	LateFraction float64
	// Progress, if set, counts executed ops (summed over targets).
	Progress *atomic.Int64
	// openRecords replaces capture.NewMerger (tests).
	openRecords func(ctx context.Context) (recordSource, string, func() error, error)
}

// Replay replays the captures against every target concurrently (each target
// on its own copy of the same schedule) and compares results. It returns a
// run for the report.
func Replay(ctx context.Context, opts Options, targets []NamedTarget) (*Run, error) {
	if len(targets) == 0 {
		return nil, errors.New("replay: no targets")
	}
	sched, err := NewScheduler(opts.Schedule)
	if err != nil {
		return nil, err
	}
	open := opts.openRecords
	if open == nil {
		open = func(ctx context.Context) (recordSource, string, func() error, error) {
			m, err := capture.NewMerger(ctx, capture.MergeOptions{}, opts.Captures...)
			if err != nil {
				return nil, "", nil, err
			}
			ddl := ""
			if hs := m.Headers(); len(hs) > 0 {
				ddl = hs[0].SchemaDDL
			}
			return m, ddl, m.Close, nil
		}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	run := &Run{}
	checks := make([]map[int64]*readCheck, len(targets))
	var wg sync.WaitGroup
	errs := make([]error, len(targets))
	for i, nt := range targets {
		st := newTargetStats(nt.Name)
		run.Targets = append(run.Targets, st)
		checks[i] = map[int64]*readCheck{}
		src, ddl, closeSrc, err := open(ctx)
		if err != nil {
			return nil, fmt.Errorf("replay: open captures: %w", err)
		}
		if opts.CreateSchema && ddl != "" {
			if err := nt.Target.ApplySchema(ctx, ddl); err != nil {
				closeSrc()
				return nil, fmt.Errorf("replay: target %s: %w", nt.Name, err)
			}
		}
		wg.Add(1)
		go func(i int, nt NamedTarget, src recordSource, closeSrc func() error) {
			defer wg.Done()
			defer closeSrc()
			var mu sync.Mutex
			var start time.Time
			var first bool = true
			exec := func(ctx context.Context, op *Op) {
				op.Check.Out = nt.Target.Do(ctx, op)
			}
			observe := func(op *Op, tm Timing) {
				mu.Lock()
				defer mu.Unlock()
				if first {
					start, first = tm.Due, false
				}
				c := op.Check
				st.observe(start, c.Fingerprint, tm, &c.Out, c.CapErr, c.CapCode)
				if c.IsRead {
					checks[i][op.Index] = c
				}
				if opts.Progress != nil {
					opts.Progress.Add(1)
				}
				if opts.AbortLag > 0 && tm.Lag() > opts.AbortLag {
					msg := fmt.Sprintf("target %s lagged %v behind schedule (--abort-lag %v)", nt.Name, tm.Lag(), opts.AbortLag)
					if !st.Late {
						st.Late, st.LateReason = true, msg
					}
					cancel(errors.New(msg))
				}
			}
			rs, err := sched.Run(ctx, newOpBuilder(src, opts.Shard), exec, observe)
			mu.Lock()
			st.Elapsed = rs.End.Sub(rs.Start)
			st.ScheduleSpan = rs.LastDue.Sub(rs.Start)
			mu.Unlock()
			errs[i] = err
		}(i, nt, src, closeSrc)
	}
	wg.Wait()
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		run.Aborted = cause.Error()
	} else if err := errors.Join(errs...); err != nil {
		if ctx.Err() == nil {
			return nil, err
		}
		run.Aborted = err.Error()
	}
	compare(run, checks)
	for _, st := range run.Targets {
		st.judge(opts.LagThreshold, opts.LateFraction, opts.Schedule.Mode != ModeMax)
	}
	return run, nil
}
