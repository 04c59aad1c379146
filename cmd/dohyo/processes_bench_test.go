package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// BenchmarkProcessesPointOps is the control for BenchmarkTierPointOps: the
// same client load (16 gocql goroutines, an INSERT then a SELECT of one key
// per op, 100,000 keys) through one process vs three processes of a proxy
// that has no tier, in front of the real Cassandra (DOHYO_TEST_CASSANDRA):
//
//   - cql-proxy (DataStax, the binary bench/relay-peers.sh builds: see
//     cqlProxyBinary);
//   - dohyo's relay (`dohyo serve --backend cassandra://...`, built without
//     the race detector);
//   - Cassandra directly, for reference.
//
// The three processes of a proxy listen on 127.0.0.1, .2 and .3 (one port)
// and are all up in all of its targets; `x1` sends to the first only,
// `x3` to all three, `x1 6 conns` to the first only but over as many
// connections as x3 has (gocql's default is 2 per host), which tells the
// cost of more processes from that of more connections with fewer requests
// in flight on each. All go through fixedHostsSession: the given hosts,
// round-robin per query, no host lookup (token-aware routing would need
// each proxy's view of the ring, which the two proxies present
// differently). Rounds as in BenchmarkTierPointOps (DOHYO_BENCH_ROUNDS,
// default 3, of DOHYO_BENCH_ROUND, default 8s, per target), the order
// rotating; reported per target the medians over the rounds of ops/s and
// of the CPU per op of the proxy's three processes, of this client process
// and of Cassandra (when its process is found), and per proxy the medians
// of the per-round ratios x3/x1 (ops/s) and x1/x3 (proxy CPU per op).
//
//	DOHYO_TEST_CASSANDRA=127.0.0.1:9042 go test -run '^$' -bench ProcessesPointOps -benchtime 1x ./cmd/dohyo/
func BenchmarkProcessesPointOps(b *testing.B) {
	cass := os.Getenv("DOHYO_TEST_CASSANDRA")
	if cass == "" {
		b.Skip("DOHYO_TEST_CASSANDRA not set: this benchmark needs the real Cassandra")
	}
	cqlProxy := cqlProxyBinary(b)
	bin := plainBinary(b)
	rounds, round := benchRounds()
	direct := fixedHostsSession(b, 2, cass)
	ks := fmt.Sprintf("proc_bench_%d", time.Now().UnixNano()%1e9)
	for _, q := range []string{
		"CREATE KEYSPACE " + ks + " WITH replication = " + tierReplication,
		"CREATE TABLE " + ks + ".kv (k int PRIMARY KEY, v int)",
	} {
		if err := direct.Query(q).Exec(); err != nil {
			b.Fatal(err)
		}
	}
	b.Cleanup(func() { _ = direct.Query("DROP KEYSPACE " + ks).Exec() })

	chost, cport, err := net.SplitHostPort(cass)
	if err != nil {
		b.Fatal(err)
	}
	port := strconv.Itoa(freeTierPort(b, 3))
	var cqlAddrs, relayAddrs []string
	var cqlPIDs, relayPIDs []int
	for i := range 3 {
		addr := net.JoinHostPort(tierHost(i), port)
		p := startPeerProc(b, addr, cqlProxy, "--contact-points", chost, "--port", cport, "--bind", addr)
		cqlAddrs, cqlPIDs = append(cqlAddrs, addr), append(cqlPIDs, p.Process.Pid)
	}
	relayPort := strconv.Itoa(freeTierPort(b, 3))
	for i := range 3 {
		addr := net.JoinHostPort(tierHost(i), relayPort)
		p := startServeBin(b, bin, nil, "--backend", "cassandra://"+cass, "--cql-addr", addr, "--http-addr", tierHost(i)+":0")
		relayAddrs, relayPIDs = append(relayAddrs, addr), append(relayPIDs, p.cmd.Process.Pid)
	}
	fixed := func(pids []int) func() []int { return func() []int { return pids } }
	// gocql's default, 2 connections per host: x3 has 6 in all; "x1 6
	// conns" has the same 6 to one process, to tell the cost of more
	// processes from that of more, emptier connections.
	targets := []pointTarget{
		{"cql-proxy x1", fixedHostsSession(b, 2, cqlAddrs[0]), fixed(cqlPIDs)},
		{"cql-proxy x3", fixedHostsSession(b, 2, cqlAddrs...), fixed(cqlPIDs)},
		{"cql-proxy x1 6 conns", fixedHostsSession(b, 6, cqlAddrs[0]), fixed(cqlPIDs)},
		{"dohyo-relay x1", fixedHostsSession(b, 2, relayAddrs[0]), fixed(relayPIDs)},
		{"dohyo-relay x3", fixedHostsSession(b, 2, relayAddrs...), fixed(relayPIDs)},
		{"dohyo-relay x1 6 conns", fixedHostsSession(b, 6, relayAddrs[0]), fixed(relayPIDs)},
		{"direct", direct, nil},
	}
	cfg := pointRounds{ks: ks, rounds: rounds, round: round, clients: 16}
	if pid := cassandraPID(); pid != 0 {
		cfg.backendPIDs = []int{pid}
	}
	all := append(append([]int{}, cqlPIDs...), relayPIDs...)
	idle0, idleT := procsCPU(b, all), time.Now()
	time.Sleep(2 * time.Second) // a measurement window, not synchronisation
	b.Logf("idle: the six proxy processes use %.0f µs CPU/s together; load average %s",
		float64((procsCPU(b, all)-idle0).Microseconds())/time.Since(idleT).Seconds(), loadAverage(b))

	stats := runPointRounds(b, cfg, targets)
	for i, tg := range targets {
		rs := stats[i]
		msg := fmt.Sprintf("%s: %.0f ops/s, proxy CPU %.0f µs/op, client CPU %.0f µs/op", tg.name,
			roundsMedian(rs, pointRound.rate),
			roundsMedian(rs, func(p pointRound) float64 { return p.perOp(p.cpu) }),
			roundsMedian(rs, func(p pointRound) float64 { return p.perOp(p.client) }))
		if cfg.backendPIDs != nil {
			msg += fmt.Sprintf(", Cassandra CPU %.0f µs/op", roundsMedian(rs, func(p pointRound) float64 { return p.perOp(p.backend) }))
		}
		msg += fmt.Sprintf(", machine %.2f cores busy", roundsMedian(rs, func(p pointRound) float64 { return p.busy }))
		b.Log(msg + " (medians over the rounds)")
	}
	for _, pair := range []struct {
		name           string
		x1, x3, x1wide int
	}{{"cql-proxy", 0, 1, 2}, {"relay", 3, 4, 5}} {
		one, three, wide := stats[pair.x1], stats[pair.x3], stats[pair.x1wide]
		rate := func(a, c pointRound) float64 { return c.rate() / a.rate() }
		cpu := func(a, c pointRound) float64 { return a.perOp(a.cpu) / c.perOp(c.cpu) }
		ops3, cpu3 := pairedMedian(one, three, rate), pairedMedian(one, three, cpu)
		b.Logf("%s: x3 vs x1: ratio ops/s %.2f, ratio of proxy CPU per op (x1/x3) %.2f; x1 6 conns vs x1: %.2f, %.2f (medians of the per-round ratios)",
			pair.name, ops3, cpu3, pairedMedian(one, wide, rate), pairedMedian(one, wide, cpu))
		b.ReportMetric(roundsMedian(one, pointRound.rate), "ops/s-"+pair.name+"-1")
		b.ReportMetric(roundsMedian(three, pointRound.rate), "ops/s-"+pair.name+"-3")
		b.ReportMetric(ops3, "ratio-ops-"+pair.name)
		b.ReportMetric(cpu3, "ratio-cpu-"+pair.name)
	}
	b.ReportMetric(roundsMedian(stats[len(targets)-1], pointRound.rate), "ops/s-direct")
}

// cqlProxyBinary is the cql-proxy binary: $DOHYO_BENCH_CQL_PROXY, else
// bench/out/peers-bin/cql-proxy as bench/relay-peers.sh builds it (run
// `bench/relay-peers.sh --build-peers --targets cql-proxy` once). Without it the benchmark is
// skipped.
func cqlProxyBinary(b *testing.B) string {
	b.Helper()
	path := os.Getenv("DOHYO_BENCH_CQL_PROXY")
	if path == "" {
		path = filepath.Join("..", "..", "bench", "out", "peers-bin", "cql-proxy")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		b.Fatal(err)
	}
	if fi, err := os.Stat(abs); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		b.Skipf("no cql-proxy binary at %s: build it with `bench/relay-peers.sh --build-peers --targets cql-proxy` or set DOHYO_BENCH_CQL_PROXY", abs)
	}
	if v, err := os.ReadFile(abs + ".version"); err == nil {
		b.Logf("cql-proxy %s (%s)", strings.TrimSpace(string(v)), abs)
	}
	return abs
}

// startPeerProc starts a proxy that is not dohyo and waits until addr
// accepts connections; it is stopped (SIGTERM, then SIGKILL) at cleanup.
func startPeerProc(b *testing.B, addr, bin string, args ...string) *exec.Cmd {
	b.Helper()
	cmd := exec.Command(bin, args...)
	var mu sync.Mutex
	var out bytes.Buffer
	cmd.Stdout = writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return out.Write(p) })
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	output := func() string { mu.Lock(); defer mu.Unlock(); return out.String() }
	b.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return cmd
		}
		select {
		case <-done:
			b.Fatalf("%s exited early:\n%s", bin, output())
		default:
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s does not accept connections on %s within 30s: %v\n%s", bin, addr, err, output())
		}
		time.Sleep(100 * time.Millisecond) // polling for the listener: it says nothing when ready
	}
}

// cassandraPID is the PID of the one Cassandra process on this machine
// (CassandraDaemon in its command line), or 0 when there is not exactly
// one (its CPU is then not reported).
func cassandraPID() int {
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	found := 0
	for _, d := range dirs {
		raw, err := os.ReadFile(d)
		if err != nil || !bytes.Contains(raw, []byte("org.apache.cassandra.service.CassandraDaemon")) {
			continue
		}
		if found != 0 {
			return 0
		}
		found, _ = strconv.Atoi(filepath.Base(filepath.Dir(d)))
	}
	return found
}
