package soak

import (
	"fmt"
	"math"
	"strings"
)

// FaultRun is a fault as it ran (seconds since the run's start).
type FaultRun struct {
	Name    string  `json:"name"`
	Command string  `json:"command,omitempty"`
	At      float64 `json:"at"`
	Window  float64 `json:"window"`
	Start   float64 `json:"start"`
	End     float64 `json:"end"`
	Err     string  `json:"error,omitempty"`
	Output  string  `json:"output,omitempty"`
	// Errors are the failed requests that overlap the fault's window, by
	// class; LastError is when the last of them ended (seconds since the
	// run's start): what the fault cost the clients.
	Errors    map[string]int64 `json:"errors,omitempty"`
	LastError float64          `json:"last_error,omitempty"`
}

// Cost says what the fault cost the clients: its errors by class and when
// the last one ended, relative to the fault's start.
func (f FaultRun) Cost() string {
	if len(f.Errors) == 0 {
		return "no errors"
	}
	var parts []string
	var n int64
	for _, c := range sortedKeys(f.Errors) {
		parts = append(parts, fmt.Sprintf("%s %d", c, f.Errors[c]))
		n += f.Errors[c]
	}
	return fmt.Sprintf("%d errors (%s), the last %.1f s after it began", n, strings.Join(parts, ", "), f.LastError-f.Start)
}

// countFaultErrors fills each fault's Errors and LastError.
func countFaultErrors(events []ErrorEvent, faults []FaultRun) {
	for i := range faults {
		faults[i].countErrors(events)
	}
}

// countErrors fills f's Errors and LastError from the events it covers.
func (f *FaultRun) countErrors(events []ErrorEvent) {
	for _, e := range events {
		if f.covers(e) {
			if f.Errors == nil {
				f.Errors = map[string]int64{}
			}
			f.Errors[e.Class]++
			f.LastError = math.Max(f.LastError, e.End)
		}
	}
}

// Covers is the stretch in which errors are expected: from the fault's
// start to its window's end, or to the fault's end if it ran longer.
func (f FaultRun) Covers() (from, to float64) { return f.Start, math.Max(f.Start+f.Window, f.End) }

// covers reports whether the failed request e overlaps f's stretch.
func (f FaultRun) covers(e ErrorEvent) bool {
	from, to := f.Covers()
	return e.End >= from && e.Due <= to
}

// KeyCheck is one counter or LWT key at the end: its value must lie
// between the acknowledged operations and those plus the unknown ones.
type KeyCheck struct {
	Key     int   `json:"key"`
	Acked   int64 `json:"acked"`
	Unknown int64 `json:"unknown"`
	Value   int64 `json:"value"`
}

// Exact says whether the value is one the operations could have produced.
func (k KeyCheck) Exact() bool { return k.Value >= k.Acked && k.Value <= k.Acked+k.Unknown }

// ReadBack is one keyspace's end check.
type ReadBack struct {
	Keyspace string     `json:"keyspace"`
	Written  int64      `json:"writes_attempted"`
	Acked    int64      `json:"writes_acked"`
	Found    int64      `json:"rows_found"`
	Lost     int64      `json:"lost"`        // acknowledged, not found
	Wrong    int64      `json:"wrong_value"` // found with a value never written
	Phantom  int64      `json:"phantom"`     // a row key never attempted
	Examples []int64    `json:"lost_examples,omitempty"`
	Counters []KeyCheck `json:"counters"`
	LWT      []KeyCheck `json:"lwt"`
	Err      string     `json:"error,omitempty"`
}

// Check is one verdict rule and how the run fared.
type Check struct {
	Name   string `json:"name"`
	Rule   string `json:"rule"`
	Value  string `json:"value"`
	Pass   bool   `json:"pass"`
	Detail string `json:"detail,omitempty"`
}

// Verdict is the report's first section.
type Verdict struct {
	Pass   bool     `json:"pass"`
	Checks []Check  `json:"checks"`
	Notes  []string `json:"notes,omitempty"`
}

// Fails lists the failing checks' names.
func (v Verdict) Fails() []string {
	var out []string
	for _, c := range v.Checks {
		if !c.Pass {
			out = append(out, c.Name)
		}
	}
	return out
}

// judge applies the rules to a finished run.
func judge(r *Report) Verdict {
	var v Verdict
	add := func(c Check) { v.Checks = append(v.Checks, c) }

	var lost, wrong, phantom int64
	var rbErr []string
	for _, rb := range r.ReadBack {
		lost, wrong, phantom = lost+rb.Lost, wrong+rb.Wrong, phantom+rb.Phantom
		if rb.Err != "" {
			rbErr = append(rbErr, rb.Keyspace+": "+rb.Err)
		}
	}
	add(Check{Name: "lost writes", Rule: "every acknowledged write is read back with its value; no row that was never written",
		Value: fmt.Sprintf("%d lost, %d wrong, %d phantom", lost, wrong, phantom),
		Pass:  lost == 0 && wrong == 0 && phantom == 0 && len(rbErr) == 0, Detail: strings.Join(rbErr, "; ")})
	add(Check{Name: "stale reads", Rule: "a read of an acknowledged write sees it", Value: fmt.Sprint(r.Stale), Pass: r.Stale == 0})
	for _, kind := range []string{"counters", "lwt"} {
		var bad []string
		n := 0
		for _, rb := range r.ReadBack {
			ks := rb.Counters
			if kind == "lwt" {
				ks = rb.LWT
			}
			for _, k := range ks {
				n++
				if !k.Exact() {
					bad = append(bad, fmt.Sprintf("%s key %d = %d, acked %d, unknown %d", rb.Keyspace, k.Key, k.Value, k.Acked, k.Unknown))
				}
			}
		}
		name, rule := "counters exact", "each counter ends between its acknowledged increments and those plus the unknown (errored) ones"
		if kind == "lwt" {
			name, rule = "LWT exact", "each LWT sequence ends between its applied compare-and-sets and those plus the unknown ones"
		}
		add(Check{Name: name, Rule: rule, Value: fmt.Sprintf("%d of %d keys off", len(bad), n), Pass: len(bad) == 0 && len(rbErr) == 0, Detail: strings.Join(bad, "; ")})
	}

	outside, byClass := errorsOutside(r.Errors, r.windows())
	outside += r.ErrorsDropped
	add(Check{Name: "errors outside fault windows", Rule: "no request fails unless it overlaps a fault's window (or the warm-up)",
		Value: fmt.Sprint(outside), Pass: outside == 0, Detail: byClass})

	for _, p := range r.procURLs() {
		slope, n := rssSlope(r.Samples, p, r.Config.Duration.Seconds()/2)
		c := Check{Name: "memory flat: " + p, Rule: fmt.Sprintf("RSS slope over the second half of the run (of a restarted process's life) ≤ %s/h", mib(r.Config.Rules.MaxRSSSlope))}
		if n < 3 {
			c.Value, c.Detail = "not measured", fmt.Sprintf("%d samples of one process in the second half (need 3)", n)
		} else {
			c.Value, c.Pass = fmt.Sprintf("%s/h over %d samples", mib(slope*3600), n), slope*3600 <= r.Config.Rules.MaxRSSSlope
		}
		add(c)
	}

	var failed []string
	for _, f := range r.Faults {
		if f.Err != "" {
			failed = append(failed, f.Name+": "+f.Err)
		}
	}
	add(Check{Name: "faults ran", Rule: "every scheduled fault ran and succeeded", Value: fmt.Sprintf("%d of %d", len(r.Faults)-len(failed), len(r.Faults)),
		Pass: len(failed) == 0, Detail: strings.Join(failed, "; ")})

	v.Pass = true
	for _, c := range v.Checks {
		v.Pass = v.Pass && c.Pass
	}
	if held, rate := r.rateOutsideFaults(); rate > 0 {
		v.Notes = append(v.Notes, fmt.Sprintf("offered %.0f requests/s; outside fault windows the clients completed %.0f/s (%.0f%%)", r.Config.Rate, held, 100*held/rate))
	}
	return v
}

// errorsOutside counts the errors whose [due, end] overlaps no fault's
// window, with a per-class summary.
func errorsOutside(events []ErrorEvent, faults []FaultRun) (int64, string) {
	var n int64
	classes := map[string]int64{}
	for _, e := range events {
		in := false
		for _, f := range faults {
			if f.covers(e) {
				in = true
				break
			}
		}
		if !in {
			n++
			classes[e.Class]++
		}
	}
	var parts []string
	for _, c := range sortedKeys(classes) {
		parts = append(parts, fmt.Sprintf("%s %d", c, classes[c]))
	}
	return n, strings.Join(parts, ", ")
}

// rssSlope is the least-squares slope (bytes/s) of url's RSS over the
// samples from `from` seconds on, of the process that was up last (a
// restarted dohyo starts a new series).
func rssSlope(samples []Sample, url string, from float64) (float64, int) {
	// The process up last, and the first and last times it was sampled: a
	// process restarted during the run is judged on the second half of its
	// own life (its first minutes are its warm-up: the Go heap growing to
	// the GC floor, caches filling), not from its start.
	started, first, last := -1.0, -1.0, -1.0
	for i := len(samples) - 1; i >= 0; i-- {
		for _, p := range samples[i].Procs {
			if p.URL != url || !p.Up {
				continue
			}
			if started < 0 {
				started, last = p.Started, samples[i].T
			}
			if p.Started == started {
				first = samples[i].T
			}
		}
	}
	from = max(from, first+(last-first)/2)
	var xs, ys []float64
	for i := len(samples) - 1; i >= 0 && samples[i].T >= from; i-- {
		for _, p := range samples[i].Procs {
			if p.URL == url && p.Up && p.Started == started {
				xs, ys = append(xs, samples[i].T), append(ys, p.RSS)
			}
		}
	}
	n := len(xs)
	if n < 2 {
		return 0, n
	}
	var mx, my float64
	for i := range xs {
		mx, my = mx+xs[i], my+ys[i]
	}
	mx, my = mx/float64(n), my/float64(n)
	var sxy, sxx float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
	}
	if sxx == 0 {
		return 0, n
	}
	return sxy / sxx, n
}

func mib(b float64) string { return fmt.Sprintf("%.1f MiB", b/(1<<20)) }
