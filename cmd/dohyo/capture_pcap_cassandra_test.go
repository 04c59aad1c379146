package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/capture"
	"github.com/dohyo/dohyo/capture/pcap"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/internal/testtools"
)

// The wire importers against real Cassandra (DOHYO_TEST_CASSANDRA): gocql
// sessions run a known mix straight against Cassandra while tcpdump (or
// `dohyo capture sniff`) watches lo; the imported records must match
// what the clients sent, statement by statement.

const pcapKS = "pcap_it"

// wireMix is what the clients sent: records per statement text, and the
// rows the reads returned.
type wireMix struct {
	count map[string]int
	rows  map[string]int
}

func (m *wireMix) add(q string, n, rows int) {
	m.count[q] += n
	m.rows[q] += rows
}

// pcapSchema creates the mix's table (outside the capture).
func pcapSchema(t *testing.T, addr string) {
	t.Helper()
	s := directCassandra(t, addr)
	mustExec(t, s, "CREATE KEYSPACE IF NOT EXISTS "+pcapKS+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE IF NOT EXISTS "+pcapKS+".kv (k int PRIMARY KEY, v text)")
	mustExec(t, s, "TRUNCATE "+pcapKS+".kv")
}

// earlySession is a session opened (and a statement prepared and run)
// before the capture begins: its EXECUTEs in the capture refer to an id
// the capture never sees prepared, on a connection open before it.
const earlyUpdate = "UPDATE kv SET v = 'early' WHERE k = ?"

func earlySession(t *testing.T, addr string) *gocql.Session {
	s := gocqlSession(t, addr, 4, nil, func(c *gocql.ClusterConfig) { c.Keyspace = pcapKS; c.NumConns = 1 })
	mustExec(t, s, earlyUpdate, 100)
	return s
}

// runWireMix runs the mix on new sessions (v4 plain, v3 with Snappy) and
// on the early session; the marker query ends it.
func runWireMix(t *testing.T, addr string, early *gocql.Session) *wireMix {
	t.Helper()
	m := &wireMix{count: map[string]int{}, rows: map[string]int{}}
	for i := 0; i < 4; i++ {
		mustExec(t, early, earlyUpdate, i)
		m.add(earlyUpdate, 1, 0)
	}
	for _, sc := range []struct {
		proto int
		comp  gocql.Compressor
	}{{4, nil}, {3, gocql.SnappyCompressor{}}} {
		s := gocqlSession(t, addr, sc.proto, sc.comp, func(c *gocql.ClusterConfig) { c.Keyspace = pcapKS; c.NumConns = 1 })
		ins := "INSERT INTO kv (k, v) VALUES (?, ?)"
		for i := 0; i < 10; i++ {
			mustExec(t, s, ins, i, fmt.Sprint("v", i))
		}
		m.add(ins, 10, 0)
		sel := "SELECT v FROM kv WHERE k = ?"
		for i := 0; i < 5; i++ {
			var v string
			if err := s.Query(sel, i).Scan(&v); err != nil {
				t.Fatalf("%s: %v", sel, err)
			}
		}
		m.add(sel, 5, 5)
		in := "SELECT k FROM kv WHERE k IN (1, 2, 3)"
		n := 0
		iter := s.Query(in).Iter()
		var k int
		for iter.Scan(&k) {
			n++
		}
		if err := iter.Close(); err != nil {
			t.Fatal(err)
		}
		m.add(in, 1, n)
		upd, del := "UPDATE kv SET v = ? WHERE k = ?", "DELETE FROM kv WHERE k = ?"
		for i := 0; i < 2; i++ {
			b := s.NewBatch(gocql.LoggedBatch)
			b.Query(upd, "b", 1)
			b.Query(upd, "b", 2)
			b.Query(del, 3)
			if err := s.ExecuteBatch(b); err != nil {
				t.Fatalf("batch: %v", err)
			}
		}
		m.add(upd, 4, 0)
		m.add(del, 2, 0)
		lwt := "INSERT INTO kv (k, v) VALUES (?, ?) IF NOT EXISTS"
		for i := 0; i < 3; i++ {
			var k2 int
			var v2 string
			if _, err := s.Query(lwt, 50, "lwt").ScanCAS(&k2, &v2); err != nil {
				t.Fatalf("%s: %v", lwt, err)
			}
		}
		m.add(lwt, 3, 0)
	}
	return m
}

// checkImported compares the imported records with the mix.
func checkImported(t *testing.T, dir string, m *wireMix) {
	t.Helper()
	recs := readRecords(t, dir)
	got, rows := map[string]int{}, map[string]int{}
	fps := map[string]int{}
	for _, r := range recs {
		if _, ok := m.count[r.Query]; !ok {
			continue // drivers' own queries (system tables, USE)
		}
		if r.Keyspace != pcapKS {
			t.Errorf("%q: keyspace %q, want %q", r.Query, r.Keyspace, pcapKS)
		}
		if r.Err {
			t.Errorf("%q: error %v", r.Query, r.ErrCode)
		}
		got[r.Query]++
		rows[r.Query] += r.Rows
		fps[r.Fingerprint]++
	}
	for q, n := range m.count {
		if got[q] != n {
			t.Errorf("%q: %d records, want %d", q, got[q], n)
		}
		if fp := cql.Fingerprint(q); fps[fp] < n {
			t.Errorf("fingerprint %q: %d records, want %d", fp, fps[fp], n)
		}
		if want := m.rows[q]; want > 0 && rows[q] != want {
			t.Errorf("%q: %d rows, want %d", q, rows[q], want)
		}
	}
}

func readRecords(t testing.TB, dir string) []*capture.Record {
	t.Helper()
	mr, err := capture.Merge(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer mr.Close()
	var out []*capture.Record
	for {
		r, err := mr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		cp := *r
		out = append(out, &cp)
	}
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		<-tick.C
	}
}

// startTcpdump records lo's traffic of port into a file until stop.
func startTcpdump(t testing.TB, tcpdump, port string) (file string, stop func()) {
	t.Helper()
	file = filepath.Join(t.TempDir(), "cql.pcap")
	var stderr syncBuffer
	cmd := exec.Command(tcpdump, "-i", "lo", "-U", "-s", "0", "-w", file, "tcp port "+port)
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			cmd.Process.Signal(syscall.SIGINT)
			cmd.Wait()
		}
	}
	t.Cleanup(stop)
	waitFor(t, 30*time.Second, "tcpdump to listen", func() bool { return strings.Contains(stderr.String(), "listening on") })
	return file, stop
}

// waitCaptured polls, importing the growing file, until it holds n
// records of query: the clients' last packets reached the file.
func waitCaptured(t *testing.T, file, port, query string, n int) {
	t.Helper()
	waitFor(t, 60*time.Second, "the capture file to hold the mix", func() bool {
		dir := t.TempDir()
		o, err := runCLI(t, "", "capture", "import", "--pcap", file, "--port", port, "--out", dir, "--single-pass")
		if err != nil {
			t.Fatalf("import while capturing: %v\n%s", err, o)
		}
		got := 0
		for _, r := range readRecords(t, dir) {
			if r.Query == query {
				got++
			}
		}
		return got >= n
	})
}

func TestPcapImportCassandra(t *testing.T) {
	addr := cassandraAddr(t)
	tcpdump := testtools.Tcpdump(t)
	_, port, _ := net.SplitHostPort(addr)
	pcapSchema(t, addr)
	early := earlySession(t, addr)

	file, stop := startTcpdump(t, tcpdump, port)
	defer stop()

	m := runWireMix(t, addr, early)
	waitCaptured(t, file, port, "INSERT INTO kv (k, v) VALUES (?, ?) IF NOT EXISTS", 6)
	stop()

	dir := filepath.Join(t.TempDir(), "imported")
	out, err := runCLI(t, "", "capture", "import", "--pcap", file, "--port", port, "--out", dir,
		"--resolve-prepared", "cassandra://"+addr)
	if err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	t.Logf("import summary:\n%s", out)
	// The early session's four EXECUTEs: resolved from system.prepared_statements.
	for _, want := range []string{"imported ", "connections", "open before the capture", "server 4"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	checkImported(t, dir, m)
}

func TestSniffCassandra(t *testing.T) {
	addr := cassandraAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	// Live capture needs CAP_NET_RAW: skip without it (fail under CI).
	if l, err := pcap.OpenLive(pcap.LiveConfig{Interface: "lo"}); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("live capture on lo: %v", err)
		}
		t.Skipf("live capture on lo: %v", err)
	} else {
		l.Close()
	}
	pcapSchema(t, addr)
	early := earlySession(t, addr)

	dir := filepath.Join(t.TempDir(), "sniffed")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var output syncBuffer
	done := make(chan error, 1)
	go func() {
		root := newRootCmd()
		root.SetOut(&output)
		root.SetErr(&output)
		root.SetArgs([]string{"capture", "sniff", "--interface", "lo", "--port", port, "--out", dir,
			"--resolve-prepared", "cassandra://" + addr})
		done <- root.ExecuteContext(ctx)
	}()
	waitFor(t, 30*time.Second, "the sniffer to start", func() bool { return strings.Contains(output.String(), "sniffing lo") })
	m := runWireMix(t, addr, early)
	// The kernel queued a copy of every packet before the clients got
	// their answers: stopping now drains them.
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("sniff: %v\n%s", err, output.String())
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("sniff did not stop")
	}
	t.Logf("sniff summary:\n%s", output.String())
	if !strings.Contains(output.String(), "0 dropped") {
		t.Errorf("the kernel dropped packets:\n%s", output.String())
	}
	checkImported(t, dir, m)
}

// TestPcapImportCassandraV5: the Python driver's protocol v5 traffic
// (segments, LZ4 and not, an envelope split over segments) imported from
// tcpdump's file.
func TestPcapImportCassandraV5(t *testing.T) {
	addr := cassandraAddr(t)
	py := externalTool(t, "DOHYO_TEST_PYTHON")
	tcpdump := testtools.Tcpdump(t)
	host, port, _ := net.SplitHostPort(addr)
	pcapSchema(t, addr)
	file, stop := startTcpdump(t, tcpdump, port)
	out, err := runTool(t, 5*time.Minute, py, "testdata/pcap_v5_mix.py", host, port, pcapKS)
	if err != nil || !strings.Contains(out, "OK") {
		t.Fatalf("python v5 mix: %v\n%s", err, out)
	}
	last := "SELECT v FROM kv WHERE k = 999"
	waitCaptured(t, file, port, last, 2)
	stop()
	m := &wireMix{count: map[string]int{}, rows: map[string]int{}}
	for range 2 { // uncompressed, then LZ4
		m.add("INSERT INTO kv (k, v) VALUES (?, ?)", 12, 0)
		m.add("SELECT v FROM kv WHERE k = ?", 5, 5)
		m.add("SELECT k FROM kv WHERE k IN (1, 2, 3)", 3, 9)
		m.add("UPDATE kv SET v = 'b' WHERE k = 1", 1, 0)
		m.add(last, 1, 0)
	}
	dir := filepath.Join(t.TempDir(), "imported")
	out, err = runCLI(t, "", "capture", "import", "--pcap", file, "--port", port, "--out", dir)
	if err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	t.Logf("import summary:\n%s", out)
	if !strings.Contains(out, "skipped 0") {
		t.Errorf("connections skipped:\n%s", out)
	}
	checkImported(t, dir, m)
}
