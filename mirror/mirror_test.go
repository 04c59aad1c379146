package mirror_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/embedded"
	"github.com/dohyo/dohyo/bindings/stores"
	"github.com/dohyo/dohyo/engine"
	"github.com/dohyo/dohyo/mirror"
	"github.com/dohyo/dohyo/proxy"
)

type env struct {
	primary, copy bindings.Backend
	m             *mirror.Mirror
	c             *proxy.Coordinator
	s             *proxy.Session
}

func open(t *testing.T) bindings.Backend {
	t.Helper()
	b, err := stores.Embedded(t.Context(), embedded.Config{}, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// newEnv is a coordinator over an embedded primary whose keyspace "ks" is
// mirrored to a second embedded store, both with the same schema.
func newEnv(t *testing.T, sample float64, mirrorBackend bindings.Backend, queue int) *env {
	t.Helper()
	return newEnvTimeout(t, sample, mirrorBackend, queue, time.Second)
}

// newEnvTimeout is newEnv with the mirror's per-call timeout.
func newEnvTimeout(t *testing.T, sample float64, mirrorBackend bindings.Backend, queue int, timeout time.Duration) *env {
	t.Helper()
	e := &env{primary: open(t), copy: mirrorBackend}
	ddl := []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))",
	}
	for _, b := range []bindings.Backend{e.primary, e.copy} {
		if _, isEmbedded := bindings.Capability[*embedded.Store](b); !isEmbedded {
			continue
		}
		for _, q := range ddl {
			if _, err := b.Execute(t.Context(), &bindings.Request{Query: q}); err != nil {
				t.Fatal(err)
			}
		}
	}
	m, err := mirror.New(mirror.Config{Targets: []mirror.Target{{Name: "copy", Backend: e.copy}},
		Keyspaces: map[string][]string{"ks": {"copy"}}, ReadSample: sample, Queue: queue, Workers: 2, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	c, err := proxy.New(proxy.Config{Backends: map[string]bindings.Backend{"p": e.primary}, Default: "p", Tap: m, Stamp: m.Stamp})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	e.m, e.c, e.s = m, c, c.NewSession(bindings.SourceCQL)
	return e
}

func i32(v int) bindings.Value {
	return bindings.Value{Bytes: binary.BigEndian.AppendUint32(nil, uint32(v))}
}

func (e *env) q(t *testing.T, query string, vals ...bindings.Value) *bindings.Result {
	t.Helper()
	res, err := e.s.Query(t.Context(), &bindings.Request{Query: query, Values: vals, Consistency: bindings.One})
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return res
}

// rows reads every row with its write time from b, sorted.
func rows(t *testing.T, b bindings.Backend) []string {
	t.Helper()
	res, err := b.Execute(t.Context(), &bindings.Request{Query: "SELECT k, c, v, writetime(v) FROM ks.t", Consistency: bindings.One})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range res.Rows {
		var sb strings.Builder
		for _, cell := range r {
			sb.WriteString(string(cell))
			sb.WriteByte('|')
		}
		out = append(out, sb.String())
	}
	slices.Sort(out)
	return out
}

// TestMirrorAppliesWritesWithTheirTimestamps: plain, prepared and batched
// writes (and deletes) reach the mirror in order and with the primary's
// write times, so a full scan of both is equal, write times included.
func TestMirrorAppliesWritesWithTheirTimestamps(t *testing.T) {
	e := newEnv(t, 0, open(t), 0)
	ctx := t.Context()
	for k := 0; k < 20; k++ {
		e.q(t, "INSERT INTO ks.t (k, c, v) VALUES (?, ?, 'a')", i32(k), i32(1))
		e.q(t, "UPDATE ks.t SET v = 'b' WHERE k = ? AND c = ?", i32(k), i32(2))
	}
	ps, err := e.s.Prepare(ctx, "UPDATE ks.t SET v = ? WHERE k = ? AND c = ?")
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 20; k++ {
		if _, err := e.s.Execute(ctx, ps.ID, &bindings.Request{Values: []bindings.Value{{Bytes: []byte("p")}, i32(k), i32(1)}, Consistency: bindings.One}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.s.Batch(ctx, &proxy.BatchRequest{Consistency: bindings.One, Entries: []proxy.BatchEntry{
		{Query: "INSERT INTO ks.t (k, c, v) VALUES (100, 1, 'batched')"},
		{PreparedID: ps.ID, Values: []bindings.Value{{Bytes: []byte("q")}, i32(3), i32(2)}},
	}}); err != nil {
		t.Fatal(err)
	}
	e.q(t, "DELETE FROM ks.t WHERE k = ? AND c = ?", i32(5), i32(2))
	e.q(t, "DELETE FROM ks.t WHERE k = ?", i32(6))
	e.q(t, "INSERT INTO ks.t (k, c, v) VALUES (7, 9, 'lwt') IF NOT EXISTS")
	if err := e.m.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	p, c := rows(t, e.primary), rows(t, e.copy)
	stripLWTTime(p, c)
	if len(p) != 20*2+1-2-1+1 || !slices.Equal(p, c) {
		t.Fatalf("primary (%d rows) and mirror (%d rows) differ:\n%q\n%q", len(p), len(c), p, c)
	}
	st := e.m.Status()[0]
	if st.Applied != st.Sent || st.Dropped != 0 || st.Failed != 0 || st.State != mirror.StateOK {
		t.Fatalf("status %+v: want every request applied", st)
	}
}

// TestMirrorReadMismatch: a row changed directly on the mirror shows up as
// a counted mismatch with the statement as its example; equal reads do not.
func TestMirrorReadMismatch(t *testing.T) {
	e := newEnv(t, 1, open(t), 0)
	ctx := t.Context()
	for k := 0; k < 5; k++ {
		e.q(t, "INSERT INTO ks.t (k, c, v) VALUES (?, 1, 'same')", i32(k))
	}
	if err := e.m.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.copy.Execute(ctx, &bindings.Request{Query: "UPDATE ks.t SET v = 'diverged' WHERE k = 3 AND c = 1"}); err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 5; k++ {
		e.q(t, "SELECT v FROM ks.t WHERE k = ?", i32(k))
	}
	if err := e.m.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	st := e.m.Status()[0]
	if st.Compared != 5 || st.Mismatches != 1 || len(st.Examples) != 1 ||
		st.Examples[0].Statement != "SELECT v FROM ks.t WHERE k = ?" || st.Examples[0].Values != "0x00000003" {
		t.Fatalf("status %+v: want 5 reads compared, 1 mismatch on k = 3", st)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(e.m.Collector())
	if n, err := testutil.GatherAndCount(reg, "dohyo_mirror_mismatches_total"); err != nil || n != 1 {
		t.Fatalf("metrics: %d series, %v", n, err)
	}
	// Per class: the SELECT's one mismatch, and both sides' latencies of
	// the INSERT and SELECT classes (a summary per class and side).
	want := `
# HELP dohyo_mirror_class_mismatches_total Sampled reads whose mirror rows differed, per statement class.
# TYPE dohyo_mirror_class_mismatches_total counter
dohyo_mirror_class_mismatches_total{class="SELECT v FROM ks.t WHERE k = ?",mirror="copy"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "dohyo_mirror_class_mismatches_total"); err != nil {
		t.Error(err)
	}
	if n, err := testutil.GatherAndCount(reg, "dohyo_mirror_class_latency_seconds"); err != nil || n != 4 {
		t.Errorf("class latency series: %d (want 2 classes x primary/mirror), %v", n, err)
	}
}

// stuck is a mirror backend that never answers until released (or its
// ctx ends), then fails as unavailable; ended counts the calls that
// returned.
type stuck struct {
	mu      sync.Mutex
	release chan struct{}
	ended   atomic.Int64
}

func (s *stuck) Execute(ctx context.Context, _ *bindings.Request) (*bindings.Result, error) {
	defer s.ended.Add(1)
	select {
	case <-s.release:
	case <-ctx.Done():
	}
	return nil, bindings.Errorf(bindings.CodeUnavailable, "mirror down")
}

// writeWhileHung runs stmts on the primary through e's session while the
// mirror hangs (its calls end only at the mirror's minute timeout, or when
// hung is released), and checks, as an ordering rather than a latency,
// that the primary did not wait for the mirror: every statement is
// answered while no mirror call has ended. The 30 s bound only stops a
// primary that waits for the mirror from hanging the test; it releases
// the mirror then.
func writeWhileHung(t *testing.T, e *env, hung *stuck, stmts []*bindings.Request) {
	t.Helper()
	wrote := make(chan error, 1)
	go func() {
		for _, r := range stmts {
			if _, err := e.s.Query(context.Background(), r); err != nil {
				wrote <- fmt.Errorf("%s: %w", r.Query, err)
				return
			}
		}
		wrote <- nil
	}()
	select {
	case err := <-wrote:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		close(hung.release)
		<-wrote
		t.Fatalf("%d primary statements not answered after 30 s while the mirror hung: the primary waits for the mirror", len(stmts))
	}
	if n := hung.ended.Load(); n != 0 {
		t.Fatalf("%d mirror calls had ended before the primary answered its %d statements: the primary waited for them", n, len(stmts))
	}
}
func (s *stuck) Batch(context.Context, *bindings.BatchRequest) (*bindings.Result, error) {
	return nil, errors.New("unused")
}
func (s *stuck) Close() error { return nil }

// TestMirrorDeadMirrorNeverSlowsThePrimary: with a mirror that hangs, the
// primary answers every write while no mirror call has ended (it waits
// for none); what did not fit the queue is counted as dropped, and the
// failures by code; the mirror is marked down.
func TestMirrorDeadMirrorNeverSlowsThePrimary(t *testing.T) {
	dead := &stuck{release: make(chan struct{})}
	e := newEnvTimeout(t, 0, dead, 8, time.Minute)
	const n = 200
	var writes []*bindings.Request
	for k := 0; k < n; k++ {
		writes = append(writes, &bindings.Request{Query: "INSERT INTO ks.t (k, c, v) VALUES (?, 1, 'x')",
			Values: []bindings.Value{i32(k)}, Consistency: bindings.One})
	}
	writeWhileHung(t, e, dead, writes)
	close(dead.release)
	if err := e.m.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	st := e.m.Status()[0]
	if st.Sent+st.Dropped != n || st.Dropped == 0 || st.Failed != st.Sent || st.Errors["Unavailable"] != st.Sent || st.State != mirror.StateDown {
		t.Fatalf("status %+v: want sent+dropped = %d, some dropped, every sent one failed Unavailable, state down", st, n)
	}
	if got := len(rows(t, e.primary)); got != n {
		t.Fatalf("primary has %d rows, want %d", got, n)
	}
}

// stripLWTTime drops the write time of rows written by an LWT (value
// "lwt"): the mirror applies an LWT as an LWT, at its own time (a
// conditional write takes no client timestamp).
func stripLWTTime(rowSets ...[]string) {
	for _, rs := range rowSets {
		for i, r := range rs {
			if strings.Contains(r, "|lwt|") {
				rs[i] = r[:strings.Index(r, "|lwt|")+5]
			}
		}
	}
}
