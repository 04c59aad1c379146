package main

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings/faulty"
	"github.com/dohyo/dohyo/capture"
)

// TestShutdownDrainsThenFlushesCapture: on shutdown readiness turns 503,
// the CQL port stops accepting, a request in flight is still answered, and
// only then is the capture flushed, so it holds that request; afterwards
// no goroutine is left.
func TestShutdownDrainsThenFlushesCapture(t *testing.T) {
	baseline := runtime.NumGoroutine()
	dir := filepath.Join(t.TempDir(), "cap")
	cfg := opsConfig()
	cfg.CaptureDir, cfg.NodeID = dir, "sd"
	cfg.ShutdownGrace = 20 * time.Second
	p := startInProcess(t, cfg)
	s, err := cluster(p.cqlAddr()).CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, s, "CREATE KEYSPACE sd WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE sd.t (k int PRIMARY KEY, v text)")
	mustExec(t, s, "INSERT INTO sd.t (k, v) VALUES (?, ?)", 0, "warm")
	held := make(chan struct{}, 1)
	p.embedded(t).InjectFault(faulty.Fault{Match: "INSERT INTO sd.t", Delay: time.Second,
		Hit: func() { held <- struct{}{} }})

	readiness := func() int {
		resp, err := http.Get("http://" + p.httpAddr() + "/health/readiness")
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := readiness(); got != http.StatusOK {
		t.Fatalf("readiness before shutdown: %d", got)
	}
	inflight := make(chan error, 1)
	go func() { inflight <- s.Query("INSERT INTO sd.t (k, v) VALUES (?, ?)", 42, "in flight").Exec() }()
	select { // the backend is really holding the insert
	case <-held:
	case <-time.After(10 * time.Second):
		t.Fatal("the slow insert never reached the backend")
	}

	stopped := make(chan error, 1)
	go func() { stopped <- p.stop() }()
	poll(t, 30*time.Second, "readiness to turn 503 (or the HTTP port to close)", func() bool {
		return p.s.health.draining.Load() && readiness() != http.StatusOK
	})
	poll(t, 30*time.Second, "the CQL port to stop accepting", func() bool {
		nc, err := net.DialTimeout("tcp", p.cqlAddr(), time.Second)
		if err == nil {
			nc.Close()
		}
		return err != nil
	})
	select {
	case err := <-stopped:
		t.Fatalf("the server stopped (%v) before its in-flight request finished", err)
	default:
	}
	if err := <-inflight; err != nil {
		t.Errorf("the in-flight insert failed during shutdown: %v", err)
	}
	if err := <-stopped; err != nil {
		t.Errorf("shutdown: %v", err)
	}
	s.Close()

	keys := capturedInserts(t, dir, "INSERT INTO sd.t")
	if !keys[42] || !keys[0] {
		t.Errorf("captured inserts %v, want 0 and the in-flight 42", keys)
	}
	waitGoroutines(t, baseline+2)
}

// capturedInserts returns the first bound int of every captured statement
// starting with prefix.
func capturedInserts(t *testing.T, dir, prefix string) map[int32]bool {
	t.Helper()
	m, err := capture.Merge(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	keys := map[int32]bool{}
	for {
		rec, err := m.Next()
		if errors.Is(err, io.EOF) {
			return keys
		}
		if err != nil {
			t.Fatalf("reading capture: %v", err)
		}
		if strings.HasPrefix(rec.Query, prefix) && len(rec.Values) > 0 && len(rec.Values[0].Bytes) == 4 {
			keys[int32(binary.BigEndian.Uint32(rec.Values[0].Bytes))] = true
		}
	}
}

// TestShutdownGraceExpires: a request slower than shutdown-grace is
// abandoned (the server does not hang), and the capture is still closed
// cleanly with what finished.
func TestShutdownGraceExpires(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cap")
	cfg := opsConfig()
	cfg.CaptureDir = dir
	cfg.ShutdownGrace = 300 * time.Millisecond
	cfg.RequestTimeout = 0
	p := startInProcess(t, cfg)
	s := session(t, cluster(p.cqlAddr()))
	mustExec(t, s, "CREATE KEYSPACE sg WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE sg.t (k int PRIMARY KEY, v text)")
	mustExec(t, s, "INSERT INTO sg.t (k, v) VALUES (?, ?)", 7, "done")
	held := make(chan struct{}, 1)
	const hold = time.Minute
	p.embedded(t).InjectFault(faulty.Fault{Match: "INSERT INTO sg.t", Delay: hold,
		Hit: func() { held <- struct{}{} }})
	go s.Query("INSERT INTO sg.t (k, v) VALUES (?, ?)", 8, "stuck").Exec()
	select { // the backend is really holding the insert
	case <-held:
	case <-time.After(10 * time.Second):
		t.Fatal("the stuck insert never reached the backend")
	}
	start := time.Now()
	if err := p.stop(); err != nil {
		t.Fatal(err)
	}
	// Facts, not a latency: not before the grace, and before the held
	// insert would have ended (so it was abandoned, as the log says below).
	if d := time.Since(start); d < cfg.ShutdownGrace || d >= hold {
		t.Errorf("shutdown took %v with a %v grace and an insert held %v: want at least the grace, less than the hold", d, cfg.ShutdownGrace, hold)
	}
	if keys := capturedInserts(t, dir, "INSERT INTO sg.t"); !keys[7] {
		t.Errorf("captured %v, want the finished insert 7", keys)
	}
	if logs := p.logs.String(); !strings.Contains(logs, "abandoned after the grace period") {
		t.Errorf("abandoned requests are not logged:\n%s", logs)
	}
}
