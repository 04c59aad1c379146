package replay

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/embedded"
	"github.com/dohyo/dohyo/capture"
	"github.com/dohyo/dohyo/cql"
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
	ref, err := embedded.OpenURL(ctx, "embedded://memory")
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

func openMem(t *testing.T) *embedded.Backend {
	t.Helper()
	b, err := embedded.OpenURL(context.Background(), "embedded://memory")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func TestReplayCleanTargetMatches(t *testing.T) {
	recs := recordTraffic(t)
	a, b := openMem(t), openMem(t)
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
	bad.InjectFault(embedded.Fault{Match: "WHERE k = ?", Alter: func(r *bindings.Result) {
		if len(r.Rows) > 0 {
			r.Rows = r.Rows[1:]
		}
	}})
	bad.InjectFault(embedded.Fault{Match: "c = 1", Err: bindings.Errorf(bindings.CodeReadTimeout, "injected")})
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

func TestNoiseClassification(t *testing.T) {
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
		got = append(got, c.Noise)
	}
	want := []string{"uses now()", "racing write from another session", "", ""}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("noise %q, want %q", got, want)
	}
}

func TestBatchGrouping(t *testing.T) {
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

func TestShardPartitionsSessions(t *testing.T) {
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
