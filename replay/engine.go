package replay

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
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
					cancel(fmt.Errorf("target %s lagged %v behind schedule (--abort-lag %v)", nt.Name, tm.Lag(), opts.AbortLag))
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

// compare checks every read against the capture (the digest over as many
// target pages as the capture has pages) and against the first target.
func compare(run *Run, checks []map[int64]*readCheck) {
	idx := make([]int64, 0, len(checks[0]))
	for k := range checks[0] {
		idx = append(idx, k)
	}
	sort.Slice(idx, func(a, b int) bool { return idx[a] < idx[b] })
	for _, k := range idx {
		ref := checks[0][k]
		for t, m := range checks {
			c := m[k]
			if c == nil {
				continue
			}
			st := run.Targets[t]
			cls := st.class(c.Fingerprint)
			if c.Out.Err || c.CapErr {
				continue
			}
			n := len(c.ExpPages)
			var want uint64
			for _, d := range c.ExpPages {
				want += d
			}
			st.Compared++
			if c.Noise != "" {
				st.Noise++
				cls.Noise++
				continue
			}
			if got := c.Out.Digest(n); got != want {
				st.Mismatches++
				cls.Mismatches++
				addExample(cls, c, c.ExpRows, c.Out.Rows(n), "capture")
			}
			if t > 0 && ref != nil && !ref.Out.Err && ref.Out.Digest(n) != c.Out.Digest(n) {
				st.CrossMismatches++
				addExample(cls, c, ref.Out.Rows(n), c.Out.Rows(n), run.Targets[0].Name)
			}
		}
	}
}

func addExample(cls *ClassStats, c *readCheck, want, got int, against string) {
	if len(cls.Examples) >= maxExamples {
		return
	}
	cls.Examples = append(cls.Examples, Example{Statement: short(c.Query), Values: formatValues(c.Values),
		WantRows: want, GotRows: got, Against: against})
}

// formatValues renders bound values as hex blobs (types are not known here).
func formatValues(vs []capture.Value) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		switch {
		case v.Unset:
			parts[i] = "unset"
		case v.Redacted != capture.NotRedacted:
			parts[i] = "redacted"
		case v.Bytes == nil:
			parts[i] = "null"
		default:
			b := v.Bytes
			if len(b) > 32 {
				b = b[:32]
			}
			parts[i] = fmt.Sprintf("0x%x", b)
			if len(v.Bytes) > 32 {
				parts[i] += "…"
			}
		}
	}
	return strings.Join(parts, ", ")
}
