package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/internal/testlock"
	"github.com/dohyo/dohyo/replay"
)

// fqlEnv returns the test Cassandra's CQL address and what enabling its
// full query log needs (run.sh and the JMX port), skipping without them
// (failing under CI).
func fqlEnv(t testing.TB) (addr, script, jmx string) {
	t.Helper()
	addr, jmx = os.Getenv("DOHYO_TEST_CASSANDRA"), os.Getenv("DOHYO_TEST_CASSANDRA_JMX")
	if addr == "" || jmx == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("DOHYO_TEST_CASSANDRA and DOHYO_TEST_CASSANDRA_JMX are not set")
		}
		t.Skip("DOHYO_TEST_CASSANDRA or DOHYO_TEST_CASSANDRA_JMX not set")
	}
	script = os.Getenv("DOHYO_TEST_CASSANDRA_SCRIPT")
	if script == "" {
		abs, err := filepath.Abs("../../it/cassandra/run.sh")
		if err != nil {
			t.Fatal(err)
		}
		script = abs
	}
	return addr, script, jmx
}

// nodetool runs nodetool on the test Cassandra through run.sh.
func nodetool(t testing.TB, script, jmx string, args ...string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", append([]string{script, "nodetool"}, args...)...)
	cmd.Env = append(os.Environ(), "CASSANDRA_JMX_PORT="+jmx)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("nodetool %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// enableFQL turns the test Cassandra's full query log on into a new
// directory, blocking (no entry dropped), and returns the directory and
// the function that turns it off (also run at cleanup; later calls do
// nothing). The log is the server's alone: a lock shared with other test
// processes (it/readme's production walkthrough) gives each its turn, from
// on to off.
func enableFQL(t testing.TB, script, jmx string) (dir string, disable func()) {
	t.Helper()
	unlock, err := testlock.Lock("fql-" + jmx)
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(t.TempDir(), "fql")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	_ = nodetool(t, script, jmx, "disablefullquerylog") // a leftover from an aborted run
	if err := nodetool(t, script, jmx, "enablefullquerylog", "--path", dir, "--roll-cycle", "HOURLY", "--blocking", "true"); err != nil {
		_ = unlock()
		t.Fatal(err)
	}
	done := false
	disable = func() {
		if done {
			return
		}
		done = true
		if err := nodetool(t, script, jmx, "disablefullquerylog"); err != nil {
			t.Error(err)
		}
		if err := unlock(); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(disable)
	return dir, disable
}

// fqlTables are the mix's tables and the query that dumps each (the
// writetime of kv.v checks that generated timestamps were imported).
var fqlTables = []string{
	"SELECT k, v, n, writetime(v) FROM %s.kv",
	"SELECT p, c, v FROM %s.ck",
	"SELECT k, c FROM %s.cnt",
	"SELECT k, l, s, m FROM %s.coll",
	"SELECT k, a FROM %s.u",
	"SELECT k, v FROM %s.lwt",
}

// runFQLMix runs a known mix of statements directly against Cassandra:
// literal and prepared statements, nulls, a client timestamp, logged,
// unlogged and counter batches, LWTs, counters, collections, a UDT, a
// paged read, and statements on a session with a keyspace.
func runFQLMix(t *testing.T, addr, ks string) {
	t.Helper()
	s := gocqlSession(t, addr, 4, nil)
	mustExec(t, s, "CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TYPE "+ks+".addr (street text, zip int)")
	mustExec(t, s, "CREATE TABLE "+ks+".kv (k int PRIMARY KEY, v text, n bigint)")
	mustExec(t, s, "CREATE TABLE "+ks+".ck (p int, c int, v text, PRIMARY KEY (p, c))")
	mustExec(t, s, "CREATE TABLE "+ks+".cnt (k int PRIMARY KEY, c counter)")
	mustExec(t, s, "CREATE TABLE "+ks+".coll (k int PRIMARY KEY, l list<int>, s set<text>, m map<text, int>)")
	mustExec(t, s, "CREATE TABLE "+ks+".u (k int PRIMARY KEY, a frozen<addr>)")
	mustExec(t, s, "CREATE TABLE "+ks+".lwt (k int PRIMARY KEY, v text)")

	mustExec(t, s, "INSERT INTO "+ks+".kv (k, v, n) VALUES (0, 'literal', 10)")
	for i := 1; i <= 20; i++ {
		mustExec(t, s, "INSERT INTO "+ks+".kv (k, v, n) VALUES (?, ?, ?)", i, fmt.Sprintf("v%d", i), int64(i*100))
	}
	mustExec(t, s, "INSERT INTO "+ks+".kv (k, v, n) VALUES (?, ?, ?)", 21, nil, int64(7))
	// An unset value: logged as empty, imported with --empty-as-unset.
	mustExec(t, s, "INSERT INTO "+ks+".kv (k, v, n) VALUES (?, ?, ?)", 22, gocql.UnsetValue, int64(22))
	mustExec(t, s, "UPDATE "+ks+".kv SET v = ? WHERE k = ?", "updated", 3)
	mustExec(t, s, "DELETE FROM "+ks+".kv WHERE k = ?", 4)
	if err := s.Query("UPDATE "+ks+".kv SET v = ? WHERE k = ?", "client-ts", 5).WithTimestamp(1_600_000_000_000_000).Exec(); err != nil {
		t.Fatal(err)
	}
	if err := s.Query("UPDATE "+ks+".kv SET v = ? WHERE k = ?", "client-ts-newer", 6).WithTimestamp(time.Now().UnixMicro() + 1000).Exec(); err != nil {
		t.Fatal(err)
	}

	b := s.NewBatch(gocql.LoggedBatch)
	b.Query("INSERT INTO "+ks+".ck (p, c, v) VALUES (?, ?, ?)", 1, 1, "b1")
	b.Query("INSERT INTO "+ks+".ck (p, c, v) VALUES (?, ?, ?)", 1, 2, "b2")
	b.Query("INSERT INTO " + ks + ".ck (p, c, v) VALUES (1, 3, 'b3-literal')")
	b.Query("UPDATE "+ks+".kv SET v = ? WHERE k = ?", "in-batch", 7)
	if err := s.ExecuteBatch(b); err != nil {
		t.Fatal(err)
	}
	b = s.NewBatch(gocql.UnloggedBatch)
	for c := 4; c < 8; c++ {
		b.Query("INSERT INTO "+ks+".ck (p, c, v) VALUES (?, ?, ?)", 1, c, fmt.Sprintf("u%d", c))
	}
	if err := s.ExecuteBatch(b); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		mustExec(t, s, "UPDATE "+ks+".cnt SET c = c + ? WHERE k = ?", int64(i+1), 1)
	}
	b = s.NewBatch(gocql.CounterBatch)
	b.Query("UPDATE "+ks+".cnt SET c = c + ? WHERE k = ?", int64(5), 1)
	b.Query("UPDATE "+ks+".cnt SET c = c - ? WHERE k = ?", int64(2), 2)
	if err := s.ExecuteBatch(b); err != nil {
		t.Fatal(err)
	}

	mustExec(t, s, "INSERT INTO "+ks+".coll (k, l, s, m) VALUES (?, ?, ?, ?)", 1, []int{1, 2}, []string{"a"}, map[string]int{"x": 1})
	mustExec(t, s, "UPDATE "+ks+".coll SET l = l + ?, s = s + ?, m[?] = ? WHERE k = ?", []int{3}, []string{"b"}, "y", 2, 1)
	mustExec(t, s, "UPDATE "+ks+".coll SET l = [9] + l WHERE k = 1")
	mustExec(t, s, "UPDATE "+ks+".coll SET s = s - {'a'} WHERE k = 1")
	mustExec(t, s, "INSERT INTO "+ks+".u (k, a) VALUES (1, {street: 'main', zip: 100})")
	mustExec(t, s, "INSERT INTO "+ks+".u (k, a) VALUES (?, ?)", 2, map[string]any{"street": "side", "zip": 200})

	for _, q := range []string{
		"INSERT INTO " + ks + ".lwt (k, v) VALUES (1, 'first') IF NOT EXISTS",
		"INSERT INTO " + ks + ".lwt (k, v) VALUES (1, 'second') IF NOT EXISTS", // not applied
		"UPDATE " + ks + ".lwt SET v = 'cas' WHERE k = 1 IF v = 'first'",
	} {
		if _, err := s.Query(q).MapScanCAS(map[string]any{}); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// A plain write before an LWT on the same row, never after: on
	// replay an LWT's ballot is the target's clock, newer than every
	// captured timestamp (docs/IMPORT.md).
	mustExec(t, s, "INSERT INTO "+ks+".lwt (k, v) VALUES (?, ?)", 3, "plain")
	for _, c := range []struct {
		q    string
		args []any
	}{
		{"INSERT INTO " + ks + ".lwt (k, v) VALUES (?, ?) IF NOT EXISTS", []any{2, "p"}},
		{"UPDATE " + ks + ".lwt SET v = ? WHERE k = ? IF v = ?", []any{"cas2", 1, "cas"}},
		{"UPDATE " + ks + ".lwt SET v = ? WHERE k = ? IF v = ?", []any{"lwt-after-plain", 3, "plain"}},
		{"UPDATE " + ks + ".lwt SET v = ? WHERE k = ? IF v = ?", []any{"not-applied", 3, "nope"}},
	} {
		if _, err := s.Query(c.q, c.args...).MapScanCAS(map[string]any{}); err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
	}

	it := s.Query("SELECT p, c, v FROM "+ks+".ck WHERE p = ?", 1).PageSize(2).Iter()
	n := 0
	for var1, var2, var3 := 0, 0, ""; it.Scan(&var1, &var2, &var3); {
		n++
	}
	if err := it.Close(); err != nil || n != 7 {
		t.Fatalf("paged read: %d rows, %v; want 7", n, err)
	}

	// Point reads, compared between replay targets.
	for k := 0; k < 10; k++ {
		if err := s.Query("SELECT v, n FROM "+ks+".kv WHERE k = ?", k).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{"SELECT * FROM " + ks + ".coll WHERE k = 1", "SELECT * FROM " + ks + ".u", "SELECT c FROM " + ks + ".cnt WHERE k = 1"} {
		if err := s.Query(q).Exec(); err != nil {
			t.Fatal(err)
		}
	}

	ksess := gocqlSession(t, addr, 4, nil, func(c *gocql.ClusterConfig) { c.Keyspace = ks })
	mustExec(t, ksess, "INSERT INTO kv (k, v, n) VALUES (?, ?, ?)", 30, "in-keyspace", int64(30))
	mustExec(t, ksess, "INSERT INTO kv (k, v, n) VALUES (31, 'in-keyspace-literal', 31)")
	var v string
	if err := ksess.Query("SELECT v FROM kv WHERE k = ?", 30).Scan(&v); err != nil || v != "in-keyspace" {
		t.Fatalf("read in keyspace: %q, %v", v, err)
	}
}

// dumpTables reads every table of the mix, one sorted line per row.
func dumpTables(t *testing.T, s *gocql.Session, ks string) []string {
	t.Helper()
	return dumpQueries(t, s, ks, fqlTables)
}

// dumpQueries runs each query (%s: the keyspace), one sorted line per row.
func dumpQueries(t *testing.T, s *gocql.Session, ks string, queries []string) []string {
	t.Helper()
	var out []string
	for _, q := range queries {
		q = fmt.Sprintf(q, ks)
		it := s.Query(q).Iter()
		var rows []string
		for {
			row := map[string]any{}
			if !it.MapScan(row) {
				break
			}
			rows = append(rows, fmt.Sprint(row))
		}
		if err := it.Close(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		sort.Strings(rows)
		for _, r := range rows {
			out = append(out, q+" -> "+r)
		}
	}
	return out
}

// TestFQLImportCassandra enables the full query log on the test Cassandra
// through nodetool (JMX), runs a known mix against Cassandra directly,
// imports the log, replays the import against the embedded store and
// HBase and compares their final data with Cassandra's.
// DOHYO_TEST_FQL_KEEP=DIR keeps a copy of the log (how
// capture/fql/testdata was made).
func TestFQLImportCassandra(t *testing.T) {
	addr, script, jmx := fqlEnv(t)
	ks := fmt.Sprintf("fql%d", time.Now().UnixNano())
	fqlDir, disable := enableFQL(t, script, jmx)
	t.Cleanup(func() {
		s := gocqlSession(t, addr, 4, nil)
		_ = s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec()
	})
	runFQLMix(t, addr, ks)
	disable() // closes the log: every entry is on disk
	s := gocqlSession(t, addr, 4, nil)
	want := dumpTables(t, s, ks)
	if len(want) < 30 {
		t.Fatalf("Cassandra holds %d rows, want >= 30", len(want))
	}
	if keep := os.Getenv("DOHYO_TEST_FQL_KEEP"); keep != "" {
		if out, err := exec.Command("cp", "-r", fqlDir+"/.", keep).CombinedOutput(); err != nil {
			t.Fatalf("keep the log: %v %s", err, out)
		}
	}

	replayFQL(t, fqlDir, ks, fqlTables, want, 14, "imported 1 empty values as unset")
}

// replayFQL imports the full query log in fqlDir, checks the import
// skipped nothing (and, when set, that its report says extra), replays it
// against two embedded stores and HBase (required under CI) with no
// mismatch, no difference between targets and no unexpected error (at
// least minCompared reads compared on each target after the first), and
// compares each store's final data (queries, %s the keyspace) with want,
// Cassandra's.
func replayFQL(t *testing.T, fqlDir, ks string, queries, want []string, minCompared int64, extra string) {
	t.Helper()
	capDir := filepath.Join(t.TempDir(), "cap")
	out, err := exec.Command(dohyoBinary(t), "capture", "import", "--fql", fqlDir, "--out", capDir, "--empty-as-unset").CombinedOutput()
	if err != nil {
		t.Fatalf("capture import: %v\n%s", err, out)
	}
	t.Logf("capture import:\n%s", out)
	if !strings.Contains(string(out), "skipped 0 entries") || (extra != "" && !strings.Contains(string(out), extra)) {
		t.Errorf("import skipped entries:\n%s", out)
	}
	if out, err := exec.Command(dohyoBinary(t), "capture", "verify", capDir).CombinedOutput(); err != nil {
		t.Fatalf("capture verify: %v\n%s", err, out)
	}

	store := filepath.Join(t.TempDir(), "store")
	jsonOut := filepath.Join(t.TempDir(), "r.json")
	// A second target, an in-memory store: FQL has no results, so reads
	// are compared between the targets. (Not a cql:// target: the log
	// holds the USE statements drivers send, which replay's gocql
	// target cannot run.)
	args := []string{capDir, "--target", "embedded://" + store, "--target", "embedded://memory", "--max", "--json", jsonOut}
	// And HBase (required under CI), whose data is checked too.
	hbase, onHBase := serveBackends(t)["hbase"]
	if onHBase {
		args = append(args, "--target", hbase)
	}
	rout, code := runReplayCLI(t, args...)
	rep, err := replay.ReadReportFile(jsonOut)
	if err != nil {
		t.Fatalf("replay exit %d: %v\n%s", code, err, rout)
	}
	for i, st := range rep.Runs[0].Targets {
		t.Logf("replay on %s: exit %d, ops %d, compared %d, mismatches %d (between targets %d), unexpected errors %d",
			st.Name, code, st.Ops, st.Compared, st.Mismatches, st.CrossMismatches, st.Unexpected)
		if st.Mismatches != 0 || st.CrossMismatches != 0 || st.Unexpected != 0 || (i > 0 && st.Compared < minCompared) {
			t.Errorf("replay on %s: %d mismatches, %d between targets, %d unexpected errors, %d compared; want none, none, none, >= %d\n%s",
				st.Name, st.Mismatches, st.CrossMismatches, st.Unexpected, st.Compared, minCompared, rout)
		}
	}
	if code != 0 {
		t.Errorf("replay exit %d\n%s", code, rout)
	}

	backends := map[string]string{"embedded": "embedded://" + store}
	if onHBase {
		backends["hbase"] = hbase
	}
	for name, backend := range backends {
		p := startServe(t, "--backend", backend)
		got := dumpQueries(t, gocqlSession(t, p.CQLAddr, 4, nil), ks, queries)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("data replayed on %s differs from Cassandra's:\ngot\n%s\nwant\n%s", name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		p.stop(t)
	}
}

// TestFQLImportYCSB records YCSB workload A (load, then 50/50 reads and
// updates; one client thread, so the log holds one global order), run
// with YCSB's own Java client (the project's binding, DataStax Java driver
// 4.x) straight against Cassandra, in the full query log; imports it and
// replays it on the embedded store and HBase: no mismatch, and the same
// final usertable as Cassandra's.
func TestFQLImportYCSB(t *testing.T) {
	addr, script, jmx := fqlEnv(t)
	lib := externalTool(t, "DOHYO_TEST_YCSB")
	ycsb, err := filepath.Abs("../../bench/ycsb/run.sh")
	if err != nil {
		t.Fatal(err)
	}
	ks := fmt.Sprintf("fqlycsb%d", time.Now().UnixNano())
	t.Cleanup(func() {
		s := gocqlSession(t, addr, 4, nil)
		_ = s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec()
	})
	fqlDir, disable := enableFQL(t, script, jmx)
	out, err := runTool(t, 10*time.Minute, "env", "YCSB_LIB="+lib, ycsb, addr, "--workloads", "a",
		"--records", "300", "--ops", "600", "--threads", "1", "--keyspace", ks, "--out", t.TempDir())
	if err != nil {
		t.Fatalf("YCSB against Cassandra: %v\n%s", err, out)
	}
	disable()
	queries := []string{"SELECT * FROM %s.usertable"}
	want := dumpQueries(t, gocqlSession(t, addr, 4, nil), ks, queries)
	if len(want) != 300 {
		t.Fatalf("Cassandra holds %d YCSB records, want 300", len(want))
	}
	replayFQL(t, fqlDir, ks, queries, want, 100, "")
}
