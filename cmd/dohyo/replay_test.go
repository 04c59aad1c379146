package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/replay"
)

// captureYCSBTraffic runs YCSB-like traffic (inserts, updates, point reads,
// a multi-page scan of one partition) through a capturing `dohyo serve`
// and returns the capture directory and the final table contents.
func captureYCSBTraffic(t *testing.T) (string, []string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "cap")
	p := startServe(t, "--backend", "embedded://memory", "--capture-dir", dir, "--node-id", "n1")
	// One connection: replay keeps order within a session, and across
	// sessions only as far as the schedule's spacing allows, so a single
	// session keeps the read-after-write checks deterministic.
	c := gocql.NewCluster(p.CQLAddr)
	c.NumConns, c.Consistency, c.Timeout, c.ConnectTimeout = 1, gocql.One, 10*time.Second, 10*time.Second
	s, err := c.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mustExec(t, s, "CREATE KEYSPACE ycsb WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE ycsb.usertable (y_id text, seq int, field0 text, field1 text, PRIMARY KEY (y_id, seq))")
	for i := 0; i < 60; i++ {
		mustExec(t, s, "INSERT INTO ycsb.usertable (y_id, seq, field0, field1) VALUES (?, ?, ?, ?)",
			fmt.Sprintf("user%d", i%12), i, fmt.Sprintf("a%d", i), "b")
	}
	for i := 0; i < 20; i++ {
		mustExec(t, s, "UPDATE ycsb.usertable SET field1 = ? WHERE y_id = ? AND seq = ?", fmt.Sprintf("u%d", i), fmt.Sprintf("user%d", i%12), i)
		var f0 string
		if err := s.Query("SELECT field0 FROM ycsb.usertable WHERE y_id = ? AND seq = ?", fmt.Sprintf("user%d", i%12), i).Scan(&f0); err != nil {
			t.Fatal(err)
		}
	}
	// A multi-page read: 5 rows in pages of 2.
	it := s.Query("SELECT seq, field0 FROM ycsb.usertable WHERE y_id = ?", "user3").PageSize(2).Iter()
	var seq int
	var f0 string
	n := 0
	for it.Scan(&seq, &f0) {
		n++
	}
	if err := it.Close(); err != nil || n != 5 {
		t.Fatalf("paged read: %d rows, err %v; want 5 rows", n, err)
	}
	rows := sessionRows(t, s)
	s.Close()
	p.stop(t)
	return dir, rows
}

func sessionRows(t *testing.T, s *gocql.Session) []string {
	t.Helper()
	return tableRows(t, func(q string) ([][][]byte, error) {
		var out [][][]byte
		it := s.Query(q).Iter()
		var a, c, d string
		var b int
		for it.Scan(&a, &b, &c, &d) {
			out = append(out, [][]byte{[]byte(a), []byte(fmt.Sprint(b)), []byte(c), []byte(d)})
		}
		return out, it.Close()
	})
}

func gocqlRows(t *testing.T, addr string) []string {
	t.Helper()
	s := gocqlSession(t, addr, 4, nil)
	defer s.Close()
	return sessionRows(t, s)
}

const dumpQuery = "SELECT y_id, seq, field0, field1 FROM ycsb.usertable"

func tableRows(t *testing.T, query func(string) ([][][]byte, error)) []string {
	t.Helper()
	rows, err := query(dumpQuery)
	if err != nil {
		t.Fatalf("dump table: %v", err)
	}
	var out []string
	for _, r := range rows {
		parts := make([]string, len(r))
		for i, c := range r {
			parts[i] = string(c)
		}
		out = append(out, strings.Join(parts, "|"))
	}
	sort.Strings(out)
	return out
}

// backendRows dumps the table through a backend (CQL-serialized cells: text
// is UTF-8, int is 4 bytes big-endian).
func backendRows(t *testing.T, b bindings.Backend) []string {
	t.Helper()
	return tableRows(t, func(q string) ([][][]byte, error) {
		res, err := b.Execute(context.Background(), &bindings.Request{Query: q, Consistency: bindings.One})
		if err != nil {
			return nil, err
		}
		for _, r := range res.Rows {
			if len(r[1]) == 4 {
				r[1] = []byte(fmt.Sprint(int32(uint32(r[1][0])<<24 | uint32(r[1][1])<<16 | uint32(r[1][2])<<8 | uint32(r[1][3]))))
			}
		}
		return res.Rows, nil
	})
}

func runReplayCLI(t *testing.T, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(dohyoBinary(t), append([]string{"replay", "--quiet"}, args...)...)
	out, err := cmd.CombinedOutput()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

func TestReplayEndToEnd(t *testing.T) {
	capDir, want := captureYCSBTraffic(t)
	if len(want) != 60 {
		t.Fatalf("original table has %d rows, want 60", len(want))
	}
	targets := map[string]string{"embedded": "embedded://" + filepath.Join(t.TempDir(), "store")}
	if u, ok := serveBackends(t)["hbase"]; ok {
		targets["hbase"] = u
	}
	// Another dohyo as a plain CQL endpoint.
	other := startServe(t, "--backend", "embedded://memory")
	targets["cql"] = "cql://" + other.CQLAddr
	for name, target := range targets {
		t.Run(name, func(t *testing.T) {
			jsonOut := filepath.Join(t.TempDir(), "r.json")
			htmlOut := filepath.Join(t.TempDir(), "r.html")
			// This test checks results, not speed: a real HBase needs most
			// of a second for CREATE TABLE (replay runs DDL alone), and a
			// busy machine runs any target late, so neither the lag nor the
			// finish time may call a target slow here (thresholds far
			// beyond the run). The could-not-keep-up flag has tests of its
			// own.
			out, code := runReplayCLI(t, capDir, "--target", target, "--create-schema", "--speed", "1",
				"--lag-threshold", "30m", "--late-fraction", "1000", "--json", jsonOut, "--report", htmlOut)
			if code != 0 {
				t.Fatalf("replay exit %d, want 0\n%s", code, out)
			}
			for _, want := range []string{"[OVERALL], Throughput(ops/sec)", "[Intended-ALL], 99thPercentileLatency(us)"} {
				if !strings.Contains(out, want) {
					t.Errorf("text report lacks %q\n%s", want, out)
				}
			}
			rep, err := replay.ReadReportFile(jsonOut)
			if err != nil {
				t.Fatal(err)
			}
			st := rep.Runs[0].Targets[0]
			if st.Mismatches != 0 || st.Unexpected != 0 || st.Compared < 21 {
				t.Errorf("mismatches %d errors %d compared %d; want 0, 0, >= 21", st.Mismatches, st.Unexpected, st.Compared)
			}
			checkConditions(t, name, target, out, rep, 0)
			if html, err := os.ReadFile(htmlOut); err != nil || !strings.Contains(string(html), "<svg") || strings.Contains(string(html), "<script") {
				t.Errorf("HTML report missing, without charts or with scripts (err %v)", err)
			}
			var got []string
			if name == "cql" {
				got = gocqlRows(t, other.CQLAddr)
			} else {
				b, err := openBackend(context.Background(), target)
				if err != nil {
					t.Fatal(err)
				}
				defer b.Close()
				got = backendRows(t, b)
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("replayed table differs:\ngot  %q\nwant %q", got, want)
			}
		})
	}
}

// checkConditions checks that the report states the target's server and
// settings, in the JSON and in the text output.
func checkConditions(t *testing.T, kind, target, text string, rep *replay.Report, i int) {
	t.Helper()
	ti := rep.Conditions.Targets[i]
	want := map[string]struct {
		server   string // regexp
		settings map[string]string
	}{
		"embedded":  {`^dohyo embedded store \(pebble v2\.`, map[string]string{"storage": strings.TrimPrefix(target, "embedded://"), "salt": "0", "layout": "rows (one Pebble key per row)"}},
		"hbase":     {`^Apache HBase \d+\.\d+\.\d+`, map[string]string{"salt": "4", "regions": "4 per table (one per salt bucket)", "compression": "NONE", "encoding": "FAST_DIFF"}},
		"cql":       {`^CQL endpoint, release_version \d+\.\d+`, map[string]string{"consistency": "as captured"}},
		"cassandra": {`^Apache Cassandra \d+\.\d+`, map[string]string{"consistency": "ONE", "protocol": "v4"}},
	}[kind]
	if !regexp.MustCompile(want.server).MatchString(ti.Server) {
		t.Errorf("server %q, want it to match %s", ti.Server, want.server)
	}
	for k, v := range want.settings {
		if ti.Settings[k] != v {
			t.Errorf("setting %q = %q, want %q (all: %v)", k, ti.Settings[k], v, ti.Settings)
		}
	}
	if kind == "cql" || kind == "cassandra" {
		ks := rep.Runs[0].Keyspaces
		if len(ks) != 1 || !strings.HasPrefix(ti.Settings["replication "+ks[0]], "SimpleStrategy replication_factor=1") {
			t.Errorf("keyspaces %v, settings %v: want the replication of the one keyspace", ks, ti.Settings)
		}
	}
	if !strings.Contains(text, "#   server: "+ti.Server+"\n") {
		t.Errorf("text report does not state the server %q\n%s", ti.Server, text)
	}
}

// TestReplayConditionsCassandra replays a small capture into the real
// Cassandra through both of its target kinds and checks that the report
// names the server version (asked through the target connection) and the
// replication of the replayed keyspace.
func TestReplayConditionsCassandra(t *testing.T) {
	addr := os.Getenv("DOHYO_TEST_CASSANDRA")
	if addr == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("DOHYO_TEST_CASSANDRA is not set")
		}
		t.Skip("DOHYO_TEST_CASSANDRA not set")
	}
	ks := fmt.Sprintf("rc%d", time.Now().UnixNano())
	capDir := filepath.Join(t.TempDir(), "cap")
	p := startServe(t, "--backend", "embedded://memory", "--capture-dir", capDir, "--node-id", "n1")
	s := gocqlSession(t, p.CQLAddr, 4, nil)
	mustExec(t, s, "CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE "+ks+".t (k int PRIMARY KEY, v text)")
	for i := 0; i < 10; i++ {
		mustExec(t, s, "INSERT INTO "+ks+".t (k, v) VALUES (?, ?)", i, "x")
	}
	s.Close()
	p.stop(t)
	t.Cleanup(func() {
		c := gocqlSession(t, addr, 4, nil)
		_ = c.Query("DROP KEYSPACE IF EXISTS " + ks).Exec()
	})

	jsonOut := filepath.Join(t.TempDir(), "r.json")
	cass, cqlT := "cassandra://"+addr+"?consistency=ONE", "cql://"+addr
	out, code := runReplayCLI(t, capDir, "--target", cass, "--target", cqlT, "--create-schema", "--max", "--json", jsonOut)
	// The second target finds the keyspace the first created: its
	// AlreadyExists answers are expected, nothing else is.
	if code&^replay.ExitErrors != 0 {
		t.Fatalf("replay exit %d\n%s", code, out)
	}
	rep, err := replay.ReadReportFile(jsonOut)
	if err != nil {
		t.Fatal(err)
	}
	checkConditions(t, "cassandra", cass, out, rep, 0)
	checkConditions(t, "cql", cqlT, out, rep, 1)
	if got := rep.Conditions.Targets[0].Settings["compression "+ks+".t"]; !strings.HasPrefix(got, "LZ4Compressor") {
		t.Errorf("compression of %s.t: %q, want Cassandra's default LZ4Compressor", ks, got)
	}
}

func TestReplaySweep(t *testing.T) {
	capDir, _ := captureYCSBTraffic(t)
	jsonOut := filepath.Join(t.TempDir(), "r.json")
	htmlOut := filepath.Join(t.TempDir(), "r.html")
	out, code := runReplayCLI(t, capDir, "--target", "embedded://memory", "--target", "embedded://memory",
		"--create-schema", "--speed", "2,4", "--json", jsonOut, "--report", htmlOut)
	// Later runs replay onto data of earlier ones; only errors fail here.
	if code&replay.ExitErrors != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	rep, err := replay.ReadReportFile(jsonOut)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 2 || rep.Runs[0].Label != "speed=2" || rep.Runs[1].Label != "speed=4" || len(rep.Runs[1].Targets) != 2 {
		t.Fatalf("runs %d, want speed=2 and speed=4 with 2 targets each", len(rep.Runs))
	}
	html, err := os.ReadFile(htmlOut)
	if err != nil || !strings.Contains(string(html), "sweep: throughput vs offered rate") || !strings.Contains(string(html), "sweep: intended p99 vs offered rate") {
		t.Fatalf("HTML lacks the sweep chart (err %v)", err)
	}
}

func TestReplayReportMerge(t *testing.T) {
	capDir, _ := captureYCSBTraffic(t)
	var files []string
	for i := 0; i < 2; i++ {
		f := filepath.Join(t.TempDir(), fmt.Sprintf("s%d.json", i))
		// Each shard replays its sessions into a fresh store; a shard without
		// the session that created the schema gets errors, which is fine here:
		// only the arithmetic of merging is checked.
		out, code := runReplayCLI(t, capDir, "--target", "embedded://memory", "--max",
			"--shard", fmt.Sprintf("%d/2", i), "--json", f)
		if code&^(replay.ExitErrors|replay.ExitMismatches) != 0 {
			t.Fatalf("shard %d exit %d\n%s", i, code, out)
		}
		files = append(files, f)
	}
	merged := filepath.Join(t.TempDir(), "m.json")
	cmd := exec.Command(dohyoBinary(t), "report", "merge", files[0], files[1], "--json", merged)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("report merge: %v\n%s", err, out)
	}
	var ops int64
	for _, f := range files {
		r, err := replay.ReadReportFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ops += r.Runs[0].Targets[0].Ops
	}
	b, err := os.ReadFile(merged)
	if err != nil {
		t.Fatal(err)
	}
	var m replay.Report
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if got := m.Runs[0].Targets[0]; got.Ops != ops || int64(got.Intended.Count()) != ops {
		t.Fatalf("merged ops %d (histogram %d), want %d", got.Ops, got.Intended.Count(), ops)
	}
}
