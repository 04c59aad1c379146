package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"
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
// the whole tier is up in both targets. BenchmarkProcessesPointOps is the
// control without a tier (proxies over Cassandra).
//
//	DOHYO_TEST_HBASE_ZK=127.0.0.1:2181 go test -run '^$' -bench TierPointOps -benchtime 1x ./cmd/dohyo/
func BenchmarkTierPointOps(b *testing.B) {
	if os.Getenv("DOHYO_TEST_HBASE_ZK") == "" {
		b.Skip("DOHYO_TEST_HBASE_ZK not set")
	}
	bin := plainBinary(b)
	rounds, round := benchRounds()
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
	pids := func() []int {
		var ps []int
		for _, p := range tr.procs {
			ps = append(ps, p.cmd.Process.Pid)
		}
		return ps
	}
	targets := []pointTarget{
		{"instances=1", tierSession(b, tr.addrs[0]), pids},
		{"instances=3", tierSession(b, tr.addrs...), pids},
	}
	// The tier's own background (schema polls, heartbeats, runtime) with
	// no client traffic, to tell it from the per-request cost.
	idle0, idleT := procsCPU(b, pids()), time.Now()
	time.Sleep(round / 2) // a measurement window, not synchronisation
	idlePerSec := float64((procsCPU(b, pids()) - idle0).Microseconds()) / time.Since(idleT).Seconds()
	b.Logf("idle tier: dohyo CPU %.0f µs/s", idlePerSec)
	cfg := pointRounds{ks: ks, rounds: rounds, round: round, clients: 16}
	if profDir != "" {
		cfg.around = func(r int, tg pointTarget) func() {
			var prof sync.WaitGroup
			for k, p := range tr.procs {
				prof.Add(1)
				go func() {
					defer prof.Done()
					saveProfile(b, p.HTTPAddr, round-time.Second, fmt.Sprintf("%s/%s-r%d-i%d.pprof", profDir, tg.name, r+1, k))
				}()
			}
			return prof.Wait
		}
	}
	stats := runPointRounds(b, cfg, targets)
	var rate, perOp [2]float64
	for i, tg := range targets {
		var ops int64
		var cpu, elapsed time.Duration
		for _, st := range stats[i] {
			ops, cpu, elapsed = ops+st.ops, cpu+st.cpu, elapsed+st.elapsed
		}
		rate[i] = float64(ops) / elapsed.Seconds()
		perOp[i] = float64(cpu.Microseconds()) / float64(ops)
		net := (float64(cpu.Microseconds()) - idlePerSec*elapsed.Seconds()) / float64(ops)
		b.Logf("%s: %d ops, %.0f ops/s, dohyo CPU %.0f µs/op (%.0f µs/op without the idle background)", tg.name, ops, rate[i], perOp[i], net)
	}
	b.ReportMetric(rate[0], "ops/s-1")
	b.ReportMetric(rate[1], "ops/s-3")
	b.ReportMetric(rate[1]/rate[0], "ratio-ops")
	b.ReportMetric(perOp[0], "cpu-µs/op-1")
	b.ReportMetric(perOp[1], "cpu-µs/op-3")
	b.ReportMetric(perOp[0]/perOp[1], "ratio-cpu")
	_ = setup.Query("DROP KEYSPACE " + ks).Exec()
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
