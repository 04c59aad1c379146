package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// captureStatus reads GET /admin/capture.
func captureStatus(t *testing.T, addr string) (state, problem string) {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/admin/capture")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		State string
		Stats struct{ Problem string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return body.State, body.Stats.Problem
}

// TestServeCaptureDirectoryDeleted: deleting the capture directory under a
// running capture is reported (status degraded, lost records counted, a
// log line); once the directory is back, capture writes again.
func TestServeCaptureDirectoryDeleted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cap")
	cfg := opsConfig()
	cfg.CaptureDir, cfg.CaptureFlush = dir, 50*time.Millisecond
	p := startInProcess(t, cfg)
	s := gocqlSession(t, p.cqlAddr(), 4, nil)
	mustExec(t, s, "CREATE KEYSPACE capv WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE capv.t (k int PRIMARY KEY)")
	insert := func(n int) {
		for i := 0; i < n; i++ {
			mustExec(t, s, "INSERT INTO capv.t (k) VALUES (?)", i)
		}
	}
	insert(20)
	if state, problem := captureStatus(t, p.httpAddr()); state != "ok" {
		t.Fatalf("healthy capture: state %q (%s)", state, problem)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	poll(t, 20*time.Second, "capture to report the deleted directory", func() bool {
		insert(1)
		state, _ := captureStatus(t, p.httpAddr())
		return state == "degraded"
	})
	samples := scrape(t, nil, "http://"+p.httpAddr()+"/metrics")
	if got, _ := total(samples, "dohyo_capture_dropped_total", nil); got < 20 {
		t.Errorf("dohyo_capture_dropped_total = %v, want >= 20 (the lost segment's records)", got)
	}
	if !strings.Contains(p.logs.String(), "capture: segment file vanished") {
		t.Error("no log line about the vanished segment")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	poll(t, 20*time.Second, "capture to write again", func() bool {
		insert(1)
		state, _ := captureStatus(t, p.httpAddr())
		return state == "ok"
	})
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		t.Errorf("no segment in the recreated directory: %v", err)
	}
}
