package replay

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/replay/hdr"
)

// Exit code bit flags (DESIGN D7).
const (
	ExitErrors     = 1 // a target answered errors the capture did not have
	ExitMismatches = 2 // read results differed from the capture or between targets
	ExitLate       = 4 // a target could not keep up with the schedule
)

// Report is the outcome of a replay: one Run per speed of a sweep (one for
// a plain run). It marshals to JSON with every histogram, so shard reports
// merge exactly (MergeReports).
type Report struct {
	Conditions Conditions `json:"conditions"`
	Runs       []*Run     `json:"runs"`
	// Verdicts are computed from Runs when the report is written (one per
	// run); reading a report recomputes them.
	Verdicts []*Verdict `json:"verdicts,omitempty"`
}

// ComputeVerdicts compares every run's targets with the baseline.
func (r *Report) ComputeVerdicts() []*Verdict {
	r.Verdicts = r.Verdicts[:0]
	ycsb := strings.Contains(r.Conditions.Provenance.Generated, "ycsb")
	for _, run := range r.Runs {
		if ycsb { // YCSB's operations, as its own report has them
			run = groupClasses(run, ycsbOp)
		}
		r.Verdicts = append(r.Verdicts, NewVerdict(run, r.Conditions.Baseline))
	}
	return r.Verdicts
}

// Conditions state what was replayed, how, and against what.
type Conditions struct {
	Captures      []string      `json:"captures"`
	CaptureStart  time.Time     `json:"capture_start"`
	CaptureEnd    time.Time     `json:"capture_end"`
	Records       uint64        `json:"records"`
	CaptureBytes  int64         `json:"capture_bytes"`
	Sessions      int           `json:"sessions"`
	Mode          string        `json:"mode"`
	Speeds        []float64     `json:"speeds,omitempty"`
	Rate          float64       `json:"rate,omitempty"`
	Concurrency   int           `json:"concurrency,omitempty"`
	Duration      time.Duration `json:"duration,omitempty"`
	Shards        []string      `json:"shards,omitempty"` // "i/n" of each merged shard
	DohyoVersion  string        `json:"dohyo_version"`
	CaptureDohyos []string      `json:"capture_dohyo_versions,omitempty"`
	Targets       []TargetInfo  `json:"targets"`
	LagThreshold  time.Duration `json:"lag_threshold"`
	LateFraction  float64       `json:"late_fraction"`
	// Baseline is the target the others are compared with ("" : the first).
	Baseline string `json:"baseline,omitempty"`
	// Phases and repeats.
	CreateSchema bool   `json:"create_schema"`
	Warmup       string `json:"warmup,omitempty"` // "10s" or "5000 ops", "" for none
	Repeat       int    `json:"repeat"`
	Order        string `json:"order,omitempty"` // how rounds were run
	// Machine the replay ran on, and the capture's provenance.
	Machine    Machine    `json:"machine"`
	Provenance Provenance `json:"provenance"`
	// Warnings name conditions that differ between targets.
	Warnings []string `json:"warnings,omitempty"`
}

// TargetInfo describes a target: its URL without secrets, the server
// behind it (product and version, as the server itself reported it) and
// its effective settings (consistency, replication, compression, regions,
// salt... whatever applies to that kind of target).
type TargetInfo struct {
	Name     string            `json:"name"`
	URL      string            `json:"url"`
	Server   string            `json:"server,omitempty"`
	Settings map[string]string `json:"settings,omitempty"`
}

// Run is one pass over the capture at one pace.
type Run struct {
	Label   string         `json:"label"`
	Speed   float64        `json:"speed,omitempty"`
	Rate    float64        `json:"rate,omitempty"`
	Aborted string         `json:"aborted,omitempty"`
	Rounds  int            `json:"rounds"` // measured rounds per target
	Targets []*TargetStats `json:"targets"`
	// Keyspaces the replayed statements used, sorted.
	Keyspaces []string `json:"keyspaces,omitempty"`
}

// TargetStats are one target's numbers in one run: the measured rounds
// added up (histograms, counts, timeline), each round on its own (Rounds,
// for medians and spreads), the warm-up's count and the schema phase.
type TargetStats struct {
	Name            string                 `json:"name"`
	Ops             int64                  `json:"ops"`
	Elapsed         time.Duration          `json:"elapsed"`       // first send to last completion, schema changes excluded
	ScheduleSpan    time.Duration          `json:"schedule_span"` // start to the last op's due time, schema changes excluded
	Intended        *hdr.Histogram         `json:"intended"`
	Actual          *hdr.Histogram         `json:"actual"`
	Lag             *hdr.Histogram         `json:"lag"`
	Errors          map[string]int64       `json:"errors,omitempty"`  // by CQL error code name
	Unexpected      int64                  `json:"unexpected_errors"` // errors the capture did not have
	Compared        int64                  `json:"compared"`
	Mismatches      int64                  `json:"mismatches"`
	CrossMismatches int64                  `json:"cross_mismatches"`
	Noise           int64                  `json:"noise"`
	Classes         map[string]*ClassStats `json:"classes"`
	Timeline        []Bucket               `json:"timeline"`
	Late            bool                   `json:"could_not_keep_up"`
	LateReason      string                 `json:"late_reason,omitempty"`
	// SchemaErrors are --create-schema statements the target refused.
	SchemaErrors []string `json:"schema_errors,omitempty"`
	// Schema is every schema statement's outcome: the schema phase and
	// the schema changes captured in the stream (untimed).
	Schema []SchemaOutcome `json:"schema,omitempty"`
	// SchemaPaused is how long the schedule stood still for captured
	// schema changes (all passes).
	SchemaPaused time.Duration `json:"schema_paused,omitempty"`
	// WarmupOps ops ran before the measured rounds, in no figure;
	// WarmupUnexpected of them failed unexpectedly (still an exit bit).
	WarmupOps        int64         `json:"warmup_ops,omitempty"`
	WarmupElapsed    time.Duration `json:"warmup_elapsed,omitempty"`
	WarmupUnexpected int64         `json:"warmup_unexpected_errors,omitempty"`
	Rounds           []*RoundStats `json:"rounds,omitempty"`
}

// Schema phases.
const (
	PhaseSchema = "schema (--create-schema)"
	PhaseWarmup = "captured, warm-up"
)

// SchemaOutcome is one schema statement on one target, untimed.
type SchemaOutcome struct {
	Phase     string        `json:"phase"`
	Statement string        `json:"statement"`
	Duration  time.Duration `json:"duration"`
	Result    string        `json:"result"` // "ok", "already exists" or the error
}

// RoundStats are one measured round of one target.
type RoundStats struct {
	Round      int                    `json:"round"`
	Ops        int64                  `json:"ops"`
	Elapsed    time.Duration          `json:"elapsed"`
	Intended   *hdr.Histogram         `json:"intended"`
	Lag        *hdr.Histogram         `json:"lag"`
	Unexpected int64                  `json:"unexpected_errors"`
	Late       string                 `json:"could_not_keep_up,omitempty"`
	Classes    map[string]*RoundClass `json:"classes"`
}

// RoundClass is one statement class in one round.
type RoundClass struct {
	Ops      int64          `json:"ops"`
	Intended *hdr.Histogram `json:"intended"`
}

// Throughput is the round's ops per second.
func (r *RoundStats) Throughput() float64 { return rate(r.Ops, r.Elapsed) }

func rate(ops int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(ops) / d.Seconds()
}

// ClassStats are the numbers of one statement class (fingerprint).
type ClassStats struct {
	Ops        int64            `json:"ops"`
	Intended   *hdr.Histogram   `json:"intended"`
	Actual     *hdr.Histogram   `json:"actual"`
	Errors     map[string]int64 `json:"errors,omitempty"`
	Mismatches int64            `json:"mismatches"`
	Compared   int64            `json:"compared"`
	Cross      int64            `json:"cross_mismatches"`
	Noise      int64            `json:"noise"`
	Examples   []Example        `json:"examples,omitempty"`
}

// Example is one mismatching read.
type Example struct {
	Statement string `json:"statement"`
	Values    string `json:"values"`
	WantRows  int    `json:"want_rows"`
	GotRows   int    `json:"got_rows"`
	Against   string `json:"against"` // "capture" or the other target's name
}

// Bucket is one second of the timeline. Round is the measured round the
// second belongs to; 0 is the warm-up (drawn grey, in no figure).
type Bucket struct {
	Sec   int64 `json:"sec"`
	Round int   `json:"round"`
	Ops   int64 `json:"ops"`
	SumNs int64 `json:"sum_ns"` // intended latency sum
	MaxNs int64 `json:"max_ns"`
	// Lat counts the second's intended latencies in bins growing by 10%
	// (binOf), for the percentiles-over-time chart (±5%).
	Lat []uint32 `json:"lat,omitempty"`
}

// latBase is the growth of Bucket.Lat's bins.
const latBase = 1.1

func binOf(ns int64) int {
	if ns < 1 {
		return 0
	}
	return int(math.Log(float64(ns)) / math.Log(latBase))
}

// record adds one latency to the bucket's bins.
func (b *Bucket) record(ns int64) {
	i := binOf(ns)
	for len(b.Lat) <= i {
		b.Lat = append(b.Lat, 0)
	}
	b.Lat[i]++
}

// Quantile is the q-quantile of the second's latencies (ns, the middle of
// its bin), 0 without data.
func (b *Bucket) Quantile(q float64) float64 {
	var n uint64
	for _, c := range b.Lat {
		n += uint64(c)
	}
	if n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(n)))
	var seen uint64
	for i, c := range b.Lat {
		seen += uint64(c)
		if seen >= max(rank, 1) {
			return math.Pow(latBase, float64(i)+0.5)
		}
	}
	return float64(b.MaxNs)
}

// maxExamples bounds the examples kept per class.
const maxExamples = 5

func newTargetStats(name string) *TargetStats {
	return &TargetStats{Name: name, Intended: hdr.New(), Actual: hdr.New(), Lag: hdr.New(),
		Errors: map[string]int64{}, Classes: map[string]*ClassStats{}}
}

func (s *TargetStats) class(fp string) *ClassStats {
	c := s.Classes[fp]
	if c == nil {
		c = &ClassStats{Intended: hdr.New(), Actual: hdr.New(), Errors: map[string]int64{}}
		s.Classes[fp] = c
	}
	return c
}

// observe records one op's timing and error (the caller serialises).
func (s *TargetStats) observe(start time.Time, fp string, tm Timing, out *Outcome, capErr bool, capCode bindings.ErrorCode) {
	s.Ops++
	in, act := int64(tm.Intended()), int64(tm.Actual())
	s.Intended.Record(in)
	s.Actual.Record(act)
	s.Lag.Record(int64(tm.Lag()))
	c := s.class(fp)
	c.Ops++
	c.Intended.Record(in)
	c.Actual.Record(act)
	if out.Err {
		code := out.Code.String()
		s.Errors[code]++
		c.Errors[code]++
		// A schema statement finding its object already there (the schema
		// was created by --create-schema) is expected.
		ddl := out.Code == bindings.CodeAlreadyExists && isSchemaChange(fp)
		if (!capErr || capCode != out.Code) && !ddl {
			s.Unexpected++
		}
	}
	sec := int64(tm.Done.Sub(start) / time.Second)
	if sec < 0 {
		sec = 0
	}
	for int64(len(s.Timeline)) <= sec {
		s.Timeline = append(s.Timeline, Bucket{Sec: int64(len(s.Timeline))})
	}
	b := &s.Timeline[sec]
	b.Ops++
	b.record(in)
	b.SumNs += in
	if in > b.MaxNs {
		b.MaxNs = in
	}
}

// Throughput is ops per second over Elapsed (all measured rounds).
func (s *TargetStats) Throughput() float64 { return rate(s.Ops, s.Elapsed) }

// addWarmup records the warm-up pass: its ops count, its timeline (round
// 0) and its schema changes, nothing else.
func (s *TargetStats) addWarmup(p pass) {
	s.WarmupOps += p.st.Ops
	s.WarmupElapsed += p.st.Elapsed
	s.WarmupUnexpected += p.st.Unexpected
	s.Schema = append(s.Schema, p.st.Schema...)
	s.SchemaPaused += p.st.SchemaPaused
	s.appendTimeline(p.st.Timeline, 0)
}

// addRound adds a measured round: to the totals and as a round of its own.
func (s *TargetStats) addRound(round int, p pass) {
	o := p.st
	s.addCounts(o)
	s.Elapsed += o.Elapsed
	s.ScheduleSpan += o.ScheduleSpan
	s.Schema = append(s.Schema, o.Schema...)
	s.SchemaPaused += o.SchemaPaused
	s.appendTimeline(o.Timeline, round)
	rs := &RoundStats{Round: round, Ops: o.Ops, Elapsed: o.Elapsed, Intended: o.Intended, Lag: o.Lag,
		Unexpected: o.Unexpected, Classes: map[string]*RoundClass{}}
	for fp, c := range o.Classes {
		rs.Classes[fp] = &RoundClass{Ops: c.Ops, Intended: c.Intended}
	}
	if o.Late {
		rs.Late = o.LateReason
		if !s.Late {
			s.Late, s.LateReason = true, fmt.Sprintf("round %d: %s", round, o.LateReason)
		}
	}
	s.Rounds = append(s.Rounds, rs)
}

// appendTimeline appends a pass's seconds after the ones already there.
func (s *TargetStats) appendTimeline(bs []Bucket, round int) {
	base := int64(len(s.Timeline))
	for _, b := range bs {
		b.Sec += base
		b.Round = round
		s.Timeline = append(s.Timeline, b)
	}
}

// judge sets Late from the lag p99 and how late the schedule finished.
func (s *TargetStats) judge(lagThreshold time.Duration, lateFraction float64, paced bool) {
	if !paced || s.Ops == 0 {
		return
	}
	if p := time.Duration(s.Lag.Quantile(0.99)); lagThreshold > 0 && p > lagThreshold {
		s.Late, s.LateReason = true, fmt.Sprintf("lag p99 %v > %v", p, lagThreshold)
		return
	}
	if lateFraction > 0 && s.ScheduleSpan > time.Second && float64(s.Elapsed) > float64(s.ScheduleSpan)*(1+lateFraction) {
		s.Late, s.LateReason = true, fmt.Sprintf("finished in %v, schedule %v", s.Elapsed.Round(time.Millisecond), s.ScheduleSpan.Round(time.Millisecond))
	}
}

// ExitCode is the bit-flag exit code of the report.
func (r *Report) ExitCode() int {
	code := 0
	for _, run := range r.Runs {
		for _, t := range run.Targets {
			if t.Unexpected > 0 || t.WarmupUnexpected > 0 {
				code |= ExitErrors
			}
			if t.Mismatches > 0 || t.CrossMismatches > 0 {
				code |= ExitMismatches
			}
			if t.Late {
				code |= ExitLate
			}
		}
	}
	return code
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	r.ComputeVerdicts()
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// ReadReportFile reads a JSON report.
func ReadReportFile(path string) (*Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("replay: report: %w", err)
	}
	defer f.Close()
	r, err := ReadReport(f)
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, path)
	}
	return r, nil
}

// ReadReport reads a JSON report (a file, or a live mirroring report
// from /admin/mirror/report) and recomputes its verdicts.
func ReadReport(rd io.Reader) (*Report, error) {
	var r Report
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return nil, fmt.Errorf("replay: report: %w", err)
	}
	r.ComputeVerdicts()
	return &r, nil
}

// MergeReports adds shard reports: runs match by label and targets by
// name; histograms, counts and timelines add, elapsed is the longest.
func MergeReports(rs ...*Report) (*Report, error) {
	if len(rs) == 0 {
		return nil, fmt.Errorf("replay: no reports to merge")
	}
	out := &Report{Conditions: rs[0].Conditions}
	// Shards replay parts of the same capture: its conditions (records,
	// span) are not added, only the shard list is.
	out.Conditions.Shards = nil
	runs := map[string]*Run{}
	for _, r := range rs {
		out.Conditions.Shards = append(out.Conditions.Shards, r.Conditions.Shards...)
		for _, run := range r.Runs {
			m := runs[run.Label]
			if m == nil {
				m = &Run{Label: run.Label, Speed: run.Speed, Rate: run.Rate, Aborted: run.Aborted, Rounds: run.Rounds}
				runs[run.Label] = m
				out.Runs = append(out.Runs, m)
			}
			m.Keyspaces = mergeSorted(m.Keyspaces, run.Keyspaces)
			for _, t := range run.Targets {
				var dst *TargetStats
				for _, x := range m.Targets {
					if x.Name == t.Name {
						dst = x
					}
				}
				if dst == nil {
					dst = newTargetStats(t.Name)
					m.Targets = append(m.Targets, dst)
				}
				dst.add(t)
			}
		}
	}
	return out, nil
}

// mergeSorted is the sorted union of a and b.
func mergeSorted(a, b []string) []string {
	out := append(append([]string(nil), a...), b...)
	sort.Strings(out)
	return slices.Compact(out)
}

// add adds a shard's numbers: shards run at the same time, so elapsed
// times are the longest, and rounds add round by round.
func (s *TargetStats) add(o *TargetStats) {
	s.addCounts(o)
	if o.Elapsed > s.Elapsed {
		s.Elapsed = o.Elapsed
	}
	if o.ScheduleSpan > s.ScheduleSpan {
		s.ScheduleSpan = o.ScheduleSpan
	}
	s.WarmupOps += o.WarmupOps
	s.WarmupElapsed = max(s.WarmupElapsed, o.WarmupElapsed)
	s.WarmupUnexpected += o.WarmupUnexpected
	s.SchemaPaused = max(s.SchemaPaused, o.SchemaPaused)
	s.Schema = append(s.Schema, o.Schema...)
	s.SchemaErrors = append(s.SchemaErrors, o.SchemaErrors...)
	for _, b := range o.Timeline {
		for int64(len(s.Timeline)) <= b.Sec {
			s.Timeline = append(s.Timeline, Bucket{Sec: int64(len(s.Timeline)), Round: b.Round})
		}
		d := &s.Timeline[b.Sec]
		d.Ops += b.Ops
		for len(d.Lat) < len(b.Lat) {
			d.Lat = append(d.Lat, 0)
		}
		for i, c := range b.Lat {
			d.Lat[i] += c
		}
		d.SumNs += b.SumNs
		d.MaxNs = max(d.MaxNs, b.MaxNs)
	}
	for i, r := range o.Rounds {
		if i >= len(s.Rounds) {
			s.Rounds = append(s.Rounds, &RoundStats{Round: r.Round, Intended: hdr.New(), Lag: hdr.New(), Classes: map[string]*RoundClass{}})
		}
		d := s.Rounds[i]
		d.Ops += r.Ops
		d.Elapsed = max(d.Elapsed, r.Elapsed)
		mergeH(d.Intended, r.Intended)
		mergeH(d.Lag, r.Lag)
		d.Unexpected += r.Unexpected
		if d.Late == "" {
			d.Late = r.Late
		}
		for fp, c := range r.Classes {
			dc := d.Classes[fp]
			if dc == nil {
				dc = &RoundClass{Intended: hdr.New()}
				d.Classes[fp] = dc
			}
			dc.Ops += c.Ops
			mergeH(dc.Intended, c.Intended)
		}
	}
	if o.Late {
		s.Late = true
		s.LateReason = o.LateReason
	}
}

// addCounts adds everything but times, timelines and rounds.
func (s *TargetStats) addCounts(o *TargetStats) {
	s.Ops += o.Ops
	mergeH(s.Intended, o.Intended)
	mergeH(s.Actual, o.Actual)
	mergeH(s.Lag, o.Lag)
	for k, v := range o.Errors {
		s.Errors[k] += v
	}
	s.Unexpected += o.Unexpected
	s.Compared += o.Compared
	s.Mismatches += o.Mismatches
	s.CrossMismatches += o.CrossMismatches
	s.Noise += o.Noise
	for fp, c := range o.Classes {
		d := s.class(fp)
		d.Ops += c.Ops
		mergeH(d.Intended, c.Intended)
		mergeH(d.Actual, c.Actual)
		for k, v := range c.Errors {
			d.Errors[k] += v
		}
		d.Mismatches += c.Mismatches
		d.Compared += c.Compared
		d.Cross += c.Cross
		d.Noise += c.Noise
		for _, e := range c.Examples {
			if len(d.Examples) < maxExamples {
				d.Examples = append(d.Examples, e)
			}
		}
	}
}

func mergeH(dst, src *hdr.Histogram) {
	if src != nil {
		dst.Merge(src)
	}
}
