package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/embedded"
	"github.com/dohyo/dohyo/bindings/stores"
	"github.com/dohyo/dohyo/engine"
	"github.com/dohyo/dohyo/mirror"
)

// mirrorProc is a second `dohyo serve` on the embedded store used as a
// mirror over CQL (a cassandra:// URL pointing at it), on a fixed address
// so that it can be killed and started again where the primary expects it.
type mirrorProc struct {
	t    *testing.T
	dir  string
	addr string
	p    *serveProc
}

func startMirrorProc(t *testing.T) *mirrorProc {
	t.Helper()
	m := &mirrorProc{t: t, dir: t.TempDir(), addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(freeTierPort(t, 1)))}
	m.start()
	return m
}

func (m *mirrorProc) start() {
	m.t.Helper()
	m.p = startServe(m.t, "--backend", "embedded://"+m.dir, "--cql-addr", m.addr)
}

// kill ends the mirror with SIGKILL.
func (m *mirrorProc) kill() {
	m.t.Helper()
	if err := m.p.cmd.Process.Kill(); err != nil {
		m.t.Fatal(err)
	}
	select {
	case <-m.p.done:
	case <-time.After(30 * time.Second):
		m.t.Fatal("mirror did not exit after SIGKILL")
	}
}

func (m *mirrorProc) url() string { return "cassandra://" + m.addr }

// waitMirrored polls /admin/mirror until every request sent to the one
// mirror was answered (applied, failed or dropped) and returns the status.
func waitMirrored(t *testing.T, httpAddr string) mirror.Status {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		st := mirrorStatus(t, httpAddr)
		if st.Applied+st.Failed == st.Sent && st.Queued == 0 && st.Sent > 0 {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("mirror did not catch up within 60s: %+v", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// mirrorCLI runs `dohyo mirror ARGS...` and decodes its JSON output
// (stdout; logs go to stderr) into v.
func mirrorCLI(t *testing.T, v any, args ...string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, dohyoBinary(t), append([]string{"mirror"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if decErr := json.Unmarshal(stdout.Bytes(), v); decErr != nil {
		t.Fatalf("dohyo mirror %s: %v (exit %v)\n%s\n%s", strings.Join(args, " "), decErr, err, stdout.String(), stderr.String())
	}
	if err != nil {
		return fmt.Errorf("%w\n%s", err, stderr.String())
	}
	return nil
}

// TestMirrorYCSBBackfill: YCSB workload A through dohyo serve (embedded)
// with the keyspace mirrored to a second dohyo over CQL. The records were
// loaded before the mirror was added, so `dohyo mirror compare` first
// reports them missing; `dohyo mirror backfill`, run while the workload's
// updates are being mirrored, copies them with their write times, and
// afterwards compare reports the keyspaces equal, write times included.
func TestMirrorYCSBBackfill(t *testing.T) {
	lib := externalTool(t, "DOHYO_TEST_YCSB")
	script, err := filepath.Abs("../../bench/ycsb/run.sh")
	if err != nil {
		t.Fatal(err)
	}
	const ks, records = "mirror_ycsb", 2000
	m := startMirrorProc(t)
	ms := gocqlSession(t, m.addr, 4, nil)
	mustExec(t, ms, "CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	fields := make([]string, 10)
	for i := range fields {
		fields[i] = fmt.Sprintf(", field%d varchar", i)
	}
	mustExec(t, ms, "CREATE TABLE "+ks+".usertable (y_id varchar PRIMARY KEY"+strings.Join(fields, "")+")")
	ms.Close()

	primaryDir := t.TempDir()
	ycsb := func(addr string, phase string) {
		t.Helper()
		out, err := runTool(t, 5*time.Minute, "env", "YCSB_LIB="+lib, script, addr, "--workloads", "a",
			"--phases", phase, "--records", strconv.Itoa(records), "--ops", "5000", "--threads", "4",
			"--keyspace", ks, "--out", t.TempDir())
		if err != nil {
			t.Errorf("run.sh %s: %v\n%s", phase, err, out)
		}
	}
	// Loaded before mirroring was on.
	p := startServe(t, "--backend", "embedded://"+primaryDir)
	ycsb(p.CQLAddr, "load")
	p.stop(t)
	if t.Failed() {
		t.FailNow()
	}
	p = startServe(t, "--backend", "embedded://"+primaryDir, "--mirror", ks+"="+m.url())
	source := "cassandra://" + p.CQLAddr
	var cmp mirror.CompareResult
	if err := mirrorCLI(t, &cmp, "compare", "--source", source, "--target", m.url(), "--keyspace", ks); err == nil ||
		cmp.Equal || len(cmp.Tables) != 1 || cmp.Tables[0].Missing != records {
		t.Fatalf("compare before the backfill: want %d rows missing and a non-zero exit, got %v %+v", records, err, cmp)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		ycsb(p.CQLAddr, "run")
	}()
	var bf mirror.BackfillStats
	if err := mirrorCLI(t, &bf, "backfill", "--source", source, "--target", m.url(), "--keyspace", ks); err != nil {
		t.Errorf("backfill: %v", err)
	}
	wg.Wait()
	if bf.Rows < records || bf.Failed != 0 {
		t.Errorf("backfill %+v: want at least %d rows copied, no failure", bf, records)
	}
	st := waitMirrored(t, p.HTTPAddr)
	if st.Failed != 0 || st.Dropped != 0 || st.Applied == 0 {
		t.Errorf("mirror status %+v: want the workload's writes applied, none failed or dropped", st)
	}
	cmp = mirror.CompareResult{}
	if err := mirrorCLI(t, &cmp, "compare", "--source", source, "--target", m.url(), "--keyspace", ks); err != nil ||
		!cmp.Equal || cmp.Tables[0].Equal != records {
		t.Fatalf("compare after the run and the backfill: %v %+v", err, cmp)
	}
}

// TestMirrorKilledThenReapply: the mirror (a second dohyo over CQL) is
// killed with SIGKILL in the middle of a run of concurrent gocql writers
// and started again. The clients see no error; /admin/mirror and /metrics
// count the mirror's failures; `dohyo mirror compare` then finds rows
// missing on the mirror, and `dohyo mirror reapply` over the primary's
// capture brings it back in line (compare equal, write times included).
func TestMirrorKilledThenReapply(t *testing.T) {
	const ks = "mirror_kill"
	ddl := []string{
		"CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE " + ks + ".t (k int, c int, v text, PRIMARY KEY (k, c))",
	}
	m := startMirrorProc(t)
	ms := gocqlSession(t, m.addr, 4, nil)
	for _, q := range ddl {
		mustExec(t, ms, q)
	}
	ms.Close()
	primaryDir, capDir := t.TempDir(), t.TempDir()
	p := startServe(t, "--backend", "embedded://"+primaryDir, "--mirror", ks+"="+m.url(),
		"--capture-dir", capDir, "--node-id", "n1")
	s := gocqlSession(t, p.CQLAddr, 4, nil)
	for _, q := range ddl {
		mustExec(t, s, q)
	}
	const writers, perWriter = 4, 150
	write := func(from, to int) {
		t.Helper()
		concurrently(t, writers, func(w int) error {
			for i := from; i < to; i++ {
				k := w*perWriter + i
				if err := s.Query("INSERT INTO "+ks+".t (k, c, v) VALUES (?, 1, 'first')", k).Exec(); err != nil {
					return err
				}
				if err := s.Query("UPDATE "+ks+".t SET v = ? WHERE k = ? AND c = 2", fmt.Sprint("second ", i), k).Exec(); err != nil {
					return err
				}
			}
			return nil
		})
	}
	write(0, perWriter/3)
	m.kill()
	write(perWriter/3, 2*perWriter/3)
	// The mirror's failures are counted before it comes back.
	deadline := time.Now().Add(60 * time.Second)
	for st := mirrorStatus(t, p.HTTPAddr); st.Failed+st.Dropped == 0; st = mirrorStatus(t, p.HTTPAddr) {
		if time.Now().After(deadline) {
			t.Fatalf("no mirror failure counted within 60s of the kill: %+v", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
	m.start()
	write(2*perWriter/3, perWriter)
	st := waitMirrored(t, p.HTTPAddr)
	if st.Failed == 0 || st.Applied == 0 {
		t.Fatalf("mirror status %+v: want failures while it was down and writes applied", st)
	}
	metrics := httpGet(t, "http://"+p.HTTPAddr+"/metrics")
	if !strings.Contains(metrics, fmt.Sprintf("dohyo_mirror_failed_total{mirror=%q} %d", m.url(), st.Failed)) {
		t.Errorf("/metrics lacks the failed count %d of %s", st.Failed, m.url())
	}
	t.Logf("mirror status after the kill and restart: %+v", st)
	s.Close()
	p.stop(t) // flushes the capture, releases the primary's store
	source := "embedded://" + primaryDir
	var cmp mirror.CompareResult
	if err := mirrorCLI(t, &cmp, "compare", "--source", source, "--target", m.url(), "--keyspace", ks); err == nil || cmp.Equal {
		t.Fatalf("compare before reapply: want differences and a non-zero exit, got %v %+v", err, cmp)
	}
	var ra mirror.ReapplyStats
	if err := mirrorCLI(t, &ra, "reapply", capDir, "--target", m.url(), "--keyspace", ks); err != nil {
		t.Fatalf("reapply: %v", err)
	}
	if ra.Applied != 2*writers*perWriter || ra.Failed != 0 {
		t.Fatalf("reapply %+v: want all %d captured writes applied", ra, 2*writers*perWriter)
	}
	cmp = mirror.CompareResult{}
	if err := mirrorCLI(t, &cmp, "compare", "--source", source, "--target", m.url(), "--keyspace", ks); err != nil ||
		!cmp.Equal || cmp.Tables[0].Equal != 2*writers*perWriter {
		t.Fatalf("compare after reapply: %v %+v", err, cmp)
	}
}

// TestMirrorBackfillCompareCLI: the CLI on two embedded stores. Without
// the flags it says which are needed; compare exits non-zero and names
// the missing rows; backfill copies them, names the counter table it
// skipped and why; compare of the copied table then exits zero.
func TestMirrorBackfillCompareCLI(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	for i, dir := range []string{src, dst} {
		b, err := stores.Embedded(t.Context(), embedded.Config{Dir: dir}, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		qs := []string{
			"CREATE KEYSPACE cli WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
			"CREATE TABLE cli.kv (k int PRIMARY KEY, v text)",
			"CREATE TABLE cli.n (k int PRIMARY KEY, n counter)",
		}
		if i == 0 {
			qs = append(qs, "INSERT INTO cli.kv (k, v) VALUES (1, 'a') USING TIMESTAMP 10",
				"INSERT INTO cli.kv (k, v) VALUES (2, 'b') USING TTL 600", "UPDATE cli.n SET n = n + 1 WHERE k = 1")
		}
		for _, q := range qs {
			if _, err := b.Execute(t.Context(), &bindings.Request{Query: q}); err != nil {
				t.Fatal(err)
			}
		}
		b.Close()
	}
	if out, err := runCLI(t, "", "mirror", "backfill", "--source", "embedded://"+src); err == nil || !strings.Contains(err.Error(), "--source, --target and --keyspace are required") {
		t.Fatalf("backfill without --target: %v\n%s", err, out)
	}
	if out, err := runCLI(t, "", "mirror", "compare", "--source", "embedded://"+src, "--target", "embedded://"+src, "--keyspace", "cli"); err == nil || !strings.Contains(err.Error(), "the same backend") {
		t.Fatalf("compare of a backend with itself: %v\n%s", err, out)
	}
	args := []string{"--source", "embedded://" + src, "--target", "embedded://" + dst, "--keyspace", "cli"}
	out, err := runCLI(t, "", append([]string{"mirror", "compare", "--table", "kv"}, args...)...)
	if err == nil || !strings.Contains(out, `"missing": 2`) || !strings.Contains(out, `"key": "k=1"`) {
		t.Fatalf("compare before backfill: want 2 missing and an error, got %v\n%s", err, out)
	}
	state := filepath.Join(t.TempDir(), "backfill.json")
	out, err = runCLI(t, "", append([]string{"mirror", "backfill", "--state", state}, args...)...)
	var st mirror.BackfillStats
	if err != nil || json.Unmarshal([]byte(out), &st) != nil || st.Rows != 2 || st.Writes != 2 ||
		len(st.Tables) != 2 || st.Tables[1].Skipped != "counter table" || len(st.Notes) != 1 || !strings.Contains(st.Notes[0], "counter") {
		t.Fatalf("backfill: %v %+v\n%s", err, st, out)
	}
	// --state resumes: the table copied completely is skipped by a second
	// run with the same file; a state of another keyspace is refused.
	if b, err := os.ReadFile(state); err != nil || !strings.Contains(string(b), `"kv"`) {
		t.Fatalf("--state file after the backfill: %v %s", err, b)
	}
	out, err = runCLI(t, "", append([]string{"mirror", "backfill", "--state", state}, args...)...)
	st = mirror.BackfillStats{}
	if err != nil || json.Unmarshal([]byte(out), &st) != nil || st.Rows != 0 || st.Tables[0].Skipped != "copied by an earlier run" {
		t.Fatalf("resumed backfill: %v %+v\n%s", err, st, out)
	}
	other := []string{"mirror", "backfill", "--state", state, "--source", "embedded://" + src, "--target", "embedded://" + dst, "--keyspace", "other"}
	if out, err := runCLI(t, "", other...); err == nil || !strings.Contains(err.Error(), `records keyspace "cli"`) {
		t.Fatalf("a state file of another keyspace: %v\n%s", err, out)
	}
	if out, err := runCLI(t, "", append([]string{"mirror", "compare", "--table", "kv"}, args...)...); err != nil || !strings.Contains(out, `"equal": true`) {
		t.Fatalf("compare after backfill: %v\n%s", err, out)
	}
}
