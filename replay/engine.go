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
			ra := newReadAhead(m)
			return ra, ddl, func() error { ra.Close(); return m.Close() }, nil
		}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	run := &Run{}
	checks := make([][]*readCheck, len(targets))
	keyspaces := make([][]string, len(targets))
	var wg sync.WaitGroup
	errs := make([]error, len(targets))
	for i, nt := range targets {
		st := newTargetStats(nt.Name)
		run.Targets = append(run.Targets, st)
		src, ddl, closeSrc, err := open(ctx)
		if err != nil {
			return nil, fmt.Errorf("replay: open captures: %w", err)
		}
		if opts.CreateSchema && ddl != "" {
			var se *SchemaError
			if err := nt.Target.ApplySchema(ctx, ddl); errors.As(err, &se) {
				st.SchemaErrors = se.Failed
			} else if err != nil {
				closeSrc()
				return nil, fmt.Errorf("replay: target %s: %w", nt.Name, err)
			}
		}
		wg.Add(1)
		go func(i int, nt NamedTarget, src recordSource, closeSrc func() error) {
			defer wg.Done()
			defer closeSrc()
			var mu sync.Mutex // st and checks[i]; taken once per batch
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
					st.observe(start, op.class, tm, &op.out, r.Err, r.ErrCode)
					if c := op.Check; c != nil {
						c.Index, c.Out = op.Index, op.out
						checks[i] = append(checks[i], c)
					}
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
			rs, err := sched.RunBatched(ctx, ob, exec, observe)
			keyspaces[i] = ob.keyspaces()
			mu.Lock()
			st.Elapsed = rs.End.Sub(rs.Start)
			st.ScheduleSpan = rs.LastDue.Sub(rs.Start)
			mu.Unlock()
			errs[i] = err
		}(i, nt, src, closeSrc)
	}
	wg.Wait()
	for _, ks := range keyspaces {
		run.Keyspaces = mergeSorted(run.Keyspaces, ks)
	}
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
