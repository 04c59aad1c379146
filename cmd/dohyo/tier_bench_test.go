package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// BenchmarkTierPointOps compares plain point writes and reads (an INSERT
// then a SELECT of one key, no LWT) through one instance of a three-
// instance tier with the same through all three (gocql token-aware), over
// the real HBase, in one run: DOHYO_BENCH_ROUNDS rounds (default 3) of
// DOHYO_BENCH_ROUND (default 8s) per target, the order alternating from
// round to round, 16 client goroutines. Besides throughput it reports the
// CPU time all three dohyo processes spent per operation (user + system,
// from /proc/PID/stat), the figure that does not depend on how many cores
// the machine has. The instances run a build without the race detector;
// the whole tier is up in both targets.
//
//	DOHYO_TEST_HBASE_ZK=127.0.0.1:2181 go test -run '^$' -bench TierPointOps -benchtime 1x ./cmd/dohyo/
func BenchmarkTierPointOps(b *testing.B) {
	bin := plainBinary(b)
	if os.Getenv("DOHYO_TEST_HBASE_ZK") == "" {
		b.Skip("DOHYO_TEST_HBASE_ZK not set")
	}
	rounds, round := 3, 8*time.Second
	if v, err := strconv.Atoi(os.Getenv("DOHYO_BENCH_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	if v, err := time.ParseDuration(os.Getenv("DOHYO_BENCH_ROUND")); err == nil && v > 0 {
		round = v
	}
	// DOHYO_BENCH_PROFILE=dir: CPU profiles of every instance in every
	// round, as dir/<target>-r<round>-i<instance>.pprof.
	profDir := os.Getenv("DOHYO_BENCH_PROFILE")
	var extra []string
	if profDir != "" {
		extra = append(extra, "--http-pprof")
	}
	tr := startTierBin(b, bin, 3, extra...)
	setup := tierSession(b, tr.addrs[0])
	ks := fmt.Sprintf("tier_bench_%d", time.Now().UnixNano()%1e9)
	for _, q := range []string{
		"CREATE KEYSPACE IF NOT EXISTS " + ks + " WITH replication = " + tierReplication,
		"CREATE TABLE IF NOT EXISTS " + ks + ".kv (k int PRIMARY KEY, v int)",
	} {
		// DDL on a loaded HBase may outlast the driver's timeout and still
		// complete: try again (IF NOT EXISTS) a few times.
		var err error
		for range 5 {
			if err = setup.Query(q).Exec(); err == nil {
				break
			}
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	targets := []struct {
		name string
		s    *gocql.Session
	}{{"instances=1", tierSession(b, tr.addrs[0])}, {"instances=3", tierSession(b, tr.addrs...)}}
	// The tier's own background (schema polls, heartbeats, runtime) with
	// no client traffic, to tell it from the per-request cost.
	idle0, idleT := tierCPU(b, tr), time.Now()
	time.Sleep(round / 2) // a measurement window, not synchronisation
	idlePerSec := float64((tierCPU(b, tr) - idle0).Microseconds()) / time.Since(idleT).Seconds()
	b.Logf("idle tier: dohyo CPU %.0f µs/s", idlePerSec)
	var ops [2]int64
	var cpu [2]time.Duration
	var elapsed [2]time.Duration
	for r := range rounds {
		for j := range 2 {
			i := (r + j) % 2 // alternate which target goes first
			cpu0 := tierCPU(b, tr)
			t0 := time.Now()
			var prof sync.WaitGroup
			if profDir != "" {
				for k, p := range tr.procs {
					prof.Add(1)
					go func() {
						defer prof.Done()
						saveProfile(b, p.HTTPAddr, round-time.Second, fmt.Sprintf("%s/%s-r%d-i%d.pprof", profDir, targets[i].name, r+1, k))
					}()
				}
			}
			n := pointOpsFor(b, targets[i].s, ks, 16, round)
			prof.Wait()
			elapsed[i] += time.Since(t0)
			cpu[i] += tierCPU(b, tr) - cpu0
			ops[i] += n
			b.Logf("round %d %s: %.0f ops/s", r+1, targets[i].name, float64(n)/time.Since(t0).Seconds())
		}
	}
	var rate, perOp [2]float64
	for i, tg := range targets {
		rate[i] = float64(ops[i]) / elapsed[i].Seconds()
		perOp[i] = float64(cpu[i].Microseconds()) / float64(ops[i])
		net := (float64(cpu[i].Microseconds()) - idlePerSec*elapsed[i].Seconds()) / float64(ops[i])
		b.Logf("%s: %d ops, %.0f ops/s, dohyo CPU %.0f µs/op (%.0f µs/op without the idle background)", tg.name, ops[i], rate[i], perOp[i], net)
	}
	b.ReportMetric(rate[0], "ops/s-1")
	b.ReportMetric(rate[1], "ops/s-3")
	b.ReportMetric(rate[1]/rate[0], "ratio-ops")
	b.ReportMetric(perOp[0], "cpu-µs/op-1")
	b.ReportMetric(perOp[1], "cpu-µs/op-3")
	b.ReportMetric(perOp[0]/perOp[1], "ratio-cpu")
	_ = setup.Query("DROP KEYSPACE " + ks).Exec()
}

// pointOpsFor runs INSERT+SELECT pairs from clients goroutines for d and
// returns how many pairs completed.
func pointOpsFor(b *testing.B, s *gocql.Session, ks string, clients int, d time.Duration) int64 {
	var next, done atomic.Int64
	end := time.Now().Add(d)
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) {
				k := int(next.Add(1) % 100_000)
				if err := s.Query("INSERT INTO "+ks+".kv (k, v) VALUES (?, ?)", k, k).Exec(); err != nil {
					b.Error(err)
					return
				}
				var v int
				if err := s.Query("SELECT v FROM "+ks+".kv WHERE k = ?", k).Scan(&v); err != nil || v != k {
					b.Errorf("read %d: %d, %v", k, v, err)
					return
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	return done.Load()
}

// saveProfile saves a CPU profile of d from the instance at httpAddr.
func saveProfile(b *testing.B, httpAddr string, d time.Duration, path string) {
	c := &http.Client{Timeout: d + 30*time.Second}
	resp, err := c.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", httpAddr, int(d.Seconds())))
	if err != nil {
		b.Errorf("profile: %v", err)
		return
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err == nil {
		err = os.WriteFile(path, raw, 0o644)
	}
	if err != nil {
		b.Errorf("profile: %v", err)
	}
}

// tierCPU sums the user and system CPU time of the tier's processes.
func tierCPU(b *testing.B, tr *tierHarness) time.Duration {
	var total time.Duration
	for _, p := range tr.procs {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
		if err != nil {
			b.Fatalf("cpu of instance: %v", err)
		}
		// Fields after the command name (which may hold spaces): state is
		// field 3, utime 14, stime 15, in clock ticks (USER_HZ = 100).
		f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
		for _, x := range f[11:13] {
			t, err := strconv.ParseInt(x, 10, 64)
			if err != nil {
				b.Fatalf("/proc stat: %v", err)
			}
			total += time.Duration(t) * 10 * time.Millisecond
		}
	}
	return total
}
