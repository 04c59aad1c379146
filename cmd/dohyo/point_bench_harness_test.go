package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/internal/proccpu"
	"github.com/dohyo/dohyo/internal/stats"
)

// The point-op benchmarks (BenchmarkTierPointOps, BenchmarkProcessesPointOps)
// share this harness: the same client load (clients gocql goroutines, an
// INSERT then a SELECT of one of 100,000 int keys per op) run against each
// target in turn for one round, rounds times, the order rotating from round
// to round so drift on a shared machine hits every target alike; per round
// the CPU time of the target's processes (user + system, /proc/PID/stat),
// of this client process, and the load average.

// pointTarget is one way of sending the load: a session and the processes
// whose CPU is charged to it.
type pointTarget struct {
	name string
	s    *gocql.Session
	pids func() []int // the proxy processes (nil: none)
}

// pointRound is one target's figures in one round.
type pointRound struct {
	ops     int64
	elapsed time.Duration
	cpu     time.Duration // of the target's processes
	client  time.Duration // of this (client) process
	backend time.Duration // of the backend's process, when known
	load    string        // the load average at the start of the round
	busy    float64       // cores busy on the whole machine, on average
}

func (p pointRound) rate() float64 { return float64(p.ops) / p.elapsed.Seconds() }

// perOp is d in µs per operation of the round.
func (p pointRound) perOp(d time.Duration) float64 {
	if p.ops == 0 {
		return 0
	}
	return float64(d.Microseconds()) / float64(p.ops)
}

// pointRounds configures runPointRounds.
type pointRounds struct {
	ks          string
	rounds      int
	round       time.Duration
	clients     int
	backendPIDs []int // e.g. Cassandra's, when found
	// around, when set, is called before each target's round and the
	// function it returns after it (profiles).
	around func(r int, tg pointTarget) (done func())
}

// benchRounds reads DOHYO_BENCH_ROUNDS (default 3) and DOHYO_BENCH_ROUND
// (default 8s).
func benchRounds() (int, time.Duration) {
	rounds, round := 3, 8*time.Second
	if v, err := strconv.Atoi(os.Getenv("DOHYO_BENCH_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	if v, err := time.ParseDuration(os.Getenv("DOHYO_BENCH_ROUND")); err == nil && v > 0 {
		round = v
	}
	return rounds, round
}

// runPointRounds runs the load against every target once per round, the
// starting target advancing by one each round; stats[target][round].
func runPointRounds(b *testing.B, cfg pointRounds, targets []pointTarget) [][]pointRound {
	b.Helper()
	stats := make([][]pointRound, len(targets))
	self := []int{os.Getpid()}
	for r := range cfg.rounds {
		for j := range targets {
			i := (r + j) % len(targets)
			tg := targets[i]
			var pids []int
			if tg.pids != nil {
				pids = tg.pids()
			}
			st := pointRound{load: loadAverage(b)}
			cpu0, client0, back0 := procsCPU(b, pids), procsCPU(b, self), procsCPU(b, cfg.backendPIDs)
			busy0 := machineBusy(b)
			t0 := time.Now()
			done := func() {}
			if cfg.around != nil {
				done = cfg.around(r, tg)
			}
			st.ops = pointOpsFor(b, tg.s, cfg.ks, cfg.clients, cfg.round)
			done()
			st.elapsed = time.Since(t0)
			st.cpu = procsCPU(b, pids) - cpu0
			st.client = procsCPU(b, self) - client0
			st.backend = procsCPU(b, cfg.backendPIDs) - back0
			st.busy = (machineBusy(b) - busy0).Seconds() / st.elapsed.Seconds()
			stats[i] = append(stats[i], st)
			msg := fmt.Sprintf("round %d %s: %.0f ops/s, proxy CPU %.0f µs/op, client CPU %.0f µs/op",
				r+1, tg.name, st.rate(), st.perOp(st.cpu), st.perOp(st.client))
			if cfg.backendPIDs != nil {
				msg += fmt.Sprintf(", backend CPU %.0f µs/op", st.perOp(st.backend))
			}
			b.Logf("%s (machine: %.2f cores busy; load average %s)", msg, st.busy, st.load)
		}
	}
	return stats
}

// roundsMedian is the median over rounds of f.
func roundsMedian(rs []pointRound, f func(pointRound) float64) float64 {
	xs := make([]float64, len(rs))
	for i, r := range rs {
		xs[i] = f(r)
	}
	return stats.Median(xs)
}

// pairedMedian is the median over rounds of f(a's round, b's round): a
// ratio taken within each round, where both ran minutes apart at most.
func pairedMedian(a, b []pointRound, f func(a, b pointRound) float64) float64 {
	xs := make([]float64, 0, len(a))
	for i := range min(len(a), len(b)) {
		xs = append(xs, f(a[i], b[i]))
	}
	return stats.Median(xs)
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

// procsCPU sums the user and system CPU time of the processes.
func procsCPU(b *testing.B, pids []int) time.Duration {
	b.Helper()
	var total time.Duration
	for _, pid := range pids {
		d, err := proccpu.Of(pid)
		if err != nil {
			b.Fatalf("cpu of process %d: %v", pid, err)
		}
		total += d
	}
	return total
}

// machineBusy is the CPU time all cores of the machine spent not idle.
func machineBusy(b *testing.B) time.Duration {
	d, err := proccpu.MachineBusy()
	if err != nil {
		b.Fatalf("machine cpu: %v", err)
	}
	return d
}

// loadAverage is the 1, 5 and 15 minute load average (/proc/loadavg).
func loadAverage(b *testing.B) string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		b.Fatalf("load average: %v", err)
	}
	f := strings.Fields(string(raw))
	return strings.Join(f[:3], " ")
}

// fixedHostsSession is a gocql session with conns connections to each of
// exactly addrs (host:port each), round-robin, without reading system.peers
// or following topology events: every proxy is reached the same way,
// whatever it says about its peers.
func fixedHostsSession(b *testing.B, conns int, addrs ...string) *gocql.Session {
	b.Helper()
	c := gocql.NewCluster(addrs...)
	c.NumConns = conns
	c.ProtoVersion = 4
	c.Timeout = 10 * time.Second
	c.ConnectTimeout = 10 * time.Second
	c.Consistency = gocql.One
	c.DisableInitialHostLookup = true
	c.Events.DisableTopologyEvents = true
	c.Events.DisableNodeStatusEvents = true
	c.Events.DisableSchemaEvents = true
	c.PoolConfig.HostSelectionPolicy = gocql.RoundRobinHostPolicy()
	s, err := c.CreateSession()
	if err != nil {
		b.Fatalf("gocql connect to %v: %v", addrs, err)
	}
	b.Cleanup(s.Close)
	return s
}
