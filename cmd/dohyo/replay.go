package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/dohyo/dohyo/bindings/cassandra"
	"github.com/dohyo/dohyo/capture"
	"github.com/dohyo/dohyo/replay"
	"github.com/dohyo/dohyo/replay/cqltarget"
)

type replayFlags struct {
	targets      []string
	speed        string
	rate         float64
	max          bool
	concurrency  int
	duration     time.Duration
	createSchema bool
	shard        string
	jsonOut      string
	htmlOut      string
	abortLag     time.Duration
	lagThreshold time.Duration
	lateFraction float64
	spin         time.Duration
	quiet        bool
	warmup       string
	repeat       int
	baseline     string
}

func newReplayCmd() *cobra.Command {
	var f replayFlags
	cmd := &cobra.Command{
		Use:   "replay CAPTURE...",
		Short: "Replay captured traffic against one or more targets and compare them",
		Long: `Replay re-runs captured requests (files or directories, merged by time across
nodes) against every --target on the same schedule, and reports throughput,
latency (from the intended and the actual send time), errors, lag behind the
schedule and read results that differ from the capture or between targets.

Targets: embedded://memory, embedded:///dir, hbase://zk:2181?salt=16,
cassandra://h1,h2:9042?consistency=QUORUM, cql://host:port (any CQL endpoint,
including another dohyo).

Exit code bits: 1 unexpected errors, 2 result mismatches, 4 a target could
not keep up.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReplay(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), args, f)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.targets, "target", nil, "target URL (repeatable)")
	fl.StringVar(&f.speed, "speed", "1", "time scale; a comma list (1,2,4,8) runs a sweep")
	fl.Float64Var(&f.rate, "rate", 0, "fixed rate in ops/s (re-timed, order kept)")
	fl.BoolVar(&f.max, "max", false, "as fast as the target allows")
	fl.IntVar(&f.concurrency, "concurrency", 16, "sessions in flight with --max")
	fl.DurationVar(&f.duration, "duration", 0, "replay only the first D of the schedule")
	fl.BoolVar(&f.createSchema, "create-schema", false, "apply the captured schema to each target first")
	fl.StringVar(&f.shard, "shard", "", "replay only shard i/n of the sessions (by session hash)")
	fl.StringVar(&f.jsonOut, "json", "", "write the JSON report (mergeable) to FILE")
	fl.StringVar(&f.htmlOut, "report", "", "write a self-contained HTML report to FILE")
	fl.DurationVar(&f.abortLag, "abort-lag", 0, "stop when an op is sent later than D behind schedule")
	fl.DurationVar(&f.lagThreshold, "lag-threshold", 100*time.Millisecond, "lag p99 above which a target could not keep up")
	fl.Float64Var(&f.lateFraction, "late-fraction", 0.1, "a target could not keep up when it finishes this fraction later than the schedule")
	fl.DurationVar(&f.spin, "spin", replay.DefaultSpin, "busy-wait this long before each due time for precise pacing (0: timers only, ~1 ms precision, no CPU spent waiting)")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress bar")
	fl.StringVar(&f.warmup, "warmup", "", "replay the first DURATION (10s) or OPS (5000) of the capture once per target before measuring, in no figure")
	fl.IntVar(&f.repeat, "repeat", 1, "measured rounds per target, interleaved (A1 B1 A2 B2 ...): figures become medians with their spread, ratios get intervals")
	fl.StringVar(&f.baseline, "baseline", "", "target name (t1:cassandra) or URL the verdict compares the others with (default: the first --target)")
	return cmd
}

func parseShard(s string) (replay.Shard, error) {
	if s == "" {
		return replay.Shard{}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return replay.Shard{}, fmt.Errorf("--shard %q: want i/n with 0 <= i < n", s)
	}
	return replay.Shard{I: i, N: n}, nil
}

// parseWarmup reads --warmup: a duration (10s) or an op count (5000).
func parseWarmup(s string) (replay.Warmup, error) {
	if s == "" {
		return replay.Warmup{}, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 {
		return replay.Warmup{Ops: n}, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return replay.Warmup{Duration: d}, nil
	}
	return replay.Warmup{}, fmt.Errorf("--warmup %q: want a duration (10s) or a positive op count (5000)", s)
}

func describeWarmup(w replay.Warmup) string {
	switch {
	case w.Ops > 0:
		return fmt.Sprintf("%d ops", w.Ops)
	case w.Duration > 0:
		return w.Duration.String()
	}
	return ""
}

func parseSpeeds(s string) ([]float64, error) {
	var out []float64
	for _, p := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || !(v > 0) {
			return nil, fmt.Errorf("--speed %q: want positive numbers", s)
		}
		out = append(out, v)
	}
	return out, nil
}

// openTarget opens a replay target from its URL.
func openTarget(ctx context.Context, raw string) (replay.Target, map[string]string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("target %q: %w", raw, err)
	}
	settings := replay.URLSettings(raw)
	switch u.Scheme {
	case "cassandra":
		b, err := cassandra.OpenURL(ctx, raw)
		if err != nil {
			return nil, nil, err
		}
		return replay.NewBackendTarget(b), settings, nil
	case "cql":
		t, err := cqltarget.Open(ctx, raw)
		if err != nil {
			return nil, nil, err
		}
		return t, settings, nil
	}
	b, err := openBackend(ctx, raw)
	if err != nil {
		return nil, nil, err
	}
	return replay.NewBackendTarget(b), settings, nil
}

// replayPlan is what replay's flags ask for, parsed and checked.
type replayPlan struct {
	shard  replay.Shard
	speeds []float64 // one run per speed (one run in rate and max modes)
	warm   replay.Warmup
	base   replay.ScheduleOptions
}

// parseReplayPlan checks replay's flags and builds the schedule.
func parseReplayPlan(f replayFlags) (replayPlan, error) {
	var p replayPlan
	if len(f.targets) == 0 {
		return p, errors.New("replay: at least one --target is required")
	}
	var err error
	if p.shard, err = parseShard(f.shard); err != nil {
		return p, err
	}
	if p.speeds, err = parseSpeeds(f.speed); err != nil {
		return p, err
	}
	if p.warm, err = parseWarmup(f.warmup); err != nil {
		return p, err
	}
	if f.repeat < 1 {
		return p, fmt.Errorf("--repeat %d: want at least 1", f.repeat)
	}
	p.base = replay.ScheduleOptions{Mode: replay.ModeSpeed, Duration: f.duration, Spin: f.spin}
	if f.spin <= 0 {
		p.base.Spin = -1 // never
	}
	switch {
	case f.max && f.rate > 0:
		return p, errors.New("replay: --max and --rate are exclusive")
	case f.max:
		p.base.Mode, p.base.Concurrency, p.speeds = replay.ModeMax, f.concurrency, p.speeds[:1]
	case f.rate > 0:
		p.base.Mode, p.base.Rate, p.speeds = replay.ModeRate, f.rate, p.speeds[:1]
	}
	return p, nil
}

func runReplay(ctx context.Context, stdout, stderr io.Writer, captures []string, f replayFlags) error {
	plan, err := parseReplayPlan(f)
	if err != nil {
		return err
	}
	sum, err := capture.Inspect(ctx, captures...)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	rep := newReplayReport(captures, sum, f, plan)
	targets, err := openReplayTargets(ctx, f, &rep.Conditions)
	defer func() {
		for _, t := range targets {
			t.Target.Close()
		}
	}()
	if err != nil {
		return err
	}
	if err := replayRuns(ctx, stderr, captures, f, plan, rep, targets, int64(sum.Records)); err != nil {
		return err
	}
	replay.DescribeTargets(ctx, rep, targets)
	rep.Conditions.Warnings = replay.CompareConditions(rep.Conditions.Targets)
	if err := writeReports(stdout, rep, f.jsonOut, f.htmlOut); err != nil {
		return err
	}
	if code := rep.ExitCode(); code != 0 {
		return &exitError{code: code, err: fmt.Errorf("replay: %s", describeExit(code))}
	}
	return ctx.Err()
}

// newReplayReport is the report's conditions known before the replay:
// the captures, the schedule, the machine.
func newReplayReport(captures []string, sum *capture.Summary, f replayFlags, plan replayPlan) *replay.Report {
	rep := &replay.Report{Conditions: replay.Conditions{
		Captures: captures, CaptureStart: sum.First, CaptureEnd: sum.Last, Records: sum.Records,
		CaptureBytes: sum.FileBytes, Sessions: sum.Sessions, Mode: plan.base.Mode.String(),
		Rate: f.rate, Duration: f.duration, DohyoVersion: buildVersion(), CaptureDohyos: sum.Versions,
		LagThreshold: f.lagThreshold, LateFraction: f.lateFraction,
		CreateSchema: f.createSchema, Warmup: describeWarmup(plan.warm), Repeat: f.repeat,
		Order:   "targets one at a time, interleaved round by round (A1 B1 A2 B2 ...)",
		Machine: describeMachine(),
		Provenance: replay.Provenance{Nodes: sum.Nodes, Segments: sum.Segments, Dropped: sum.Dropped,
			RedactedValues: sum.RedactedValues, RedactedQueries: sum.RedactedQueries, Generated: generatedBy(sum.Nodes)},
	}}
	if plan.base.Mode == replay.ModeSpeed {
		rep.Conditions.Speeds = plan.speeds
	}
	if plan.base.Mode == replay.ModeMax {
		rep.Conditions.Concurrency = f.concurrency
	}
	if plan.shard.N > 1 {
		rep.Conditions.Shards = []string{f.shard}
	}
	return rep
}

// openReplayTargets opens every --target, named t1:scheme, t2:scheme...,
// records them (and the baseline) in cond, and returns those opened, also
// on error (the caller closes them).
func openReplayTargets(ctx context.Context, f replayFlags, cond *replay.Conditions) ([]replay.NamedTarget, error) {
	var targets []replay.NamedTarget
	for i, raw := range f.targets {
		t, settings, err := openTarget(ctx, raw)
		if err != nil {
			return targets, fmt.Errorf("replay: %w", err)
		}
		name := fmt.Sprintf("t%d:%s", i+1, strings.SplitN(raw, ":", 2)[0])
		targets = append(targets, replay.NamedTarget{Name: name, Target: t})
		if f.baseline == raw || f.baseline == name {
			cond.Baseline = name
		}
		cond.Targets = append(cond.Targets, replay.TargetInfo{Name: name, URL: replay.RedactURL(raw), Settings: settings})
	}
	if f.baseline != "" && cond.Baseline == "" {
		return targets, fmt.Errorf("replay: --baseline %q names no --target (names are t1:scheme, t2:scheme... or the URL)", f.baseline)
	}
	return targets, nil
}

// replayRuns replays the captures once per planned speed (one run in
// rate and max modes) and adds each run to rep; it stops after a run that
// aborted or when ctx ends.
func replayRuns(ctx context.Context, stderr io.Writer, captures []string, f replayFlags, plan replayPlan,
	rep *replay.Report, targets []replay.NamedTarget, records int64) error {
	for _, sp := range plan.speeds {
		so := plan.base
		label := plan.base.Mode.String()
		switch plan.base.Mode {
		case replay.ModeSpeed:
			so.Speed, label = sp, fmt.Sprintf("speed=%g", sp)
		case replay.ModeRate:
			label = fmt.Sprintf("rate=%g", f.rate)
		case replay.ModeMax:
			label = fmt.Sprintf("max,concurrency=%d", f.concurrency)
		}
		var done atomic.Int64
		opts := replay.Options{Captures: captures, Schedule: so, Shard: plan.shard, CreateSchema: f.createSchema,
			Warmup: plan.warm, Repeat: f.repeat, Baseline: rep.Conditions.Baseline,
			AbortLag: f.abortLag, LagThreshold: f.lagThreshold, LateFraction: f.lateFraction, Progress: &done}
		stop := startProgress(stderr, f.quiet, label, &done, records*int64(len(targets))*int64(f.repeat))
		run, err := replay.Replay(ctx, opts, targets)
		stop()
		if err != nil {
			return err
		}
		run.Label, run.Speed, run.Rate = label, so.Speed, so.Rate
		rep.Runs = append(rep.Runs, run)
		if run.Aborted != "" || ctx.Err() != nil {
			break
		}
	}
	return nil
}

func describeExit(code int) string {
	var parts []string
	if code&replay.ExitErrors != 0 {
		parts = append(parts, "unexpected errors")
	}
	if code&replay.ExitMismatches != 0 {
		parts = append(parts, "result mismatches")
	}
	if code&replay.ExitLate != 0 {
		parts = append(parts, "a target could not keep up")
	}
	return strings.Join(parts, ", ") + fmt.Sprintf(" (exit %d)", code)
}

func writeReports(stdout io.Writer, rep *replay.Report, jsonOut, htmlOut string) error {
	if err := rep.WriteText(stdout); err != nil {
		return err
	}
	if jsonOut != "" {
		if err := writeFileWith(jsonOut, rep.WriteJSON); err != nil {
			return err
		}
	}
	if htmlOut != "" {
		if err := writeFileWith(htmlOut, rep.WriteHTML); err != nil {
			return err
		}
	}
	return nil
}

func writeFileWith(path string, write func(io.Writer) error) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(fh); err != nil {
		fh.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return fh.Close()
}

// startProgress draws a progress bar with an ETA on a terminal; it is a
// no-op when quiet or when stderr is not a terminal.
func startProgress(w io.Writer, quiet bool, label string, done *atomic.Int64, total int64) func() {
	fh, ok := w.(*os.File)
	if quiet || !ok || total <= 0 {
		return func() {}
	}
	if st, err := fh.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return func() {}
	}
	stop := make(chan struct{})
	finished := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(finished)
		tk := time.NewTicker(250 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-stop:
				fmt.Fprint(fh, "\r\033[K")
				return
			case <-tk.C:
			}
			n := done.Load()
			frac := min(float64(n)/float64(total), 1)
			eta := "?"
			if n > 0 {
				eta = (time.Duration(float64(time.Since(start))/frac) - time.Since(start)).Round(time.Second).String()
			}
			const width = 30
			bar := strings.Repeat("=", int(frac*width)) + strings.Repeat(" ", width-int(frac*width))
			fmt.Fprintf(fh, "\r%s [%s] %3.0f%% %d/%d ETA %s", label, bar, frac*100, n, total, eta)
		}
	}()
	return func() {
		close(stop)
		<-finished
	}
}

func newReportCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "report", Short: "Work with replay reports"}
	var jsonOut, htmlOut string
	merge := &cobra.Command{
		Use:   "merge A.json B.json...",
		Short: "Add shard reports of one replay (histograms add exactly)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var reps []*replay.Report
			for _, a := range args {
				r, err := replay.ReadReportFile(a)
				if err != nil {
					return err
				}
				reps = append(reps, r)
			}
			m, err := replay.MergeReports(reps...)
			if err != nil {
				return err
			}
			return writeReports(cmd.OutOrStdout(), m, jsonOut, htmlOut)
		},
	}
	merge.Flags().StringVar(&jsonOut, "json", "", "write the merged JSON report to FILE")
	merge.Flags().StringVar(&htmlOut, "report", "", "write a merged HTML report to FILE")
	cmd.AddCommand(merge)
	return cmd
}
