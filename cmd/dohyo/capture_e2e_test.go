package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dohyo/dohyo/capture"
)

// readCapturedKeys returns the int bound as the first value of every
// captured INSERT into cap.t, and the number of records.
func readCapturedKeys(t *testing.T, dir string) (map[int32]bool, int) {
	t.Helper()
	m, err := capture.Merge(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	keys := map[int32]bool{}
	n := 0
	for {
		rec, err := m.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("reading capture: %v", err)
		}
		n++
		if strings.HasPrefix(rec.Query, "INSERT INTO cap.t") && len(rec.Values) > 0 && len(rec.Values[0].Bytes) == 4 {
			keys[int32(binary.BigEndian.Uint32(rec.Values[0].Bytes))] = true
		}
	}
	return keys, n
}

func TestServeCaptureAndCLI(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cap")
	p := startServe(t, "--backend", "embedded://memory", "--capture-dir", dir, "--node-id", "n1")
	s := gocqlSession(t, p.CQLAddr, 4, nil)
	mustExec(t, s, "CREATE KEYSPACE cap WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE cap.t (k int PRIMARY KEY, v text)")
	for i := 0; i < 200; i++ {
		mustExec(t, s, "INSERT INTO cap.t (k, v) VALUES (?, ?)", i, "v")
	}
	var v string
	if err := s.Query("SELECT v FROM cap.t WHERE k = ?", 7).Scan(&v); err != nil {
		t.Fatal(err)
	}
	s.Close()
	p.stop(t) // graceful: flushes and closes the capture

	keys, n := readCapturedKeys(t, dir)
	if len(keys) != 200 {
		t.Errorf("captured %d distinct inserts, want 200", len(keys))
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		info, _ := e.Info()
		if info.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", e.Name(), info.Mode().Perm())
		}
		if !strings.HasPrefix(e.Name(), "n1-") || !strings.HasSuffix(e.Name(), ".dcap") {
			t.Errorf("segment name %q does not follow <node>-<start>-<seq>.dcap", e.Name())
		}
	}

	bin := dohyoBinary(t)
	out, err := runTool(t, time.Minute, bin, "capture", "inspect", "--json", dir)
	if err != nil {
		t.Fatalf("capture inspect: %v\n%s", err, out)
	}
	var sum capture.Summary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("inspect --json output: %v\n%s", err, out)
	}
	if int(sum.Records) != n || sum.Dropped != 0 || sum.Sessions < 1 {
		t.Errorf("inspect: records=%d (read %d) dropped=%d sessions=%d", sum.Records, n, sum.Dropped, sum.Sessions)
	}
	if out, err := runTool(t, time.Minute, bin, "capture", "verify", dir); err != nil {
		t.Errorf("capture verify: %v\n%s", err, out)
	}
	out, err = runTool(t, time.Minute, bin, "capture", "dump", dir)
	if err != nil || strings.Count(out, "\n") != n || !strings.Contains(out, "INSERT INTO cap.t") {
		t.Errorf("capture dump: %v, %d lines for %d records", err, strings.Count(out, "\n"), n)
	}
	merged := filepath.Join(t.TempDir(), "merged")
	if out, err := runTool(t, time.Minute, bin, "capture", "merge", "--out", merged, dir); err != nil {
		t.Fatalf("capture merge: %v\n%s", err, out)
	}
	if mk, mn := readCapturedKeys(t, merged); mn != n || len(mk) != 200 {
		t.Errorf("merged capture has %d records / %d inserts, want %d / 200", mn, len(mk), n)
	}
}

// TestServeCaptureSurvivesKill9 kills a serving dohyo under load and checks
// the capture writer's published durability mark: every request the client
// saw acknowledged before the written-through mark read just before the
// kill (dohyo_capture_written_through_seconds) must be in the capture, and
// the torn tail must not hide anything before it. The mark is a fact the
// writer reports, so the check holds however late the writer goroutine is
// scheduled on a busy machine; how far the mark trailed the kill is logged
// (the flush interval's own promise is TestTimedFlushWritesWhatWasQueued).
func TestServeCaptureSurvivesKill9(t *testing.T) {
	const flush = 100 * time.Millisecond
	dir := filepath.Join(t.TempDir(), "cap")
	p := startServe(t, "--backend", "embedded://memory", "--capture-dir", dir, "--capture-flush", flush.String())
	s := gocqlSession(t, p.CQLAddr, 4, nil)
	mustExec(t, s, "CREATE KEYSPACE cap WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE cap.t (k int PRIMARY KEY, v text)")

	var mu sync.Mutex
	acked := map[int32]time.Time{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := int32(w); ; i += 4 {
				select {
				case <-stop:
					return
				default:
				}
				if err := s.Query("INSERT INTO cap.t (k, v) VALUES (?, ?)", i, "x").Exec(); err != nil {
					return // the server is gone
				}
				at := time.Now()
				mu.Lock()
				acked[i] = at
				mu.Unlock()
			}
		}(w)
	}
	// Load until at least 1000 acknowledged requests lie before the
	// written-through mark, then read the mark once more and kill -9 at
	// once, with requests still flowing.
	ackedBefore := func(mark time.Time) int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, at := range acked {
			if before(at, mark) {
				n++
			}
		}
		return n
	}
	metricsURL := "http://" + p.HTTPAddr + "/metrics"
	poll(t, 5*time.Minute, "1000 acknowledged requests behind the capture's written-through mark", func() bool {
		return ackedBefore(writtenThrough(t, metricsURL)) >= 1000
	})
	samples := scrape(t, nil, metricsURL)
	mark := markOf(samples)
	dropped, _ := total(samples, "dohyo_capture_dropped_total", nil)
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killAt := time.Now()
	<-p.done
	close(stop)
	wg.Wait()
	s.Close()
	if dropped != 0 {
		t.Fatalf("dohyo_capture_dropped_total = %v: the written-through mark covers dropped records too, so this run checks nothing", dropped)
	}

	keys, _ := readCapturedKeys(t, dir)
	mu.Lock()
	defer mu.Unlock()
	missing, old := 0, 0
	for k, at := range acked {
		if before(at, mark) {
			old++
			if !keys[k] {
				missing++
			}
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d requests acknowledged before the capture's written-through mark are not in the capture after kill -9", missing, old)
	}
	rep, err := capture.Verify(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("acknowledged %d (%d before the mark), captured %d; the mark trailed the kill by %v (flush interval %v); verify: %+v",
		len(acked), old, len(keys), killAt.Sub(mark).Round(time.Millisecond), flush, rep.Segments)
}

// markOf reads the capture's written-through mark from scraped metrics.
func markOf(samples []sample) time.Time {
	v, _ := total(samples, "dohyo_capture_written_through_seconds", nil)
	if v == 0 {
		return time.Time{}
	}
	return time.Unix(0, int64(v*1e9))
}

// writtenThrough scrapes the capture's written-through mark.
func writtenThrough(t *testing.T, url string) time.Time {
	t.Helper()
	return markOf(scrape(t, nil, url))
}

// before reports whether a client's acknowledgement at came before the
// mark, with a microsecond's room for the mark's float64 seconds (a
// fraction of a microsecond of rounding at today's Unix times).
func before(at, mark time.Time) bool {
	return !mark.IsZero() && at.Before(mark.Add(-time.Microsecond))
}
