package replay

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/dohyo/dohyo/replay/hdr"
)

// WriteText writes YCSB-style `[OP], Metric, value` lines: per target and
// class, `[Intended-OP]` lines carry the coordinated-omission corrected
// latencies.
func (r *Report) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	r.Conditions.writeText(ew)
	for _, run := range r.Runs {
		for _, t := range run.Targets {
			ew.printf("# run %s, target %s\n", run.Label, t.Name)
			if run.Aborted != "" {
				ew.printf("# aborted: %s\n", run.Aborted)
			}
			for _, e := range t.SchemaErrors {
				ew.printf("# schema statement not applied: %s\n", e)
			}
			ew.printf("[OVERALL], RunTime(ms), %d\n", t.Elapsed.Milliseconds())
			ew.printf("[OVERALL], Throughput(ops/sec), %.2f\n", t.Throughput())
			ew.printf("[OVERALL], Operations, %d\n", t.Ops)
			if t.WarmupOps > 0 {
				ew.printf("[WARMUP], Operations, %d\n[WARMUP], RunTime(ms), %d\n", t.WarmupOps, t.WarmupElapsed.Milliseconds())
			}
			for _, rd := range t.Rounds {
				ew.printf("[ROUND-%d], Operations, %d\n[ROUND-%d], Throughput(ops/sec), %.2f\n[ROUND-%d], Intended99thPercentileLatency(us), %d\n",
					rd.Round, rd.Ops, rd.Round, rd.Throughput(), rd.Round, us(rd.Intended.Quantile(.99)))
			}
			ew.printf("[LAG], p50(us), %d\n[LAG], p99(us), %d\n[LAG], Max(us), %d\n",
				us(t.Lag.Quantile(.5)), us(t.Lag.Quantile(.99)), us(t.Lag.Max()))
			ew.printf("[COMPARE], Compared, %d\n[COMPARE], Mismatches, %d\n[COMPARE], CrossTargetMismatches, %d\n[COMPARE], Noise, %d\n",
				t.Compared, t.Mismatches, t.CrossMismatches, t.Noise)
			ew.printf("[ERRORS], Unexpected, %d\n", t.Unexpected)
			for _, k := range sortedKeys(t.Errors) {
				ew.printf("[ERRORS], %s, %d\n", k, t.Errors[k])
			}
			if t.Late {
				ew.printf("[OVERALL], CouldNotKeepUp, %s\n", t.LateReason)
			}
			writeOp(ew, "ALL", t.Ops, t.Actual, t.Intended, nil, 0)
			if strings.Contains(r.Conditions.Provenance.Generated, "ycsb") {
				writeYCSBOps(ew, t)
			}
			fps := make([]string, 0, len(t.Classes))
			for fp := range t.Classes {
				fps = append(fps, fp)
			}
			sort.Strings(fps)
			for _, fp := range fps {
				c := t.Classes[fp]
				if t.Elapsed > 0 {
					ew.printf("[%s], Throughput(ops/sec), %.2f\n", fp, float64(c.Ops)/t.Elapsed.Seconds())
				}
				writeOp(ew, fp, c.Ops, c.Actual, c.Intended, c.Errors, c.Mismatches)
				for _, e := range c.Examples {
					ew.printf("#   mismatch vs %s: %s [%s] want %d rows, got %d\n", e.Against, e.Statement, e.Values, e.WantRows, e.GotRows)
				}
			}
		}
	}
	r.writeSchemaText(ew)
	for _, v := range r.ComputeVerdicts() {
		v.writeText(ew)
	}
	return ew.err
}

// writeSchemaText writes the schema phase's table: every schema statement
// per target, untimed.
func (r *Report) writeSchemaText(ew *errWriter) {
	for _, run := range r.Runs {
		for _, t := range run.Targets {
			if len(t.Schema) == 0 {
				continue
			}
			ew.printf("# schema (untimed, not in any figure), run %s, target %s; the schedule paused %s ms for captured schema changes\n",
				run.Label, t.Name, durMs(t.SchemaPaused))
			for _, so := range t.Schema {
				ew.printf("#   %-28s %10s ms  %-16s %s\n", so.Phase, durMs(so.Duration), so.Result, so.Statement)
			}
		}
	}
}

// writeText writes the conditions as `#` comment lines, which YCSB-style
// parsers skip.
func (c *Conditions) writeText(ew *errWriter) {
	ew.printf("# dohyo replay, dohyo %s\n", c.DohyoVersion)
	ew.printf("# captures: %s (written by dohyo %s)\n", strings.Join(c.Captures, " "), strings.Join(c.CaptureDohyos, ", "))
	ew.printf("# capture: %d records, %d bytes, %d sessions, %s .. %s (%v)\n", c.Records, c.CaptureBytes, c.Sessions,
		c.CaptureStart.UTC().Format(time.RFC3339Nano), c.CaptureEnd.UTC().Format(time.RFC3339Nano), c.CaptureEnd.Sub(c.CaptureStart).Round(time.Millisecond))
	ew.printf("# provenance: %s\n", c.Provenance.String())
	ew.printf("# machine: %s\n", c.Machine)
	ew.printf("# mode: %s%s\n", c.Mode, c.pace())
	ew.printf("# phases: %s\n", c.Phases())
	if len(c.Shards) > 0 {
		ew.printf("# shards: %s\n", strings.Join(c.Shards, " "))
	}
	for _, t := range c.Targets {
		ew.printf("# target %s: %s\n", t.Name, t.URL)
		if t.Server != "" {
			ew.printf("#   server: %s\n", t.Server)
		}
		for _, k := range slices.Sorted(maps.Keys(t.Settings)) {
			ew.printf("#   %s: %s\n", k, t.Settings[k])
		}
	}
	for _, w := range c.Warnings {
		ew.printf("# WARNING: %s\n", w)
	}
}

// Phases describes the schema phase, warm-up and measured rounds.
func (c *Conditions) Phases() string {
	schema := "captured schema changes replayed in place, schedule paused while they run (untimed)"
	if c.CreateSchema {
		schema = "schema applied before the clock starts (--create-schema, untimed); " + schema
	}
	warm := "no warm-up"
	if c.Warmup != "" {
		warm = "warm-up " + c.Warmup + " (excluded from the figures)"
	}
	return fmt.Sprintf("%s; %s; %d measured round(s) per target, %s", schema, warm, max(c.Repeat, 1), cmp.Or(c.Order, "targets one at a time, interleaved round by round"))
}

// String is one line for the report.
func (p Provenance) String() string {
	s := fmt.Sprintf("nodes %s, %d segments, %d records dropped while capturing, %d bound values and %d statements redacted",
		cmp.Or(strings.Join(p.Nodes, " "), "?"), p.Segments, p.Dropped, p.RedactedValues, p.RedactedQueries)
	if p.Generated != "" {
		s += ", generated by " + p.Generated
	}
	return s
}

// pace describes the pacing options after the mode.
func (c *Conditions) pace() string {
	var b strings.Builder
	if len(c.Speeds) > 0 {
		fmt.Fprintf(&b, ", speed %v", c.Speeds)
	}
	if c.Rate > 0 {
		fmt.Fprintf(&b, ", rate %g ops/s", c.Rate)
	}
	if c.Concurrency > 0 {
		fmt.Fprintf(&b, ", concurrency %d", c.Concurrency)
	}
	if c.Duration > 0 {
		fmt.Fprintf(&b, ", duration %v", c.Duration)
	}
	return b.String()
}

func writeOp(ew *errWriter, name string, ops int64, act, in *hdr.Histogram, errs map[string]int64, mism int64) {
	for _, p := range []struct {
		tag string
		h   *hdr.Histogram
	}{{"[" + name + "]", act}, {"[Intended-" + name + "]", in}} {
		ew.printf("%s, Operations, %d\n", p.tag, ops)
		ew.printf("%s, AverageLatency(us), %.2f\n", p.tag, p.h.Mean()/1e3)
		ew.printf("%s, MinLatency(us), %d\n", p.tag, us(p.h.Min()))
		ew.printf("%s, MaxLatency(us), %d\n", p.tag, us(p.h.Max()))
		for _, q := range []struct {
			n string
			q float64
		}{{"50th", .5}, {"95th", .95}, {"99th", .99}, {"99.9th", .999}} {
			ew.printf("%s, %sPercentileLatency(us), %d\n", p.tag, q.n, us(p.h.Quantile(q.q)))
		}
	}
	for _, k := range sortedKeys(errs) {
		ew.printf("[%s], Return=%s, %d\n", name, k, errs[k])
	}
	if mism > 0 {
		ew.printf("[%s], Mismatches, %d\n", name, mism)
	}
}

// writeYCSBOps adds YCSB's own operation names ([READ], [UPDATE],
// [INSERT], [SCAN]) for a generated YCSB workload, each the sum of its
// statement classes, so the lines compare with YCSB's output.
func writeYCSBOps(ew *errWriter, t *TargetStats) {
	type agg struct {
		ops         int64
		act, intent *hdr.Histogram
		errs        map[string]int64
	}
	byOp := map[string]*agg{}
	for fp, c := range t.Classes {
		name := ycsbOp(fp)
		a := byOp[name]
		if a == nil {
			a = &agg{act: hdr.New(), intent: hdr.New(), errs: map[string]int64{}}
			byOp[name] = a
		}
		a.ops += c.Ops
		a.act.Merge(c.Actual)
		a.intent.Merge(c.Intended)
		for k, v := range c.Errors {
			a.errs[k] += v
		}
	}
	for _, name := range slices.Sorted(maps.Keys(byOp)) {
		a := byOp[name]
		writeOp(ew, name, a.ops, a.act, a.intent, a.errs, 0)
	}
}

// ycsbOp names a statement class as YCSB does.
func ycsbOp(fp string) string {
	u := strings.ToUpper(fp)
	switch {
	case strings.HasPrefix(u, "SELECT") && strings.Contains(u, "TOKEN("):
		return "SCAN"
	case strings.HasPrefix(u, "SELECT"):
		return "READ"
	case strings.HasPrefix(u, "UPDATE"):
		return "UPDATE"
	case strings.HasPrefix(u, "INSERT"):
		return "INSERT"
	}
	return "OTHER"
}

func us(ns int64) int64 { return ns / 1e3 }

func sortedKeys(m map[string]int64) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
