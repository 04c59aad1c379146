package replay

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/faulty"
	"github.com/dohyo/dohyo/bindings/stores"
	"github.com/dohyo/dohyo/capture"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/engine"
)

const testDDL = `CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c));`

type memRecords struct{ recs []*capture.Record }

func (m *memRecords) Next() (*capture.Record, error) {
	if len(m.recs) == 0 {
		return nil, io.EOF
	}
	r := m.recs[0]
	m.recs = m.recs[1:]
	return r, nil
}

func i32(v int) capture.Value {
	b := make([]byte, 4)
	binary.BigEndian.PutUint32(b, uint32(v))
	return capture.Value{Bytes: b}
}

// recordTraffic runs statements against a reference embedded store and
// captures them as a proxy would: including multi-page reads whose later
// pages are separate records with Paging set.
func recordTraffic(t *testing.T) []*capture.Record {
	t.Helper()
	ctx := context.Background()
	ref, err := stores.OpenURL(ctx, "embedded://memory", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	if err := NewBackendTarget(nopClose{ref}).ApplySchema(ctx, testDDL); err != nil {
		t.Fatal(err)
	}
	var recs []*capture.Record
	now := int64(1_700_000_000_000_000_000)
	add := func(sess uint64, q string, vals []capture.Value, pageSize int32) {
		req := &bindings.Request{Keyspace: "ks", Query: q, Values: bindValues(vals), Consistency: bindings.One, PageSize: pageSize}
		paging := false
		for {
			res, err := ref.Execute(ctx, req)
			now += int64(time.Millisecond)
			r := &capture.Record{Time: now, Node: "n1", Session: sess, Keyspace: "ks", Query: q, Fingerprint: cql.Fingerprint(q),
				Prepared: vals != nil, Values: vals, Consistency: bindings.One, PageSize: pageSize, Paging: paging, Latency: 100 * time.Microsecond}
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			r.ResultKind = res.Kind
			if res.Kind == bindings.ResultRows {
				r.Rows, r.Digest, r.HasMore = len(res.Rows), bindings.RowsDigest(res.Rows), res.PagingState != nil
			}
			recs = append(recs, r)
			if res.PagingState == nil {
				return
			}
			req.PagingState, paging = res.PagingState, true
		}
	}
	for i := 0; i < 30; i++ {
		add(uint64(i%3), "INSERT INTO t (k, c, v) VALUES (?, ?, 'x')", []capture.Value{i32(i % 4), i32(i)}, 0)
	}
	// The reads must see every write, which other sessions made: a schema
	// change between them orders them, as a fact of the replay (a barrier:
	// every earlier op completes before, every later one is sent after),
	// where a pause in the schedule would only order them as far as a
	// target keeps up with it — a loaded machine's may not.
	add(9, "CREATE TABLE IF NOT EXISTS ks.sync (k int PRIMARY KEY)", nil, 0)
	for k := 0; k < 4; k++ {
		add(uint64(k%3), "SELECT k, c, v FROM t WHERE k = ?", []capture.Value{i32(k)}, 3)
	}
	add(7, "SELECT k, c, v FROM t WHERE k = 1 AND c = 1", nil, 0)
	return recs
}

type nopClose struct{ bindings.Backend }

func (nopClose) Close() error { return nil }

func replayRecords(t *testing.T, recs []*capture.Record, targets []NamedTarget) *Run {
	t.Helper()
	opts := Options{
		// Captured ops are 1ms apart; speed 1 keeps cross-session order.
		Schedule:     ScheduleOptions{Mode: ModeSpeed, Speed: 1},
		CreateSchema: true,
		openRecords: func(context.Context) (recordSource, string, func() error, error) {
			return &memRecords{recs: append([]*capture.Record(nil), recs...)}, testDDL, func() error { return nil }, nil
		},
	}
	run, err := Replay(context.Background(), opts, targets)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// openMem opens an in-memory engine, wrapped for fault injection.
func openMem(t *testing.T) *faulty.Backend {
	t.Helper()
	e, err := stores.OpenURL(context.Background(), "embedded://memory", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := faulty.Wrap(e)
	t.Cleanup(func() { b.Close() })
	return b
}

func TestReplayCleanTargetMatches(t *testing.T) {
	recs := recordTraffic(t)
	a, b := openMem(t), openMem(t)
	// Target a is slow to write, as a loaded machine makes any target:
	// its writes end long after the reads' captured times, and the reads
	// still see them (recordTraffic's barrier).
	a.InjectFault(faulty.Fault{Match: "INSERT", Delay: 25 * time.Millisecond})
	run := replayRecords(t, recs, []NamedTarget{{"a", NewBackendTarget(nopClose{a})}, {"b", NewBackendTarget(nopClose{b})}})
	rep := &Report{Runs: []*Run{run}}
	for _, st := range run.Targets {
		if st.Mismatches != 0 || st.CrossMismatches != 0 || st.Unexpected != 0 {
			t.Errorf("target %s: mismatches %d cross %d errors %d, want 0", st.Name, st.Mismatches, st.CrossMismatches, st.Unexpected)
		}
		if st.Compared != 5 {
			t.Errorf("target %s: compared %d reads, want 5", st.Name, st.Compared)
		}
		if want := int64(35); st.Ops != want {
			t.Errorf("target %s: ops %d, want %d (continuation pages are not replayed)", st.Name, st.Ops, want)
		}
	}
	if c := rep.ExitCode(); c != 0 {
		t.Errorf("exit code %d, want 0", c)
	}
}

func TestReplayWrongTargetCaught(t *testing.T) {
	recs := recordTraffic(t)
	good, bad := openMem(t), openMem(t)
	bad.InjectFault(faulty.Fault{Match: "WHERE k = ?", Alter: func(r *bindings.Result) {
		if len(r.Rows) > 0 {
			r.Rows = r.Rows[1:]
		}
	}})
	bad.InjectFault(faulty.Fault{Match: "c = 1", Err: bindings.Errorf(bindings.CodeReadTimeout, "injected")})
	run := replayRecords(t, recs, []NamedTarget{{"good", NewBackendTarget(nopClose{good})}, {"bad", NewBackendTarget(nopClose{bad})}})
	st := run.Targets[1]
	if st.Mismatches == 0 || st.CrossMismatches == 0 {
		t.Errorf("bad target: mismatches %d cross %d, want > 0", st.Mismatches, st.CrossMismatches)
	}
	if st.Unexpected != 1 || st.Errors[bindings.CodeReadTimeout.String()] != 1 {
		t.Errorf("bad target errors %v unexpected %d, want one ReadTimeout", st.Errors, st.Unexpected)
	}
	var ex int
	for _, c := range st.Classes {
		ex += len(c.Examples)
	}
	if ex == 0 {
		t.Error("no mismatch examples")
	}
	rep := &Report{Runs: []*Run{run}}
	if c := rep.ExitCode(); c&ExitErrors == 0 || c&ExitMismatches == 0 {
		t.Errorf("exit code %d, want errors and mismatches bits", c)
	}
	if run.Targets[0].Mismatches != 0 {
		t.Errorf("good target: %d mismatches", run.Targets[0].Mismatches)
	}
}

func TestReplayNoiseClassification(t *testing.T) {
	b := newOpBuilder(&memRecords{recs: []*capture.Record{
		{Time: 100, Session: 1, Query: "SELECT now() FROM t", Fingerprint: "SELECT now() FROM t", ResultKind: bindings.ResultRows},
		{Time: 200, Session: 1, Query: "SELECT v FROM t WHERE k=1", Fingerprint: "SELECT v FROM t WHERE k = ?", ResultKind: bindings.ResultRows, Latency: 50},
		{Time: 220, Session: 2, Query: "INSERT INTO t (k) VALUES (1)", Fingerprint: "INSERT INTO t (k) VALUES (?)", Latency: 10},
		{Time: 400, Session: 1, Query: "SELECT v FROM t WHERE k=1", Fingerprint: "SELECT v FROM t WHERE k = ?", ResultKind: bindings.ResultRows, Latency: 5},
	}}, Shard{})
	var checks []*readCheck
	for {
		op, err := b.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		checks = append(checks, op.Check)
	}
	var got []string // noise is decided as later records arrive
	for _, c := range checks {
		if c == nil { // not a read
			got = append(got, "-")
			continue
		}
		got = append(got, c.Noise)
	}
	want := []string{"uses now()", "racing write from another session", "-", ""}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("noise %q, want %q", got, want)
	}
}

func TestReplayBatchGrouping(t *testing.T) {
	var recs []*capture.Record
	for s := uint64(1); s <= 2; s++ {
		for i := 0; i < 3; i++ {
			recs = append(recs, &capture.Record{Time: int64(i), Session: s, BatchIndex: i, BatchSize: 3, Query: "INSERT"})
		}
	}
	// Interleave the two sessions' children.
	recs = []*capture.Record{recs[0], recs[3], recs[1], recs[4], recs[2], recs[5]}
	b := newOpBuilder(&memRecords{recs: recs}, Shard{})
	n := 0
	for {
		op, err := b.Next()
		if err != nil {
			break
		}
		n++
		if len(op.Recs) != 3 {
			t.Errorf("batch op of session %d has %d children, want 3", op.Key.Session, len(op.Recs))
		}
	}
	if n != 2 {
		t.Fatalf("%d ops, want 2", n)
	}
}

func TestReplayShardPartitionsSessions(t *testing.T) {
	seen := map[uint64]int{}
	for i := 0; i < 3; i++ {
		for s := uint64(0); s < 100; s++ {
			if (Shard{I: i, N: 3}).keep(SessionKey{Node: "n", Session: s}) {
				seen[s]++
			}
		}
	}
	for s := uint64(0); s < 100; s++ {
		if seen[s] != 1 {
			t.Fatalf("session %d in %d shards, want 1", s, seen[s])
		}
	}
}

// slowTraffic is one session of reads 1ms apart.
func slowTraffic(n int) []*capture.Record {
	recs := make([]*capture.Record, n)
	for i := range recs {
		recs[i] = &capture.Record{Time: int64(i) * int64(time.Millisecond), Node: "n", Session: 1, Keyspace: "ks",
			Query: "SELECT k, c, v FROM t WHERE k = 1", Fingerprint: "SELECT k, c, v FROM t WHERE k = ?", ResultKind: bindings.ResultRows}
	}
	return recs
}

func TestReplaySlowTargetCouldNotKeepUp(t *testing.T) {
	slow := openMem(t)
	slow.InjectFault(faulty.Fault{Delay: 5 * time.Millisecond})
	opts := Options{
		Schedule:     ScheduleOptions{Mode: ModeSpeed, Speed: 1},
		CreateSchema: true,
		LagThreshold: 20 * time.Millisecond,
		openRecords: func(context.Context) (recordSource, string, func() error, error) {
			return &memRecords{recs: slowTraffic(30)}, testDDL, func() error { return nil }, nil
		},
	}
	run, err := Replay(context.Background(), opts, []NamedTarget{{"slow", NewBackendTarget(nopClose{slow})}})
	if err != nil {
		t.Fatal(err)
	}
	st := run.Targets[0]
	// 30 ops of >= 5ms due 1ms apart: the last is sent >= 116ms late.
	if !st.Late || st.Lag.Max() < int64(100*time.Millisecond) {
		t.Fatalf("late %v (%s), lag max %v; want late with lag >= 100ms", st.Late, st.LateReason, time.Duration(st.Lag.Max()))
	}
	if c := (&Report{Runs: []*Run{run}}).ExitCode(); c&ExitLate == 0 {
		t.Fatalf("exit code %d lacks the could-not-keep-up bit", c)
	}

	// With --abort-lag the run stops early: 300 ops, so that the abort
	// (due after a few ops) comes long before the end even when a loaded
	// machine delays the replayer's own goroutines.
	opts.AbortLag = 20 * time.Millisecond
	opts.openRecords = func(context.Context) (recordSource, string, func() error, error) {
		return &memRecords{recs: slowTraffic(300)}, testDDL, func() error { return nil }, nil
	}
	run, err = Replay(context.Background(), opts, []NamedTarget{{"slow", NewBackendTarget(nopClose{slow})}})
	if err != nil {
		t.Fatal(err)
	}
	if run.Aborted == "" || run.Targets[0].Ops >= 300 || !run.Targets[0].Late {
		t.Fatalf("aborted %q after %d ops, late %v; want an abort before the end, marked late", run.Aborted, run.Targets[0].Ops, run.Targets[0].Late)
	}
}

func TestReplayReportJSONMerge(t *testing.T) {
	recs := recordTraffic(t)
	var reps []*Report
	for i := 0; i < 2; i++ {
		run := replayRecords(t, recs, []NamedTarget{{"a", NewBackendTarget(nopClose{openMem(t)})}})
		run.Label = "speed=1"
		var buf bytes.Buffer
		if err := (&Report{Runs: []*Run{run}}).WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		var r Report
		if err := json.Unmarshal(buf.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		reps = append(reps, &r)
	}
	m, err := MergeReports(reps...)
	if err != nil {
		t.Fatal(err)
	}
	got, a, b := m.Runs[0].Targets[0], reps[0].Runs[0].Targets[0], reps[1].Runs[0].Targets[0]
	if got.Ops != a.Ops+b.Ops || got.Intended.Count() != a.Intended.Count()+b.Intended.Count() || got.Compared != a.Compared+b.Compared {
		t.Fatalf("merged ops %d hist %d compared %d; want %d %d %d", got.Ops, got.Intended.Count(), got.Compared,
			a.Ops+b.Ops, a.Intended.Count()+b.Intended.Count(), a.Compared+b.Compared)
	}
	if want := max(a.Intended.Max(), b.Intended.Max()); got.Intended.Max() != want {
		t.Errorf("merged max %d, want %d", got.Intended.Max(), want)
	}
	var text, html bytes.Buffer
	if err := m.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := m.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"[OVERALL], Operations, " + fmt.Sprint(got.Ops), "[Intended-ALL], 99thPercentileLatency(us)"} {
		if !bytes.Contains(text.Bytes(), []byte(want)) {
			t.Errorf("text lacks %q", want)
		}
	}
	if !bytes.Contains(html.Bytes(), []byte("<svg")) || bytes.Contains(html.Bytes(), []byte("<script")) {
		t.Error("HTML has no inline SVG or has scripts")
	}
}

func TestReplayApplySchemaIsIdempotent(t *testing.T) {
	tg := NewBackendTarget(nopClose{openMem(t)})
	for i := 0; i < 2; i++ {
		if err := tg.ApplySchema(context.Background(), testDDL); err != nil {
			t.Fatalf("apply %d: %v", i+1, err)
		}
	}
	if err := tg.ApplySchema(context.Background(), "CREATE TABLE ks.bad (k int"); err == nil {
		t.Fatal("a broken script applied without error")
	}
}

// A statement the target refuses (here: a table of a keyspace that does
// not exist) is reported, and the statements after it are still applied.
func TestReplayApplySchemaSkipsWhatTheTargetRefuses(t *testing.T) {
	mem := openMem(t)
	tg := NewBackendTarget(nopClose{mem})
	ddl := "CREATE TABLE nosuch.t (k int PRIMARY KEY);\n" + testDDL
	err := tg.ApplySchema(context.Background(), ddl)
	var se *SchemaError
	if !errors.As(err, &se) || len(se.Failed) != 1 || !strings.Contains(se.Failed[0], "nosuch") {
		t.Fatalf("ApplySchema = %v, want a SchemaError naming the one refused statement", err)
	}
	if cat, err := mem.Unwrap().(*engine.Engine).Catalog(context.Background()); err != nil || cat.Keyspace("ks") == nil || cat.Keyspace("ks").Tables["t"] == nil {
		t.Fatalf("the statements after the refused one were not applied (%v)", err)
	}
}

func TestReplayRedactURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"cql://bob:secret@h:9042?consistency=ONE", "cql://REDACTED@h:9042?consistency=ONE"},
		{"cassandra://h1,h2:9042?password=x&consistency=QUORUM", "cassandra://h1,h2:9042?consistency=QUORUM&password=REDACTED"},
		{"embedded://memory", "embedded://memory"},
	} {
		if got := RedactURL(tc.in); got != tc.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
