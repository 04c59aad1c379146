package replay

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/dohyo/dohyo/internal/stats"
	"github.com/dohyo/dohyo/replay/hdr"
)

// Spread is a figure over measured rounds: the median and the range.
type Spread struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	N      int     `json:"n"` // rounds
}

func spreadOf(xs []float64) Spread {
	if len(xs) == 0 {
		return Spread{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return Spread{Median: stats.MedianSorted(s), Min: s[0], Max: s[len(s)-1], N: len(s)}
}

// Ratio is a target's figure divided by the baseline's (medians over
// rounds), with a 95% bootstrap confidence interval.
type Ratio struct {
	Value float64 `json:"value"`
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
	// Rounds the interval is drawn from (the fewer of the two sides); an
	// interval needs at least 2.
	Rounds int `json:"rounds"`
}

// Defined reports whether both sides had a value.
func (r Ratio) Defined() bool { return r.Rounds > 0 && !math.IsNaN(r.Value) && !math.IsInf(r.Value, 0) }

// Noise reports a difference that cannot be told from the spread between
// rounds: the interval contains 1.
func (r Ratio) Noise() bool { return r.Defined() && r.Rounds >= 2 && r.Lo <= 1 && 1 <= r.Hi }

// Label is "within noise", "no interval (1 round)" or "".
func (r Ratio) Label() string {
	switch {
	case !r.Defined():
		return ""
	case r.Rounds < 2:
		return "no interval (1 round)"
	case r.Noise():
		return "within noise"
	}
	return ""
}

// String is "0.82× [0.78–0.86]", with the label after it.
func (r Ratio) String() string {
	if !r.Defined() {
		return "–"
	}
	s := fmt.Sprintf("%s×", ratioNum(r.Value))
	if r.Rounds >= 2 {
		s += fmt.Sprintf(" [%s–%s]", ratioNum(r.Lo), ratioNum(r.Hi))
	}
	if l := r.Label(); l != "" {
		s += " " + l
	}
	return s
}

func ratioNum(v float64) string {
	switch {
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	case v < 0.1:
		return fmt.Sprintf("%.2g", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// Bootstrap parameters: fixed, so a report is reproducible.
const (
	bootstrapResamples = 2000
	bootstrapSeed      = 17
)

// bootstrapRatio is median(t)/median(b) with a percentile bootstrap
// interval: rounds are resampled with replacement, in pairs (round i of
// both targets, which ran next to each other) when both have as many.
func bootstrapRatio(t, b []float64) Ratio {
	n := min(len(t), len(b))
	if n == 0 || stats.Median(b) == 0 {
		return Ratio{} // undefined (JSON has no NaN)
	}
	r := Ratio{Value: stats.Median(t) / stats.Median(b), Rounds: n}
	if n < 2 {
		r.Lo, r.Hi = r.Value, r.Value
		return r
	}
	rng := rand.New(rand.NewPCG(bootstrapSeed, uint64(len(t))<<32|uint64(len(b))))
	paired := len(t) == len(b)
	ts, bs := make([]float64, len(t)), make([]float64, len(b))
	out := make([]float64, 0, bootstrapResamples)
	for k := 0; k < bootstrapResamples; k++ {
		for i := range ts {
			j := rng.IntN(len(t))
			ts[i] = t[j]
			if paired {
				bs[i] = b[j]
			}
		}
		if !paired {
			for i := range bs {
				bs[i] = b[rng.IntN(len(b))]
			}
		}
		mb := stats.Median(bs)
		if mb == 0 {
			continue
		}
		out = append(out, stats.Median(ts)/mb)
	}
	slices.Sort(out)
	if len(out) == 0 {
		r.Lo, r.Hi = r.Value, r.Value
		return r
	}
	r.Lo = out[int(0.025*float64(len(out)-1))]
	r.Hi = out[int(math.Ceil(0.975*float64(len(out)-1)))]
	return r
}

// Figures are one target's (or statement class's) numbers over the
// measured rounds: each a median with its range. Latencies are from the
// intended send time (coordinated-omission corrected), in ms.
type Figures struct {
	Class      string `json:"class"` // OverallClass for every statement
	Ops        int64  `json:"ops"`   // all rounds
	Throughput Spread `json:"throughput"`
	P50        Spread `json:"p50_ms"`
	P99        Spread `json:"p99_ms"`
	P999       Spread `json:"p999_ms"`
	LagP99     Spread `json:"lag_p99_ms"`
	// per-round values, for the ratios' intervals; svc is a class's
	// service rate (1/mean latency), what its ops/s ratio is taken from
	tput, svc, p50, p99, p999 []float64
}

// OverallClass names the row of all statements.
const OverallClass = "overall"

func nsMs(ns int64) float64 { return float64(ns) / 1e6 }

// figures computes a target's figures overall (class "") or for one class.
func (s *TargetStats) figures(class string) Figures {
	f := Figures{Class: cmp.Or(class, OverallClass)}
	var lag []float64
	rounds := s.Rounds
	if len(rounds) == 0 && s.Ops > 0 { // a report without rounds: one round of the totals
		rs := &RoundStats{Round: 1, Ops: s.Ops, Elapsed: s.Elapsed, Intended: s.Intended, Lag: s.Lag, Classes: map[string]*RoundClass{}}
		for fp, c := range s.Classes {
			rs.Classes[fp] = &RoundClass{Ops: c.Ops, Intended: c.Intended}
		}
		rounds = []*RoundStats{rs}
	}
	for _, r := range rounds {
		ops, h := r.Ops, r.Intended
		if class != "" {
			c := r.Classes[class]
			if c == nil || c.Ops == 0 {
				continue
			}
			ops, h = c.Ops, c.Intended
		} else {
			lag = append(lag, nsMs(r.Lag.Quantile(.99)))
		}
		if ops == 0 || h == nil {
			continue
		}
		f.Ops += ops
		f.tput = append(f.tput, rate(ops, r.Elapsed))
		if m := h.Mean(); m > 0 {
			f.svc = append(f.svc, 1e9/m)
		}
		f.p50 = append(f.p50, nsMs(h.Quantile(.5)))
		f.p99 = append(f.p99, nsMs(h.Quantile(.99)))
		f.p999 = append(f.p999, nsMs(h.Quantile(.999)))
	}
	f.Throughput, f.P50, f.P99, f.P999, f.LagP99 = spreadOf(f.tput), spreadOf(f.p50), spreadOf(f.p99), spreadOf(f.p999), spreadOf(lag)
	return f
}

// Verdict compares every target with the baseline in one run.
type Verdict struct {
	Run      string       `json:"run"`
	Baseline string       `json:"baseline"`
	Rounds   int          `json:"rounds"`
	Figures  []TargetFigs `json:"figures"`    // every target, baseline first
	Rows     []VerdictRow `json:"comparison"` // every other target vs the baseline
	// Sentences say the comparison in words, one per target.
	Sentences []string `json:"sentences"`
	// Omitted counts classes beyond the busiest maxVerdictClasses, left
	// out of the comparison rows (the statement classes table has them).
	Omitted int `json:"omitted_classes,omitempty"`
}

// maxVerdictClasses bounds the classes compared per target, busiest first.
const maxVerdictClasses = 6

// TargetFigs are a target's figures overall and per class.
type TargetFigs struct {
	Target  string    `json:"target"`
	Overall Figures   `json:"overall"`
	Classes []Figures `json:"classes"`
}

// VerdictRow is one target against the baseline, overall or for one class.
type VerdictRow struct {
	Target     string `json:"target"`
	Class      string `json:"class"`
	Ops        int64  `json:"ops"`
	Throughput Ratio  `json:"throughput"`
	P50        Ratio  `json:"p50"`
	P99        Ratio  `json:"p99"`
	P999       Ratio  `json:"p999"`
	Errors     int64  `json:"errors"`     // all errors of the measured rounds
	Unexpected int64  `json:"unexpected"` // errors the capture did not have (incl. warm-up, schema changes)
	Compared   int64  `json:"compared"`   // reads compared (overall row)
	Mismatches int64  `json:"mismatches"` // vs the capture
	Cross      int64  `json:"cross"`      // vs the baseline
	LagP99     Spread `json:"lag_p99_ms"`
	Late       string `json:"could_not_keep_up,omitempty"`
}

// NewVerdict compares run's targets with the one named baseline (the first
// target when baseline is "" or names no target).
func NewVerdict(run *Run, baseline string) *Verdict {
	v := &Verdict{Run: run.Label, Rounds: run.Rounds}
	if len(run.Targets) == 0 {
		return v
	}
	bi := slices.IndexFunc(run.Targets, func(t *TargetStats) bool { return t.Name == baseline })
	if bi < 0 {
		bi = 0
	}
	base := run.Targets[bi]
	v.Baseline = base.Name
	order := append([]*TargetStats{base}, slices.Delete(slices.Clone(run.Targets), bi, bi+1)...)
	classes := classOrder(base, run.Targets)
	if len(classes) > maxVerdictClasses {
		v.Omitted = len(classes) - maxVerdictClasses
		classes = classes[:maxVerdictClasses]
	}
	figs := map[string]map[string]Figures{}
	for _, t := range order {
		tf := TargetFigs{Target: t.Name, Overall: t.figures("")}
		figs[t.Name] = map[string]Figures{"": tf.Overall}
		for _, fp := range classes {
			if t.Classes[fp] == nil {
				continue
			}
			f := t.figures(fp)
			tf.Classes = append(tf.Classes, f)
			figs[t.Name][fp] = f
		}
		v.Figures = append(v.Figures, tf)
	}
	for _, t := range order[1:] {
		row := func(fp string) VerdictRow {
			a, b := figs[t.Name][fp], figs[base.Name][fp]
			// Every class shares its round's elapsed time, so a class's
			// ops/s ratio would only repeat the overall one: a class
			// row compares service rates (1/mean latency) instead.
			tput := bootstrapRatio(a.tput, b.tput)
			if fp != "" {
				tput = bootstrapRatio(a.svc, b.svc)
			}
			r := VerdictRow{Target: t.Name, Class: cmp.Or(fp, OverallClass), Ops: a.Ops,
				Throughput: tput, P50: bootstrapRatio(a.p50, b.p50),
				P99: bootstrapRatio(a.p99, b.p99), P999: bootstrapRatio(a.p999, b.p999)}
			if fp == "" {
				r.Errors, r.Unexpected = sum(t.Errors), t.Unexpected+t.WarmupUnexpected
				r.Compared, r.Mismatches, r.Cross, r.LagP99, r.Late = t.Compared, t.Mismatches, t.CrossMismatches, a.LagP99, t.LateReason
			} else if c := t.Classes[fp]; c != nil {
				r.Errors, r.Compared, r.Mismatches, r.Cross = sum(c.Errors), c.Compared, c.Mismatches, c.Cross
			}
			return r
		}
		v.Rows = append(v.Rows, row(""))
		for _, fp := range classes {
			if t.Classes[fp] != nil {
				v.Rows = append(v.Rows, row(fp))
			}
		}
		v.Sentences = append(v.Sentences, v.sentence(t.Name))
	}
	if len(order) == 1 {
		f := v.Figures[0].Overall
		v.Sentences = append(v.Sentences, fmt.Sprintf("%s: %s ops/s, p99 %s ms (one target: nothing to compare with).",
			base.Name, spreadNum(f.Throughput), spreadNum(f.P99)))
	}
	return v
}

// classOrder is every class of every target: the baseline's busiest first.
func classOrder(base *TargetStats, ts []*TargetStats) []string {
	ops := map[string]int64{}
	for _, t := range ts {
		for fp, c := range t.Classes {
			if _, ok := ops[fp]; !ok {
				ops[fp] = 0
			}
			if t == base {
				ops[fp] = c.Ops
			}
		}
	}
	out := make([]string, 0, len(ops))
	for fp := range ops {
		out = append(out, fp)
	}
	sort.Slice(out, func(i, j int) bool {
		if ops[out[i]] != ops[out[j]] {
			return ops[out[i]] > ops[out[j]]
		}
		return out[i] < out[j]
	})
	return out
}

func sum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// sentence says target's comparison in words: throughput and p99 overall,
// the class with the largest p99 ratio, mismatches, errors and lag.
func (v *Verdict) sentence(target string) string {
	var overall VerdictRow
	var worst *VerdictRow
	for i := range v.Rows {
		r := &v.Rows[i]
		if r.Target != target {
			continue
		}
		if r.Class == OverallClass {
			overall = *r
		} else if r.P99.Defined() && (worst == nil || r.P99.Value > worst.P99.Value) {
			worst = r
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s %s's throughput, p99 %s", target, overall.Throughput, v.Baseline, overall.P99)
	if worst != nil && len(v.Rows) > 2 {
		fmt.Fprintf(&b, "; slowest class vs %s: p99 %s on %s", v.Baseline, worst.P99, short(worst.Class))
	}
	fmt.Fprintf(&b, "; %s mismatches in %s reads compared", thousands(overall.Mismatches+overall.Cross), thousands(overall.Compared))
	fmt.Fprintf(&b, "; %s unexpected errors", thousands(overall.Unexpected))
	if overall.LagP99.N > 0 {
		fmt.Fprintf(&b, "; lag p99 %s ms", num3(overall.LagP99.Median))
	}
	if overall.Late != "" {
		fmt.Fprintf(&b, "; could not keep up (%s)", overall.Late)
	}
	b.WriteString(".")
	return b.String()
}

// thousands writes n with comma separators: 50,112.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func num3(v float64) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case v >= 1000:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.3f", v)
}

// spreadNum is "1234 [1200–1250]", or the value alone for one round.
func spreadNum(s Spread) string {
	if s.N == 0 {
		return "–"
	}
	if s.N == 1 {
		return num3(s.Median)
	}
	return fmt.Sprintf("%s [%s–%s]", num3(s.Median), num3(s.Min), num3(s.Max))
}

// Columns explain every column of the verdict and figures tables: the
// HTML's hover titles and legend, and the text output's legend.
var Columns = []struct{ Name, Help string }{
	{"target", "the target compared with the baseline (--baseline, default the first --target)"},
	{"class", "statement class (the statement with its literals replaced by ?), or overall for every statement"},
	{"ops/s ×", "overall: median throughput over the measured rounds divided by the baseline's; per class: its service rate (1 / mean latency) divided by the baseline's, since every class shares a round's elapsed time; above 1 is faster; [95% bootstrap interval over rounds]"},
	{"p50 ×", "median latency (from the intended send time) divided by the baseline's; below 1 is faster"},
	{"p99 ×", "99th percentile latency divided by the baseline's; below 1 is faster"},
	{"p99.9 ×", "99.9th percentile latency divided by the baseline's; below 1 is faster"},
	{"errors", "error answers in the measured rounds (any code)"},
	{"unexpected", "errors the capture did not have, warm-up and captured schema changes included"},
	{"mismatches", "reads whose result differed from the capture's or the baseline's, of the reads compared (warm-up and round 1: one pass over the capture)"},
	{"lag p99", "99th percentile of how late ops were sent behind the schedule, ms (median over rounds); 0 at --max"},
	{"could not keep up", "a measured round's lag p99 above --lag-threshold, or it finished --late-fraction later than its schedule"},
	{"within noise", "the 95% interval contains 1: the rounds' spread is as large as the difference"},
	{"–", "not applicable: no ops of this class on one side, or a per-class cell of a whole-run figure (lag, could not keep up)"},
}

// heading describes the run, baseline, rounds and interval method.
func (v *Verdict) heading() string {
	return fmt.Sprintf("run %s, baseline %s, %d measured round(s) per target; ratios are medians over rounds, [95%% bootstrap interval, %d resamples, seed %d]",
		v.Run, v.Baseline, v.Rounds, bootstrapResamples, bootstrapSeed)
}

func durMs(d time.Duration) string { return num3(float64(d) / 1e6) }

// writeText writes the verdict as `#` lines (YCSB-style parsers skip
// them): the sentences, a table of ratios, the figures, and the legend.
func (v *Verdict) writeText(ew *errWriter) {
	ew.printf("#\n# ===== verdict: %s\n", v.heading())
	for _, s := range v.Sentences {
		ew.printf("# %s\n", s)
	}
	if len(v.Rows) > 0 {
		ew.printf("#\n# %-14s %-40s %-28s %-28s %-28s %-28s %8s %10s %-22s %9s\n", "target", "class", "ops/s ×", "p50 ×", "p99 ×", "p99.9 ×",
			"errors", "unexpected", "mismatches", "lag p99")
		for _, r := range v.Rows {
			ew.printf("# %-14s %-40s %-28s %-28s %-28s %-28s %8d %10s %-22s %9s\n", r.Target, short40(r.Class), r.Throughput, r.P50, r.P99, r.P999,
				r.Errors, r.unexpectedCell(), r.mismatchCell(), r.lagCell())
		}
	}
	if v.Omitted > 0 {
		ew.printf("# (%d less busy statement classes are not compared here; see the per-class lines above)\n", v.Omitted)
	}
	ew.printf("#\n# figures (median [min–max] over rounds; latency from the intended send time, ms)\n")
	ew.printf("# %-14s %-40s %10s %-30s %-26s %-26s %-26s\n", "target", "class", "ops", "ops/s", "p50", "p99", "p99.9")
	for _, tf := range v.Figures {
		for _, f := range append([]Figures{tf.Overall}, tf.Classes...) {
			ew.printf("# %-14s %-40s %10d %-30s %-26s %-26s %-26s\n", tf.Target, short40(f.Class), f.Ops, spreadNum(f.Throughput),
				spreadNum(f.P50), spreadNum(f.P99), spreadNum(f.P999))
		}
	}
	ew.printf("#\n# legend:\n")
	for _, c := range Columns {
		ew.printf("#   %-18s %s\n", c.Name, c.Help)
	}
}

func short40(s string) string {
	if len(s) > 40 {
		return s[:39] + "…"
	}
	return s
}

func (r VerdictRow) unexpectedCell() string {
	if r.Class != OverallClass {
		return "–"
	}
	return thousands(r.Unexpected)
}

func (r VerdictRow) mismatchCell() string {
	if r.Compared == 0 && r.Class != OverallClass {
		return "– (no reads compared)"
	}
	return fmt.Sprintf("%s of %s", thousands(r.Mismatches+r.Cross), thousands(r.Compared))
}

func (r VerdictRow) lagCell() string {
	if r.Class != OverallClass || r.LagP99.N == 0 {
		return "–"
	}
	return spreadNum(r.LagP99)
}

// Cells for the HTML template (the text writer uses the same).
func (r VerdictRow) UnexpectedCell() string { return r.unexpectedCell() }
func (r VerdictRow) MismatchCell() string   { return r.mismatchCell() }
func (r VerdictRow) LagCell() string        { return r.lagCell() }

// LateCell is the reason, "no", or "–" on a class row.
func (r VerdictRow) LateCell() string {
	switch {
	case r.Class != OverallClass:
		return "–"
	case r.Late == "":
		return "no"
	}
	return r.Late
}

func (f Figures) TputCell() string { return spreadNum(f.Throughput) }
func (f Figures) P50Cell() string  { return spreadNum(f.P50) }
func (f Figures) P99Cell() string  { return spreadNum(f.P99) }
func (f Figures) P999Cell() string { return spreadNum(f.P999) }

// groupClasses is run with the statement classes of every target (and of
// every round) merged by group: YCSB's ten "UPDATE usertable SET fieldN"
// classes become its one UPDATE operation. run itself is not changed.
func groupClasses(run *Run, group func(fp string) string) *Run {
	out := *run
	out.Targets = make([]*TargetStats, len(run.Targets))
	for i, t := range run.Targets {
		g := *t
		g.Classes = map[string]*ClassStats{}
		for fp, c := range t.Classes {
			d := g.class(group(fp))
			d.Ops += c.Ops
			d.Intended.Merge(c.Intended)
			d.Actual.Merge(c.Actual)
			for k, v := range c.Errors {
				d.Errors[k] += v
			}
			d.Mismatches, d.Compared, d.Cross, d.Noise = d.Mismatches+c.Mismatches, d.Compared+c.Compared, d.Cross+c.Cross, d.Noise+c.Noise
			d.Examples = append(d.Examples, c.Examples...)
		}
		g.Rounds = make([]*RoundStats, len(t.Rounds))
		for j, r := range t.Rounds {
			gr := *r
			gr.Classes = map[string]*RoundClass{}
			for fp, c := range r.Classes {
				d := gr.Classes[group(fp)]
				if d == nil {
					d = &RoundClass{Intended: hdr.New()}
					gr.Classes[group(fp)] = d
				}
				d.Ops += c.Ops
				if c.Intended != nil {
					d.Intended.Merge(c.Intended)
				}
			}
			g.Rounds[j] = &gr
		}
		out.Targets[i] = &g
	}
	return &out
}
