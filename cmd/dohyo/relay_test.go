package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/capture"
)

// cassandraAddr is the real Cassandra node for relay tests
// (DOHYO_TEST_CASSANDRA, set by scripts/with-backends.sh); required under
// CI=true.
func cassandraAddr(t *testing.T) string {
	t.Helper()
	addr := os.Getenv("DOHYO_TEST_CASSANDRA")
	if addr == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("DOHYO_TEST_CASSANDRA is not set: CI relays to real Cassandra (run via make test)")
		}
		t.Skip("DOHYO_TEST_CASSANDRA not set; run via `make test`")
	}
	return addr
}

// clientBackends is serveBackends plus, when a real Cassandra is
// available, dohyo relaying to it ("cassandra"). The relayed keyspaces
// are dropped from Cassandra first: it outlives each test.
func clientBackends(t *testing.T, keyspaces ...string) map[string]string {
	t.Helper()
	out := serveBackends(t)
	addr := os.Getenv("DOHYO_TEST_CASSANDRA")
	if addr == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("DOHYO_TEST_CASSANDRA is not set: CI runs the client tests through the relay too (run via make test)")
		}
		return out
	}
	dropCassandraKeyspaces(t, addr, keyspaces...)
	out["cassandra"] = "cassandra://" + addr
	return out
}

// directCassandra opens a gocql session straight to Cassandra (schema
// changes there may take long under load).
func directCassandra(t *testing.T, addr string) *gocql.Session {
	t.Helper()
	return gocqlSession(t, addr, 0, nil, func(c *gocql.ClusterConfig) { c.Timeout = 30 * time.Second })
}

func dropCassandraKeyspaces(t *testing.T, addr string, keyspaces ...string) {
	t.Helper()
	if len(keyspaces) == 0 {
		return
	}
	s := directCassandra(t, addr)
	for _, ks := range keyspaces {
		mustExec(t, s, "DROP KEYSPACE IF EXISTS "+ks)
	}
}

// TestRelayMixedRouting serves one keyspace from real Cassandra (relayed)
// and one from HBase (embedded outside CI) behind one dohyo: a gocql
// session and a Python driver session use both in turn, with prepared
// statements on both and batches refused when they span the two.
func TestRelayMixedRouting(t *testing.T) {
	addr := cassandraAddr(t)
	py := externalTool(t, "DOHYO_TEST_PYTHON")
	other := serveBackends(t)["embedded"]
	if u, ok := serveBackends(t)["hbase"]; ok {
		other = u
	}
	dropCassandraKeyspaces(t, addr, "mixc")
	p := startServe(t, "--backend", "cassandra://"+addr, "--route", "mixo="+other)
	s := gocqlSession(t, p.CQLAddr, 4, nil)
	for _, ks := range []string{"mixc", "mixo"} {
		mustExec(t, s, "CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
		mustExec(t, s, "CREATE TABLE "+ks+".kv (k int PRIMARY KEY, v text)")
	}
	// The Cassandra keyspace is on Cassandra, the other is not.
	direct := directCassandra(t, addr)
	var n int
	if err := direct.Query("SELECT COUNT(*) FROM system_schema.keyspaces WHERE keyspace_name IN ('mixc', 'mixo')").Scan(&n); err != nil || n != 1 {
		t.Fatalf("keyspaces on Cassandra: %d, %v (want only mixc)", n, err)
	}
	for i := 0; i < 20; i++ {
		for _, ks := range []string{"mixc", "mixo"} {
			want := fmt.Sprintf("%s-%d", ks, i)
			mustExec(t, s, "INSERT INTO "+ks+".kv (k, v) VALUES (?, ?)", i, want) // prepared by gocql
			var v string
			if err := s.Query("SELECT v FROM "+ks+".kv WHERE k = ?", i).Scan(&v); err != nil || v != want {
				t.Fatalf("%s k=%d: %q, %v", ks, i, v, err)
			}
		}
	}
	var v string
	if err := direct.Query("SELECT v FROM mixc.kv WHERE k = 7").Scan(&v); err != nil || v != "mixc-7" {
		t.Fatalf("direct read of relayed write: %q, %v", v, err)
	}
	host, port, _ := net.SplitHostPort(p.CQLAddr)
	out, err := runTool(t, 5*time.Minute, py, "testdata/mixed_routing_check.py", host, port, "mixc", "mixo")
	if err != nil || !strings.Contains(out, "OK") {
		t.Fatalf("python mixed routing check: %v\n%s", err, out)
	}
}

// TestRelaySurvivesCassandraKill kills the real Cassandra (SIGKILL) under
// load through the relay: every request is answered by dohyo — with an
// error while Cassandra is gone — and none is left to the driver's own
// timeout (10 s, over three times the request timeout), and the same dohyo
// process serves again once Cassandra is back, without a restart (a
// hundred writes succeed; how soon is only logged).
func TestRelaySurvivesCassandraKill(t *testing.T) {
	addr := cassandraAddr(t)
	script := externalTool(t, "DOHYO_TEST_CASSANDRA_SCRIPT")
	if os.Getenv("DOHYO_TEST_DISRUPTIVE") != "1" {
		t.Skip("kills the shared Cassandra; runs in its own step (DOHYO_TEST_DISRUPTIVE=1)")
	}
	const requestTimeout = 3 * time.Second
	dropCassandraKeyspaces(t, addr, "killks")
	p := startServe(t, "--backend", "cassandra://"+addr+"?connect_timeout=2s&heartbeat=1s",
		"--request-timeout", requestTimeout.String())
	s := gocqlSession(t, p.CQLAddr, 4, nil)
	mustExec(t, s, "CREATE KEYSPACE killks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE killks.t (k int PRIMARY KEY, v int)")

	restarted := false
	t.Cleanup(func() {
		if !restarted { // never leave the shared server down
			runTool(t, 5*time.Minute, script, "start")
			runTool(t, 5*time.Minute, script, "wait")
		}
	})

	type outcome struct {
		at      time.Time
		latency time.Duration
		err     error
	}
	results := make(chan outcome, 1<<16)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				start := time.Now()
				err := s.Query("INSERT INTO killks.t (k, v) VALUES (?, ?)", w*1_000_000+i, i).Exec()
				results <- outcome{at: start, latency: time.Since(start), err: err}
				if err != nil {
					time.Sleep(20 * time.Millisecond) // a client backing off, not synchronisation
				}
			}
		}()
	}
	var all []outcome
	var killed, back time.Time
	collect := func(until func() bool, limit time.Duration, what string) {
		t.Helper()
		deadline := time.After(limit)
		for !until() {
			select {
			case o := <-results:
				all = append(all, o)
			case <-deadline:
				close(stop)
				wg.Wait()
				t.Fatalf("%s: not within %v (%d requests so far; errors since the kill: %s)", what, limit, len(all),
					errorKinds(all, killed, time.Now(), func(o outcome) (time.Time, error) { return o.at, o.err }))
			}
		}
	}
	count := func(from time.Time, failed bool) int {
		n := 0
		for _, o := range all {
			if !o.at.Before(from) && (o.err != nil) == failed {
				n++
			}
		}
		return n
	}
	t0 := time.Now()
	collect(func() bool { return count(t0, false) >= 200 }, time.Minute, "200 writes before the kill")

	// The machine is loaded while Cassandra is down and restarts (as
	// production restarts often are): two busy loops, one per core of a
	// 2-core machine, until Cassandra answers again.
	hogStop := make(chan struct{})
	var hogs sync.WaitGroup
	for range 2 {
		hogs.Add(1)
		go func() {
			defer hogs.Done()
			for n := 0; ; n++ {
				if n%1_000_000 == 0 {
					select {
					case <-hogStop:
						return
					default:
					}
				}
			}
		}()
	}
	stopHogs := sync.OnceFunc(func() { close(hogStop); hogs.Wait() })
	defer stopHogs()
	if out, err := runTool(t, time.Minute, script, "kill"); err != nil {
		t.Fatalf("kill Cassandra: %v\n%s", err, out)
	}
	killed = time.Now()
	collect(func() bool { return count(killed, true) >= 50 }, time.Minute, "errors after the kill")

	if out, err := runTool(t, 5*time.Minute, script, "start"); err != nil {
		t.Fatalf("restart Cassandra: %v\n%s", err, out)
	}
	if out, err := runTool(t, 5*time.Minute, script, "wait"); err != nil {
		t.Fatalf("Cassandra did not come back: %v\n%s", err, out)
	}
	restarted = true
	back = time.Now()
	stopHogs()
	collect(func() bool { return count(back, false) >= 100 }, time.Minute, "writes through the same dohyo after Cassandra is back")
	resumed := time.Now()
	for _, o := range all {
		if !o.at.Before(back) && o.err == nil {
			resumed = o.at
			break
		}
	}
	t.Logf("first write succeeded %v after Cassandra answered again", resumed.Sub(back).Round(time.Millisecond))
	close(stop)
	wg.Wait()
	close(results)
	for o := range results {
		all = append(all, o)
	}

	var worst time.Duration
	var sample error
	unanswered := 0
	for _, o := range all {
		worst = max(worst, o.latency)
		if o.err != nil && sample == nil && o.at.After(killed) {
			sample = o.err
		}
		if errors.Is(o.err, gocql.ErrTimeoutNoResponse) {
			unanswered++
		}
	}
	t.Logf("%d requests, %d failed after the kill (e.g. %v), slowest %v", len(all), count(killed, true), sample, worst)
	t.Logf("errors while Cassandra was down: %s", errorKinds(all, killed, back, func(o outcome) (time.Time, error) { return o.at, o.err }))
	t.Logf("errors after Cassandra answered again: %s", errorKinds(all, back, time.Now(), func(o outcome) (time.Time, error) { return o.at, o.err }))
	if unanswered > 0 {
		t.Errorf("%d requests got no answer before the driver's own timeout (slowest %v): dohyo must answer each, at its %v request timeout at the latest", unanswered, worst, requestTimeout)
	}
	// A new client session works too.
	s2 := gocqlSession(t, p.CQLAddr, 4, nil)
	var v int
	if err := s2.Query("SELECT v FROM killks.t WHERE k = 0").Scan(&v); err != nil || v != 0 {
		t.Fatalf("read after recovery: %d, %v", v, err)
	}
}

// TestRelayCapturesAndReplays captures traffic relayed to real Cassandra
// and replays the capture into a fresh embedded store: every read's
// captured digest (taken from Cassandra's raw answer) matches the replay.
func TestRelayCapturesAndReplays(t *testing.T) {
	addr := cassandraAddr(t)
	dropCassandraKeyspaces(t, addr, "relcap")
	capDir := filepath.Join(t.TempDir(), "cap")
	p := startServe(t, "--backend", "cassandra://"+addr, "--capture-dir", capDir)
	s := gocqlSession(t, p.CQLAddr, 4, nil)
	mustExec(t, s, "CREATE KEYSPACE relcap WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE relcap.t (k int, c int, v text, PRIMARY KEY (k, c))")
	for i := 0; i < 100; i++ {
		mustExec(t, s, "INSERT INTO relcap.t (k, c, v) VALUES (?, ?, ?)", i%10, i, fmt.Sprint("v", i))
	}
	for k := 0; k < 10; k++ {
		iter := s.Query("SELECT c, v FROM relcap.t WHERE k = ?", k).Iter()
		if n := iter.NumRows(); n != 10 {
			t.Fatalf("partition %d has %d rows, want 10", k, n)
		}
		if err := iter.Close(); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	p.stop(t) // flushes the capture

	m, err := capture.Merge(context.Background(), capDir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	inserts, reads := 0, 0
	for {
		rec, err := m.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasPrefix(rec.Query, "INSERT INTO relcap.t") && rec.Prepared && len(rec.Values) == 3:
			inserts++
		case strings.HasPrefix(rec.Query, "SELECT c, v FROM relcap.t") && rec.Rows == 10 && rec.Digest != 0:
			reads++
		}
	}
	if inserts != 100 || reads != 10 {
		t.Fatalf("capture of relayed traffic: %d prepared inserts, %d reads with 10 rows and a digest; want 100 and 10", inserts, reads)
	}
	out, code := runReplayCLI(t, capDir, "--target", "embedded://"+filepath.Join(t.TempDir(), "store"),
		"--create-schema", "--max", "--json", filepath.Join(t.TempDir(), "r.json"))
	if code != 0 {
		t.Fatalf("replay of the relayed capture: exit %d\n%s", code, out)
	}
}

// errorKinds counts the errors of outcomes in [from, to) by message (ids and
// addresses aside, messages repeat), most frequent first, for the log.
func errorKinds[T any](all []T, from, to time.Time, get func(T) (time.Time, error)) string {
	counts := map[string]int{}
	for _, o := range all {
		at, err := get(o)
		if err == nil || at.Before(from) || !at.Before(to) {
			continue
		}
		msg := err.Error()
		if len(msg) > 160 {
			msg = msg[:160] + "…"
		}
		counts[msg]++
	}
	if len(counts) == 0 {
		return "none"
	}
	kinds := make([]string, 0, len(counts))
	for k := range counts {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool { return counts[kinds[i]] > counts[kinds[j]] })
	var b strings.Builder
	for i, k := range kinds {
		if i == 8 {
			fmt.Fprintf(&b, "; … %d more kinds", len(kinds)-i)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%d× %q", counts[k], k)
	}
	return b.String()
}
