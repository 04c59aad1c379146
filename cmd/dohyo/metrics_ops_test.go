package main

import (
	"net/http"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"
)

// TestServeMetricsUnderLoad scrapes a running `dohyo serve` before and
// after a burst of gocql requests: request counters and the latency
// histogram move by exactly the number of requests, and the gauges and
// cache counters are exported on both the HTTP address and metrics-addr.
func TestServeMetricsUnderLoad(t *testing.T) {
	p := startServe(t, "--backend", "embedded://memory", "--metrics-addr", "127.0.0.1:0")
	var m []string
	poll(t, 10*time.Second, "the metrics address in the output", func() bool {
		m = regexp.MustCompile(`metrics: (http://\S+)`).FindStringSubmatch(p.Output())
		return m != nil
	})
	url, separate := "http://"+p.HTTPAddr+"/metrics", m[1]

	s := session(t, cluster(p.CQLAddr))
	mustExec(t, s, "CREATE KEYSPACE met WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE met.kv (k int PRIMARY KEY, v text)")
	mustExec(t, s, "INSERT INTO met.kv (k, v) VALUES (0, 'warm')") // prepares the statement
	insertOK := map[string]string{"endpoint": "cql", "keyspace": "met", "op": "insert", "status": "ok"}
	selectOK := map[string]string{"endpoint": "cql", "keyspace": "met", "op": "select", "status": "ok"}
	insertHist := map[string]string{"endpoint": "cql", "keyspace": "met", "op": "insert"}

	before := scrape(t, nil, url)
	const n = 300
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 1; i <= n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Query("INSERT INTO met.kv (k, v) VALUES (?, ?)", i, "v").Exec(); err != nil {
				errs <- err
				return
			}
			var v string
			if err := s.Query("SELECT v FROM met.kv WHERE k = ?", i).Scan(&v); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// A client error counts with its status, and as no backend error; a
	// keyspace outside the catalog gets no label of its own. (gocql
	// prepares DML, and PREPAREs are not requests the coordinator
	// observes, so DDL it is.)
	if err := s.Query("DROP TABLE nosuchks.t").Exec(); err == nil {
		t.Fatal("dropping a table of a missing keyspace succeeded")
	}
	after := scrape(t, nil, url)

	delta := func(name string, match map[string]string) float64 {
		a, _ := total(after, name, match)
		b, _ := total(before, name, match)
		return a - b
	}
	for _, tc := range []struct {
		name  string
		match map[string]string
		want  float64
	}{
		{"dohyo_requests_total", insertOK, n},
		{"dohyo_requests_total", selectOK, n},
		{"dohyo_request_duration_seconds_count", insertHist, n},
		{"dohyo_request_duration_seconds_bucket", map[string]string{"keyspace": "met", "op": "select", "le": "+Inf"}, n},
		{"dohyo_requests_total", map[string]string{"keyspace": "other", "op": "ddl", "status": "Invalid"}, 1},
		{"dohyo_backend_errors_total", nil, 0},
	} {
		if got := delta(tc.name, tc.match); got != tc.want {
			t.Errorf("%s%v grew by %v, want %v", tc.name, tc.match, got, tc.want)
		}
	}
	if got, _ := total(after, "dohyo_request_duration_seconds_sum", insertHist); got <= 0 {
		t.Errorf("latency sum %v, want > 0", got)
	}
	if got, _ := total(after, "dohyo_requests_total", map[string]string{"keyspace": "system"}); got == 0 {
		t.Error("the driver's system.local queries are not counted under keyspace system")
	}
	for _, name := range []string{"dohyo_client_connections", "dohyo_prepared_cache_size", "dohyo_prepared_cache_hits_total"} {
		if got, ok := total(after, name, nil); !ok || got < 1 {
			t.Errorf("%s = %v (present %v), want >= 1", name, got, ok)
		}
	}
	for _, name := range []string{"dohyo_inflight_requests", "dohyo_capture_dropped_total", "go_goroutines", "process_resident_memory_bytes"} {
		if _, ok := total(after, name, nil); !ok {
			t.Errorf("%s missing", name)
		}
	}
	sep := scrape(t, nil, separate)
	if got, _ := total(sep, "dohyo_requests_total", insertOK); got < n {
		t.Errorf("metrics-addr: inserts %v, want >= %d", got, n)
	}
}

// TestCaptureMetricsSurviveRestart: capture counters keep counting across
// a runtime stop and start of the capture (they never go backwards).
func TestCaptureMetricsSurviveRestart(t *testing.T) {
	cfg := opsConfig()
	cfg.CaptureDir = filepath.Join(t.TempDir(), "cap")
	cfg.CaptureFlush = 10 * time.Millisecond
	p := startInProcess(t, cfg)
	s := session(t, cluster(p.cqlAddr()))
	url := "http://" + p.httpAddr()
	records := func() float64 {
		v, _ := total(scrape(t, nil, url+"/metrics"), "dohyo_capture_records_total", nil)
		return v
	}
	admin := func(action string) {
		t.Helper()
		resp, err := http.Post(url+"/admin/capture/"+action, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("capture %s: %s", action, resp.Status)
		}
	}
	burst := func(n int) {
		for i := 0; i < n; i++ {
			var v string
			if err := s.Query("SELECT release_version FROM system.local").Scan(&v); err != nil {
				t.Fatal(err)
			}
		}
	}
	burst(20)
	admin("stop") // flushes: every request so far is written
	first := records()
	if first < 20 {
		t.Fatalf("records after the first capture = %v, want >= 20", first)
	}
	admin("start")
	if got := records(); got < first {
		t.Errorf("records went back from %v to %v after a restart", first, got)
	}
	burst(30)
	admin("stop")
	if got := records(); got < first+30 {
		t.Errorf("records after the second capture = %v, want >= %v", got, first+30)
	}
}
