package readme

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/capture"
	"github.com/dohyo/dohyo/internal/testlock"
	"github.com/dohyo/dohyo/internal/testtools"
)

// production runs the README's "Replay your production traffic without
// routing it through dohyo": the test Cassandra plays the production
// node. Its full query log is turned on and tcpdump started with the
// README's commands, an application (prodTraffic) runs on it, both
// records are imported with the README's commands and each is replayed on
// the embedded store and the test HBase.
func production(t *testing.T, dir string, blocks map[string]block, cqlsh string) {
	cass := need(t, "DOHYO_TEST_CASSANDRA", "the production walkthrough records the test Cassandra")
	jmx := need(t, "DOHYO_TEST_CASSANDRA_JMX", "the production walkthrough turns on Cassandra's full query log through nodetool")
	zk := need(t, "DOHYO_TEST_HBASE_ZK", "the production walkthrough replays on HBase")
	tcpdump := testtools.Tcpdump(t)
	script := os.Getenv("DOHYO_TEST_CASSANDRA_SCRIPT")
	if script == "" {
		abs, err := filepath.Abs("../cassandra/run.sh")
		if err != nil {
			t.Fatal(err)
		}
		script = abs
	}
	host, port, err := net.SplitHostPort(cass)
	if err != nil {
		t.Fatal(err)
	}
	ks := fmt.Sprintf("shop_%d", time.Now().UnixNano()%1e9)
	fqlDir := filepath.Join(t.TempDir(), "fql")
	environ := env("CASSANDRA_JMX_PORT=" + jmx)
	t.Cleanup(func() { dropKeyspace(t, cqlsh, cass, ks) })
	sess := prodSession(t, cass, "")
	for _, q := range []string{
		"CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE " + ks + ".orders (customer text, placed timestamp, item text, qty int, PRIMARY KEY (customer, placed)) WITH CLUSTERING ORDER BY (placed DESC)",
	} {
		if err := sess.Query(q).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	// 1. Record: the log and tcpdump, both at once, around the traffic.
	// The log is the server's alone: cmd/dohyo's tests take turns with
	// this one (testlock), from on to off.
	unlock, err := testlock.Lock("fql-" + jmx)
	if err != nil {
		t.Fatal(err)
	}
	nodetool := "bash " + script + " nodetool "
	fqlOn := true
	t.Cleanup(func() {
		if fqlOn {
			runBlock(t, dir, environ, nodetool+"disablefullquerylog", "", 3*time.Minute)
			_ = unlock()
		}
	})
	runOK(t, dir, environ, substitute(t, blocks["prod-fql-on"], "nodetool ", nodetool, "/var/lib/cassandra/fql", fqlDir))
	dump := startBlock(t, dir, environ, substitute(t, blocks["prod-tcpdump"], "sudo tcpdump ", tcpdump+" ", "tcp port 9042", "tcp port "+port),
		func(l string) bool { return strings.Contains(l, "listening on") }, time.Minute)
	want := prodTraffic(t, cass, ks)
	last := "SELECT count(*) FROM orders WHERE customer = ?"
	waitImported(t, dir, environ, "cql.pcap", port, last)
	out := dump.interrupt(t, time.Minute)
	if !strings.Contains(out, "0 packets dropped by kernel") {
		t.Errorf("tcpdump dropped packets:\n%s", out)
	}
	runOK(t, dir, environ, substitute(t, blocks["prod-fql-off"], "nodetool ", nodetool))
	fqlOn = false
	if err := unlock(); err != nil {
		t.Fatal(err)
	}

	// 2 and 3, from the log, then from tcpdump's file.
	schema := substitute(t, blocks["prod-import"], "cqlsh -e", fmt.Sprintf("%s %s %s -e", cqlsh, host, port),
		"/var/lib/cassandra/fql", fqlDir, "KEYSPACE shop'", "KEYSPACE "+ks+"'", "--keyspace shop ", "--keyspace "+ks+" ")
	for i, step := range []struct{ name, importScript string }{
		{"full query log", schema},
		{"tcpdump", substitute(t, blocks["prod-import-pcap"], "--keyspace shop ", "--keyspace "+ks+" ", "--pcap cql.pcap", "--pcap cql.pcap --port "+port)},
	} {
		if err := os.RemoveAll(filepath.Join(dir, "prod")); err != nil {
			t.Fatal(err)
		}
		r := runOK(t, dir, environ, step.importScript)
		kept := regexp.MustCompile(`--keyspace ` + ks + `: wrote (\d+) of \d+ records`).FindStringSubmatch(r.stdout)
		if kept == nil {
			t.Fatalf("%s: the import's summary has no --keyspace line:\n%s", step.name, r)
		}
		t.Logf("%s: import:\n%s", step.name, r.stdout)
		got := prodCounts(t, filepath.Join(dir, "prod"), ks)
		for q, n := range want {
			if got[q] != n {
				t.Errorf("%s: %d records of %q, want %d", step.name, got[q], q, n)
			}
		}
		// Each replay on an HBase catalog of its own: the first one's
		// tables are still there.
		replay := substitute(t, blocks["prod-replay"], "127.0.0.1:2181", fmt.Sprintf("'%s?catalog=readme%d_%d'", zk, time.Now().UnixNano(), i))
		r = runBlock(t, dir, environ, replay, "", 20*time.Minute)
		// Exit bit 4 alone (a target could not keep up) is a speed
		// verdict on a shared machine, not a failure of the walkthrough.
		if r.code != 0 && r.code != 4 {
			t.Fatalf("%s: replay failed:\n%s", step.name, r)
		}
		for _, l := range regexp.MustCompile(`(?m)^# \S+: .*mismatches in .*$`).FindAllString(r.stdout, -1) {
			t.Logf("%s: verdict %s", step.name, l)
		}
		checkProdReplay(t, step.name, dir, r.stdout)
	}
}

// runOK runs a block and fails the test unless it exits 0.
func runOK(t *testing.T, dir string, environ []string, script string) result {
	t.Helper()
	r := runBlock(t, dir, environ, script, "", 5*time.Minute)
	if r.code != 0 {
		t.Fatalf("block failed:\n%s\n%s", script, r)
	}
	return r
}

func prodSession(t *testing.T, addr, ks string) *gocql.Session {
	t.Helper()
	c := gocql.NewCluster(addr)
	c.ProtoVersion, c.Keyspace, c.NumConns = 4, ks, 1
	c.Timeout, c.ConnectTimeout = 30*time.Second, 30*time.Second
	c.Consistency = gocql.One
	s, err := c.CreateSession()
	if err != nil {
		t.Fatalf("connect to %s: %v", addr, err)
	}
	t.Cleanup(s.Close)
	return s
}

// prodTraffic is the application: one connection, one statement at a
// time — orders placed (prepared, some in batches), changed, cancelled
// and read back — and returns how many of each statement it ran.
func prodTraffic(t *testing.T, addr, ks string) map[string]int {
	t.Helper()
	s := prodSession(t, addr, ks)
	counts := map[string]int{}
	run := func(q string, args ...any) {
		t.Helper()
		if err := s.Query(q, args...).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		counts[q]++
	}
	ins := "INSERT INTO orders (customer, placed, item, qty) VALUES (?, ?, ?, ?)"
	upd := "UPDATE orders SET qty = ? WHERE customer = ? AND placed = ?"
	del := "DELETE FROM orders WHERE customer = ? AND placed = ?"
	sel := "SELECT item, qty FROM orders WHERE customer = ? LIMIT 5"
	customers := []string{"ada", "bo", "cy", "di", "ed"}
	items := []string{"tea", "cake", "jam", "bread"}
	base := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	for i := 0; i < 60; i++ {
		c, at := customers[i%len(customers)], base.Add(time.Duration(i)*time.Minute)
		if i%10 == 9 {
			b := s.NewBatch(gocql.LoggedBatch)
			b.Query(ins, c, at, items[i%len(items)], i)
			b.Query(ins, c, at.Add(time.Second), "gift", 1)
			if err := s.ExecuteBatch(b); err != nil {
				t.Fatalf("batch: %v", err)
			}
			counts[ins] += 2
		} else {
			run(ins, c, at, items[i%len(items)], i%4+1)
		}
		if i%3 == 0 {
			run(upd, i%7+1, c, at)
		}
		if i%8 == 7 {
			run(del, c, at)
		}
		run(sel, customers[(i+2)%len(customers)])
	}
	for _, c := range customers {
		run("SELECT count(*) FROM orders WHERE customer = ?", c)
	}
	return counts
}

// waitImported imports the growing tcpdump file until it holds the
// application's last statement: every packet before it is in the file.
func waitImported(t *testing.T, dir string, environ []string, file, port, last string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		out := t.TempDir()
		r := runBlock(t, dir, environ, fmt.Sprintf("./dohyo capture import --pcap %s --port %s --single-pass --out %s", file, port, out), "", time.Minute)
		if r.code == 0 && prodCounts(t, out, "")[last] == 5 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("tcpdump's file does not hold the traffic's end after a minute:\n%s", r)
		}
		<-tick.C
	}
}

// prodCounts counts a capture's records by statement text (of keyspace ks,
// when given).
func prodCounts(t *testing.T, dir, ks string) map[string]int {
	t.Helper()
	m, err := capture.Merge(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	out := map[string]int{}
	for {
		r, err := m.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if ks == "" || r.Keyspace == ks {
			out[r.Query]++
		}
	}
}

// checkProdReplay: no unexpected errors, no differing reads, and reads
// compared (with production's answers or between the targets).
func checkProdReplay(t *testing.T, name, dir, out string) {
	t.Helper()
	for _, bad := range regexp.MustCompile(`\[(COMPARE|ERRORS)\], (Mismatches|CrossTargetMismatches|Unexpected), [1-9]\d*`).FindAllString(out, -1) {
		t.Errorf("%s: replay: %s\n%s", name, bad, out)
	}
	if !regexp.MustCompile(`\[COMPARE\], Compared, [1-9]\d*`).MatchString(out) {
		t.Errorf("%s: replay compared no reads:\n%s", name, out)
	}
	if html, err := os.ReadFile(filepath.Join(dir, "prod.html")); err != nil || !strings.Contains(string(html), "Legend") {
		t.Errorf("%s: prod.html (%v) lacks the legend", name, err)
	}
}
