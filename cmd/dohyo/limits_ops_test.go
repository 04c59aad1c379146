package main

import (
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/bindings/faulty"
)

func requestErrCode(err error) (int, bool) {
	var re gocql.RequestError
	if errors.As(err, &re) {
		return re.Code(), true
	}
	return 0, false
}

// TestOverloadAnswersOverloaded sends a hundred times more concurrent
// requests than max-inflight to a slowed backend: the excess is answered
// Overloaded instead of queueing (a server that queues answers every one
// of them, none Overloaded; how long the burst took is only logged),
// memory stays bounded, and no goroutine outlives the server.
func TestOverloadAnswersOverloaded(t *testing.T) {
	baseline := runtime.NumGoroutine()
	cfg := opsConfig()
	cfg.MaxInFlight = 4
	cfg.MaxInFlightPerConn = 4
	cfg.RequestTimeout = 0
	p := startInProcess(t, cfg)
	c := cluster(p.cqlAddr())
	c.NumConns = 2
	s, err := c.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, s, "CREATE KEYSPACE ov WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE ov.t (k int PRIMARY KEY, v blob)")
	payload := make([]byte, 64<<10)
	mustExec(t, s, "INSERT INTO ov.t (k, v) VALUES (?, ?)", 1, payload)
	var v []byte
	if err := s.Query("SELECT v FROM ov.t WHERE k = ?", 1).Scan(&v); err != nil { // prepared before the fault
		t.Fatal(err)
	}
	remove := p.embedded(t).InjectFault(faulty.Fault{Match: "SELECT v FROM ov.t", Delay: 300 * time.Millisecond})

	var before, peak runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() { // heap high-water mark during the burst
		defer close(sampled)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.HeapInuse {
				peak = m
			}
			select {
			case <-stopSampling:
				return
			case <-tick.C:
			}
		}
	}()

	const n = 400
	var ok, overloaded atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, n)
	start := time.Now()
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var v []byte
			err := s.Query("SELECT v FROM ov.t WHERE k = ?", 1).Scan(&v)
			switch code, isReq := requestErrCode(err); {
			case err == nil:
				ok.Add(1)
			case isReq && code == gocql.ErrCodeOverloaded:
				overloaded.Add(1)
			default:
				errs <- err
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(stopSampling)
	<-sampled
	close(errs)
	for err := range errs {
		t.Errorf("unexpected error: %v", err)
	}
	t.Logf("%d ok, %d overloaded in %v; heap in use %d MiB before, %d MiB at peak",
		ok.Load(), overloaded.Load(), elapsed, before.HeapInuse>>20, peak.HeapInuse>>20)
	if ok.Load() < int64(cfg.MaxInFlight) || overloaded.Load() == 0 || ok.Load()+overloaded.Load() != n {
		t.Errorf("%d ok and %d overloaded, want >= %d ok, some overloaded, %d in all", ok.Load(), overloaded.Load(), cfg.MaxInFlight, n)
	}
	const bound = 256 << 20 // generous: the test binary runs with -race
	if peak.HeapInuse > before.HeapInuse+bound {
		t.Errorf("heap in use grew from %d to %d bytes during the burst", before.HeapInuse, peak.HeapInuse)
	}
	samples := scrape(t, nil, "http://"+p.httpAddr()+"/metrics")
	if got, _ := total(samples, "dohyo_overloaded_requests_total", map[string]string{"endpoint": "cql"}); got != float64(overloaded.Load()) {
		t.Errorf("dohyo_overloaded_requests_total = %v, want %d", got, overloaded.Load())
	}
	remove()
	// The server still serves normally afterwards.
	if err := s.Query("SELECT v FROM ov.t WHERE k = ?", 1).Scan(&v); err != nil {
		t.Errorf("after the burst: %v", err)
	}

	s.Close()
	if err := p.stop(); err != nil {
		t.Fatal(err)
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	if after.HeapInuse > before.HeapInuse+64<<20 {
		t.Errorf("heap in use %d bytes after shutdown, %d before", after.HeapInuse, before.HeapInuse)
	}
	waitGoroutines(t, baseline+2)
}

// TestRequestTimeoutWithGocql: a backend slower than request-timeout
// yields ReadTimeout for reads and WriteTimeout for writes, as drivers'
// retry policies expect — answers of dohyo's, not the driver's own
// timeout, and not the backend's answer, which would be a success after
// its 5s delay — each not before the 200ms timeout.
func TestRequestTimeoutWithGocql(t *testing.T) {
	cfg := opsConfig()
	cfg.RequestTimeout = 200 * time.Millisecond
	p := startInProcess(t, cfg)
	c := cluster(p.cqlAddr())
	c.Consistency = gocql.LocalQuorum
	s := session(t, c)
	mustExec(t, s, "CREATE KEYSPACE rt WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	mustExec(t, s, "CREATE TABLE rt.t (k int PRIMARY KEY, v text)")
	mustExec(t, s, "INSERT INTO rt.t (k, v) VALUES (?, ?)", 1, "a")
	var v string
	if err := s.Query("SELECT v FROM rt.t WHERE k = ?", 1).Scan(&v); err != nil {
		t.Fatal(err)
	}
	remove := p.embedded(t).InjectFault(faulty.Fault{Match: "rt.t", Delay: 5 * time.Second})
	defer remove()

	start := time.Now()
	err := s.Query("SELECT v FROM rt.t WHERE k = ?", 1).Scan(&v)
	var rt *gocql.RequestErrReadTimeout
	if !errors.As(err, &rt) {
		t.Fatalf("slow read: %v (%T), want a ReadTimeout", err, err)
	}
	if rt.Consistency != gocql.LocalQuorum || rt.BlockFor != 1 || rt.Received != 0 {
		t.Errorf("read timeout fields %+v", rt)
	}
	err = s.Query("INSERT INTO rt.t (k, v) VALUES (?, ?)", 2, "b").Exec()
	var wt *gocql.RequestErrWriteTimeout
	if !errors.As(err, &wt) {
		t.Fatalf("slow write: %v (%T), want a WriteTimeout", err, err)
	}
	if wt.WriteType != "SIMPLE" || wt.Consistency != gocql.LocalQuorum {
		t.Errorf("write timeout fields %+v", wt)
	}
	b := s.NewBatch(gocql.UnloggedBatch)
	b.Query("INSERT INTO rt.t (k, v) VALUES (?, ?)", 3, "c")
	if err := s.ExecuteBatch(b); !errors.As(err, &wt) || wt.WriteType != "UNLOGGED_BATCH" {
		t.Errorf("slow unlogged batch: %v, want a WriteTimeout of type UNLOGGED_BATCH", err)
	}
	if d := time.Since(start); d < 3*cfg.RequestTimeout {
		t.Errorf("three timeouts took %v, less than 3 x %v", d, cfg.RequestTimeout)
	}
	samples := scrape(t, nil, "http://"+p.httpAddr()+"/metrics")
	if got, _ := total(samples, "dohyo_request_timeouts_total", nil); got != 3 {
		t.Errorf("dohyo_request_timeouts_total = %v, want 3", got)
	}
}

// TestMaxClientConnectionsWithGocql: connections beyond the limit are
// refused at STARTUP with an Overloaded error the driver reports; the
// driver keeps working on the connections it got, and the refusals are
// logged and counted.
func TestMaxClientConnectionsWithGocql(t *testing.T) {
	cfg := opsConfig()
	cfg.MaxClientConnections = 2
	p := startInProcess(t, cfg)
	c := cluster(p.cqlAddr())
	c.NumConns = 4 // plus the control connection: 5 wanted, 2 allowed
	s := session(t, c)
	for i := 0; i < 20; i++ {
		var v string
		if err := s.Query("SELECT release_version FROM system.local").Scan(&v); err != nil {
			t.Fatal(err)
		}
	}
	poll(t, 10*time.Second, "refused connections to be counted", func() bool {
		return p.s.cql.Stats().RejectedConnections > 0
	})
	if st := p.s.cql.Stats(); st.Connections > 2 {
		t.Errorf("%d connections open, limit 2", st.Connections)
	}
	if logs := p.logs.String(); !strings.Contains(logs, "max connections reached") {
		t.Errorf("refusals are not logged:\n%s", logs)
	}
}
