package replay

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/capture"
	"github.com/dohyo/dohyo/replay/hdr"
)

// clockTarget takes virtual time: ddl per schema statement (captured or
// --create-schema), op per other op. It logs which target ran the first
// op of each pass.
type clockTarget struct {
	name    string
	clk     *FakeClock
	ddl, op time.Duration
	mu      *sync.Mutex
	log     *[]string
}

func (c clockTarget) Do(ctx context.Context, op *Op) Outcome {
	if c.log != nil && op.Index == 10 { // the first op after a 10-op warm-up
		c.mu.Lock()
		*c.log = append(*c.log, c.name)
		c.mu.Unlock()
	}
	d := c.op
	if op.Barrier {
		d = c.ddl
	}
	if d > 0 {
		<-c.clk.NewTimer(d).C()
	}
	return Outcome{}
}

func (c clockTarget) ApplySchema(context.Context, string) error { return nil }
func (c clockTarget) Close() error                              { return nil }

// ddlTraffic is a CREATE TABLE, then n writes 1ms apart on 2 sessions.
func ddlTraffic(n int) []*capture.Record {
	q := "CREATE TABLE ks.u (k int PRIMARY KEY)"
	recs := []*capture.Record{{Time: 0, Node: "n", Session: 1, Keyspace: "ks", Query: q, Fingerprint: q, ResultKind: bindings.ResultSchemaChange}}
	for i := 0; i < n; i++ {
		recs = append(recs, &capture.Record{Time: int64(i+1) * int64(time.Millisecond), Node: "n", Session: uint64(i % 2), Keyspace: "ks",
			Query: "INSERT INTO u (k) VALUES (1)", Fingerprint: "INSERT INTO u (k) VALUES (?)"})
	}
	return recs
}

func memOpen(recs []*capture.Record, ddl string) func(context.Context) (recordSource, string, func() error, error) {
	return func(context.Context) (recordSource, string, func() error, error) {
		return &memRecords{recs: append([]*capture.Record(nil), recs...)}, ddl, func() error { return nil }, nil
	}
}

// A target whose CREATE TABLE takes 2 s is not late: the schedule pauses
// for schema changes, which go to the schema table and no figure.
func TestReplaySlowDDLIsUntimed(t *testing.T) {
	clk := NewFakeClock(epoch)
	opts := Options{Schedule: ScheduleOptions{Mode: ModeSpeed, Speed: 1, Clock: clk}, CreateSchema: true,
		LagThreshold: 20 * time.Millisecond, LateFraction: 0.1, openRecords: memOpen(ddlTraffic(50), testDDL)}
	run, err := Replay(context.Background(), opts, []NamedTarget{{"slowddl", clockTarget{clk: clk, ddl: 2 * time.Second, op: 100 * time.Microsecond}}})
	if err != nil {
		t.Fatal(err)
	}
	st := run.Targets[0]
	if st.Late || st.Lag.Max() != 0 || st.Ops != 50 {
		t.Fatalf("late %v (%s), lag max %v, ops %d; want not late, no lag, 50 ops (the DDL in no figure)", st.Late, st.LateReason, time.Duration(st.Lag.Max()), st.Ops)
	}
	if st.Intended.Max() >= int64(time.Millisecond) || st.Elapsed >= 100*time.Millisecond {
		t.Fatalf("intended max %v, elapsed %v: the DDL's 2s leaked into the figures", time.Duration(st.Intended.Max()), st.Elapsed)
	}
	var phases []string
	for _, so := range st.Schema {
		phases = append(phases, fmt.Sprintf("%s %v", so.Phase, so.Duration))
	}
	if len(st.Schema) != 3 || st.Schema[2].Phase != "captured, round 1" || st.Schema[2].Duration != 2*time.Second || st.SchemaPaused < 2*time.Second {
		t.Fatalf("schema outcomes %v, paused %v; want 2 --create-schema statements and the captured CREATE TABLE (2s)", phases, st.SchemaPaused)
	}
	var b bytes.Buffer
	if err := (&Report{Runs: []*Run{run}}).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "# schema (untimed") || !strings.Contains(b.String(), "CREATE TABLE ks.u") {
		t.Errorf("text lacks the schema table:\n%s", b.String())
	}
	// Without the pause the same target is late: the test can fail.
	ops := mkOps([]int64{0, 1e6, 2e6, 3e6}, 2)
	ops[0].Barrier = true
	s, _ := NewScheduler(ScheduleOptions{Mode: ModeSpeed, Speed: 1, Clock: clk})
	rs, err := s.Run(context.Background(), &sliceSource{ops: ops}, func(ctx context.Context, op *Op) {
		if op.Barrier {
			<-clk.NewTimer(time.Second).C()
		}
	}, nil)
	if err != nil || rs.Paused != time.Second || rs.Measured() != 3*time.Millisecond {
		t.Fatalf("paused %v measured %v (%v); want 1s and 3ms", rs.Paused, rs.Measured(), err)
	}
}

// The warm-up runs once per target, before the rounds, in no figure.
func TestReplayWarmupExcluded(t *testing.T) {
	for _, w := range []Warmup{{Ops: 10}, {Duration: 9500 * time.Microsecond}} {
		clk := NewFakeClock(epoch)
		recs := slowTraffic(30)
		opts := Options{Schedule: ScheduleOptions{Mode: ModeSpeed, Speed: 1, Clock: clk}, Warmup: w, Repeat: 2, openRecords: memOpen(recs, "")}
		run, err := Replay(context.Background(), opts, []NamedTarget{
			{"a", clockTarget{clk: clk, op: 200 * time.Microsecond}}, {"b", clockTarget{clk: clk, op: 200 * time.Microsecond}}})
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range run.Targets {
			// 10 warm-up ops (offsets 0..9ms), then 20 per round.
			if st.WarmupOps != 10 || st.Ops != 40 || st.Intended.Count() != 40 || len(st.Rounds) != 2 || st.Rounds[1].Ops != 20 {
				t.Fatalf("%+v %s: warm-up %d, ops %d, hist %d, rounds %d; want 10, 40, 40, 2", w, st.Name, st.WarmupOps, st.Ops, st.Intended.Count(), len(st.Rounds))
			}
			if len(st.Timeline) == 0 || st.Timeline[0].Round != 0 || st.Timeline[len(st.Timeline)-1].Round != 2 {
				t.Fatalf("%+v: timeline %+v: want the warm-up (round 0) first, round 2 last", w, st.Timeline)
			}
			// Round 1 re-times the rest from its own start: the first
			// measured op (captured at 10ms) is due at once.
			if st.Rounds[0].Elapsed > 20*time.Millisecond {
				t.Fatalf("round 1 elapsed %v, want the 19ms schedule span + 0.2ms", st.Rounds[0].Elapsed)
			}
		}
	}
}

// Rounds are interleaved: A1 B1 A2 B2 A3 B3.
func TestReplayRepeatInterleaves(t *testing.T) {
	clk := NewFakeClock(epoch)
	var mu sync.Mutex
	var log []string
	opts := Options{Schedule: ScheduleOptions{Mode: ModeMax, Clock: clk}, Warmup: Warmup{Ops: 10}, Repeat: 3, openRecords: memOpen(slowTraffic(20), "")}
	var ts []NamedTarget
	for _, n := range []string{"A", "B"} {
		ts = append(ts, NamedTarget{n, clockTarget{name: n, clk: clk, op: time.Millisecond, mu: &mu, log: &log}})
	}
	run, err := Replay(context.Background(), opts, ts)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(log, " "); got != "A B A B A B" {
		t.Fatalf("measured rounds ran in order %q, want A B A B A B", got)
	}
	for _, st := range run.Targets {
		for i, r := range st.Rounds {
			if r.Round != i+1 || r.Ops != 10 || r.Elapsed != 10*time.Millisecond {
				t.Fatalf("%s round %d: %+v; want round %d, 10 ops in 10ms", st.Name, i, r, i+1)
			}
		}
	}
}

// syntheticTarget has rounds with the given throughputs (ops/s over 1s)
// and p99s (every op in a round takes that long), on two classes.
func syntheticTarget(name string, tputs, lat []float64) *TargetStats {
	st := newTargetStats(name)
	for i := range tputs {
		r := &RoundStats{Round: i + 1, Ops: int64(tputs[i]), Elapsed: time.Second, Intended: hdr.New(), Lag: hdr.New(), Classes: map[string]*RoundClass{}}
		for _, fp := range []string{"SELECT * FROM t WHERE k = ?", "INSERT INTO t (k) VALUES (?)"} {
			c := &RoundClass{Ops: r.Ops / 2, Intended: hdr.New()}
			c.Intended.RecordN(int64(lat[i]*1e6), uint64(c.Ops))
			r.Classes[fp] = c
			r.Intended.RecordN(int64(lat[i]*1e6), uint64(c.Ops))
			cs := st.class(fp)
			cs.Ops += c.Ops
			cs.Intended.Merge(c.Intended)
			cs.Actual.Merge(c.Intended)
		}
		r.Lag.Record(0)
		st.Ops += r.Ops
		st.Elapsed += r.Elapsed
		st.Intended.Merge(r.Intended)
		st.Actual.Merge(r.Intended)
		st.Rounds = append(st.Rounds, r)
	}
	st.Compared, st.Mismatches = 500, 0
	return st
}

func TestReplayBootstrapIntervals(t *testing.T) {
	// A known difference: B has half A's throughput; the interval holds
	// 0.5 and not 1.
	a := []float64{1000, 1010, 990, 1005, 995}
	b := []float64{500, 505, 495, 502, 498}
	r := bootstrapRatio(b, a)
	if !(r.Lo <= 0.5 && 0.5 <= r.Hi) || r.Hi >= 1 || r.Noise() || math.Abs(r.Value-0.5) > 0.01 {
		t.Fatalf("ratio %+v: want about 0.5 with an interval around it and below 1", r)
	}
	// No difference: two draws of the same spread are within noise.
	c := []float64{1010, 990, 1020, 980, 1000}
	if r := bootstrapRatio(c, a); !r.Noise() || r.Label() != "within noise" {
		t.Fatalf("ratio %+v: want within noise", r)
	}
	// One round: no interval, and it says so.
	if r := bootstrapRatio(b[:1], a[:1]); r.Noise() || r.Label() != "no interval (1 round)" || r.Lo != r.Value {
		t.Fatalf("ratio %+v: want no interval", r)
	}
	// Fixed seed: the same data give the same interval.
	if r1, r2 := bootstrapRatio(b, a), bootstrapRatio(b, a); r1 != r2 {
		t.Fatalf("bootstrap not reproducible: %+v %+v", r1, r2)
	}
}

// The verdict's numbers are the figures tables' numbers, in every format.
func TestReplayVerdictMatchesTables(t *testing.T) {
	base := syntheticTarget("t1:cassandra", []float64{1000, 1020, 980}, []float64{2, 2.1, 1.9})
	other := syntheticTarget("t2:hbase", []float64{800, 820, 790}, []float64{4, 4.2, 3.8})
	same := syntheticTarget("t3:embedded", []float64{990, 1030, 1000}, []float64{2.05, 1.95, 2})
	rep := &Report{Conditions: Conditions{Baseline: "t1:cassandra"}, Runs: []*Run{{Label: "max", Rounds: 3, Targets: []*TargetStats{other, base, same}}}}
	v := rep.ComputeVerdicts()[0]
	if v.Baseline != "t1:cassandra" || v.Figures[0].Target != "t1:cassandra" || len(v.Sentences) != 2 {
		t.Fatalf("baseline %s, first figures %s, %d sentences", v.Baseline, v.Figures[0].Target, len(v.Sentences))
	}
	fig := map[string]Figures{}
	for _, tf := range v.Figures {
		fig[tf.Target] = tf.Overall
	}
	for _, r := range v.Rows {
		if r.Class != OverallClass {
			continue
		}
		if want := fig[r.Target].Throughput.Median / fig["t1:cassandra"].Throughput.Median; r.Throughput.Value != want {
			t.Errorf("%s: verdict throughput %v, figures say %v", r.Target, r.Throughput.Value, want)
		}
		if want := fig[r.Target].P99.Median / fig["t1:cassandra"].P99.Median; r.P99.Value != want {
			t.Errorf("%s: verdict p99 %v, figures say %v", r.Target, r.P99.Value, want)
		}
	}
	hb := v.Rows[0]
	if hb.Target != "t2:hbase" || math.Abs(hb.Throughput.Value-0.8) > 1e-9 || hb.Throughput.Noise() || hb.P99.Value < 1.9 {
		t.Fatalf("hbase row %+v: want 0.80× throughput, not noise, p99 about 2×", hb)
	}
	var text, html bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	tail := text.String()[strings.LastIndex(text.String(), "# ===== verdict"):]
	for _, want := range []string{hb.Throughput.String(), hb.P99.String(), "t2:hbase: " + hb.Throughput.String() + " t1:cassandra's throughput",
		"within noise", "0 mismatches in 500 reads compared", spreadNum(fig["t2:hbase"].Throughput)} {
		if !strings.Contains(tail, want) {
			t.Errorf("the text's verdict lacks %q:\n%s", want, tail)
		}
		if !strings.Contains(html.String(), strings.ReplaceAll(want, "'", "&#39;")) {
			t.Errorf("the HTML lacks %q", want)
		}
	}
	h := html.String()
	if strings.Index(h, `id="verdict"`) > strings.Index(h, "<h2>Conditions") {
		t.Error("the HTML's verdict is not first")
	}
	for _, c := range Columns {
		if !strings.Contains(h, template.HTMLEscapeString(c.Help)) {
			t.Errorf("the HTML lacks the explanation of %q", c.Name)
		}
	}
	if strings.Contains(h, "<td></td>") || strings.Contains(h, `<td class="l"></td>`) {
		i := max(strings.Index(h, "<td></td>"), strings.Index(h, `<td class="l"></td>`))
		t.Errorf("the HTML has blank cells: %s", h[max(i-300, 0):i+20])
	}
}

func TestReplayUnequalConditionsWarn(t *testing.T) {
	ws := CompareConditions([]TargetInfo{
		{Name: "a", Settings: map[string]string{"consistency": "QUORUM", "salt": "8", "storage": "x"}},
		{Name: "b", Settings: map[string]string{"consistency": "ONE", "salt": "8", "storage": "y"}},
	})
	if len(ws) != 1 || !strings.Contains(ws[0], "consistency") || !strings.Contains(ws[0], "ONE on b") {
		t.Fatalf("warnings %q, want one on consistency", ws)
	}
}

func TestReplayBucketQuantiles(t *testing.T) {
	var b Bucket
	for i := int64(1); i <= 100; i++ {
		b.record(i * int64(time.Millisecond))
	}
	for _, q := range []struct{ q, want float64 }{{0.5, 50e6}, {0.99, 99e6}} {
		if got := b.Quantile(q.q); math.Abs(got-q.want)/q.want > 0.06 {
			t.Errorf("p%g = %v, want %v ±6%%", q.q*100, got, q.want)
		}
	}
	if (&Bucket{}).Quantile(.5) != 0 {
		t.Error("an empty second has a quantile")
	}
}

// A class row's ops/s ratio tells classes apart: the same schedule gives
// every class the overall throughput ratio, so the class row compares
// service rates. Here the target is 2× slower on reads only.
func TestReplayClassRatiosDiffer(t *testing.T) {
	const sel, ins = "SELECT * FROM t WHERE k = ?", "INSERT INTO t (k) VALUES (?)"
	mk := func(name string, selMs float64) *TargetStats {
		st := newTargetStats(name)
		for i := 0; i < 3; i++ {
			r := &RoundStats{Round: i + 1, Ops: 1000, Elapsed: time.Second, Intended: hdr.New(), Lag: hdr.New(), Classes: map[string]*RoundClass{}}
			for fp, ms := range map[string]float64{sel: selMs * (1 + 0.01*float64(i)), ins: 1 + 0.01*float64(i)} {
				c := &RoundClass{Ops: 500, Intended: hdr.New()}
				c.Intended.RecordN(int64(ms*1e6), 500)
				r.Classes[fp] = c
				r.Intended.Merge(c.Intended)
				st.class(fp).Ops += 500
			}
			r.Lag.Record(0)
			st.Ops += r.Ops
			st.Elapsed += r.Elapsed
			st.Rounds = append(st.Rounds, r)
		}
		return st
	}
	v := NewVerdict(&Run{Label: "max", Rounds: 3, Targets: []*TargetStats{mk("base", 1), mk("slow-reads", 2)}}, "")
	got := map[string]Ratio{}
	for _, r := range v.Rows {
		got[r.Class] = r.Throughput
	}
	if r := got[OverallClass]; math.Abs(r.Value-1) > 1e-9 {
		t.Errorf("overall ops/s ratio %v: same schedule, want 1", r)
	}
	if r := got[sel]; math.Abs(r.Value-0.5) > 0.02 || r.Noise() {
		t.Errorf("SELECT service-rate ratio %v: want 0.5, outside noise", r)
	}
	if r := got[ins]; math.Abs(r.Value-1) > 0.02 {
		t.Errorf("INSERT service-rate ratio %v: want 1", r)
	}
}

// A generated YCSB run's verdict compares YCSB's operations: its ten
// per-field UPDATE classes are one UPDATE row, as in YCSB's own report.
func TestReplayYCSBClassesGrouped(t *testing.T) {
	mk := func(name string, updMs float64) *TargetStats {
		st := newTargetStats(name)
		r := &RoundStats{Round: 1, Ops: 1100, Elapsed: time.Second, Intended: hdr.New(), Lag: hdr.New(), Classes: map[string]*RoundClass{}}
		add := func(fp string, ops int64, ms float64) {
			c := &RoundClass{Ops: ops, Intended: hdr.New()}
			c.Intended.RecordN(int64(ms*1e6), uint64(ops))
			r.Classes[fp] = c
			r.Intended.Merge(c.Intended)
			cs := st.class(fp)
			cs.Ops += ops
			cs.Intended.Merge(c.Intended)
		}
		add("SELECT * FROM ycsb.usertable WHERE y_id = ?", 100, 1)
		for f := 0; f < 10; f++ {
			add(fmt.Sprintf("UPDATE ycsb.usertable SET field%d = ? WHERE y_id = ?", f), 100, updMs)
		}
		r.Lag.Record(0)
		st.Ops, st.Elapsed, st.Rounds = r.Ops, r.Elapsed, []*RoundStats{r}
		return st
	}
	rep := &Report{Conditions: Conditions{Provenance: Provenance{Generated: "ycsb workload a"}},
		Runs: []*Run{{Label: "max", Rounds: 1, Targets: []*TargetStats{mk("a", 1), mk("b", 3)}}}}
	v := rep.ComputeVerdicts()[0]
	var classes []string
	for _, r := range v.Rows {
		classes = append(classes, r.Class)
		if r.Class == "UPDATE" && (r.Ops != 1000 || math.Abs(r.P99.Value-3) > 0.1) {
			t.Errorf("UPDATE row %+v: want 1000 ops, p99 3×", r)
		}
	}
	if !slices.Equal(classes, []string{OverallClass, "UPDATE", "READ"}) || v.Omitted != 0 {
		t.Errorf("verdict classes %q (omitted %d): want overall, UPDATE, READ", classes, v.Omitted)
	}
	if len(rep.Runs[0].Targets[0].Classes) != 11 {
		t.Error("grouping changed the run's own classes")
	}
}
