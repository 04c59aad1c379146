package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bench/load"
	"github.com/dohyo/dohyo/internal/testtools"
)

// BenchmarkImportRate: how fast `capture import` reads Cassandra's full
// query log and a tcpdump file, next to how fast `capture dump` reads
// dohyo's own capture of the same traffic. The traffic is recorded once,
// three ways (as TestCaptureThreeWays does): bench/load's YCSB-like
// workload A (a load phase, then reads and updates from 8 goroutines)
// through `dohyo serve --capture-dir` relaying to Cassandra, tcpdump on
// the client's port, Cassandra's full query log on. Then rounds
// (DOHYO_BENCH_ROUNDS, default 5) of the FQL import, the pcap import
// (both passes) and the dump, each a process of its own (dohyo built
// without the race detector), in an order rotating from round to round. A rate is records per second of
// the process's CPU time (user + system: per core) and of wall time;
// the ratios are medians over the rounds of the per-round ratios.
//
//	DOHYO_TEST_CASSANDRA=127.0.0.1:9042 DOHYO_TEST_CASSANDRA_JMX=7199 \
//	  go test -run '^$' -bench ImportRate -benchtime 1x ./cmd/dohyo/
//
// DOHYO_BENCH_IMPORT_RECORDS (default 20000) and
// DOHYO_BENCH_IMPORT_SECONDS (default 10) size the traffic.
func BenchmarkImportRate(b *testing.B) {
	addr, script, jmx := fqlEnv(b)
	tcpdump := testtools.Tcpdump(b)
	in := recordImportInputs(b, addr, script, jmx, tcpdump)
	bin := plainBinary(b)
	sources := []rateSource{
		{name: "fql", args: []string{"capture", "import", "--quiet", "--fql", in.fql, "--out"}, count: fqlRecords},
		{name: "pcap", args: []string{"capture", "import", "--pcap", in.pcap, "--port", in.port, "--out"}, count: pcapRecords},
		{name: "dump", args: []string{"capture", "dump", in.served}},
	}
	dumped := uint64(len(readRecords(b, in.served)))
	rates := map[string][]importRate{}
	rounds := envInt(b, "DOHYO_BENCH_ROUNDS", 5)
	b.ResetTimer()
	for i := 0; i < b.N*rounds; i++ {
		for j := range sources {
			s := sources[(i+j)%len(sources)]
			r := s.run(b, bin, dumped)
			rates[s.name] = append(rates[s.name], r)
		}
	}
	b.StopTimer()
	for _, name := range []string{"fql", "pcap", "dump"} {
		cpu, wall := medianRates(rates[name])
		b.ReportMetric(cpu, name+"-rec/cpu-s")
		b.ReportMetric(wall, name+"-rec/s")
	}
	for _, name := range []string{"fql", "pcap"} {
		var cpu, wall []float64
		for i, r := range rates[name] {
			d := rates["dump"][i]
			cpu = append(cpu, r.cpu/d.cpu)
			wall = append(wall, r.wall/d.wall)
		}
		b.ReportMetric(median(cpu), name+"/dump-cpu")
		b.ReportMetric(median(wall), name+"/dump-wall")
		b.Logf("%s / dump per round, CPU: %.3f; wall: %.3f", name, cpu, wall)
	}
	b.Logf("records: fql %d, pcap %d, dump %d", rates["fql"][0].records, rates["pcap"][0].records, rates["dump"][0].records)
}

// importInputs are one traffic's three records.
type importInputs struct {
	served, fql, pcap, port string
}

// recordImportInputs records bench/load's traffic three ways.
func recordImportInputs(b *testing.B, addr, script, jmx, tcpdump string) importInputs {
	b.Helper()
	records, seconds := envInt(b, "DOHYO_BENCH_IMPORT_RECORDS", 20000), envInt(b, "DOHYO_BENCH_IMPORT_SECONDS", 10)
	in := importInputs{served: filepath.Join(b.TempDir(), "served")}
	var disable func()
	in.fql, disable = enableFQL(b, script, jmx)
	p := startServeBin(b, plainBinary(b), nil, "--backend", "cassandra://"+addr, "--capture-dir", in.served)
	_, in.port, _ = net.SplitHostPort(p.CQLAddr)
	var stop func()
	in.pcap, stop = startTcpdump(b, tcpdump, in.port)

	ks := fmt.Sprintf("importbench%d", time.Now().UnixNano())
	cfg := load.DefaultConfig()
	cfg.Hosts, cfg.Keyspace, cfg.Records, cfg.Duration = p.CQLAddr, ks, records, time.Duration(seconds)*time.Second
	rep, err := load.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("traffic: %d records loaded, then %.0f ops/s for %s", records, rep.Throughput(), cfg.Duration)
	// dohyo's capture is complete once it stops; tcpdump's file once it
	// holds as many records.
	p.stop(b)
	served := uint64(len(readRecords(b, in.served)))
	waitFor(b, 5*time.Minute, "tcpdump's file to hold the traffic", func() bool {
		out, err := exec.Command(plainBinary(b), "capture", "import", "--single-pass", "--pcap", in.pcap, "--port", in.port,
			"--out", filepath.Join(b.TempDir(), "probe")).CombinedOutput()
		if err != nil {
			b.Fatalf("import while capturing: %v\n%s", err, out)
		}
		n, _ := pcapRecords(string(out))
		return n >= served
	})
	stop()
	disable()
	cfg.Hosts = addr
	if s, err := load.Connect(cfg); err == nil {
		_ = s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec()
		s.Close()
	}
	return in
}

// rateSource is one side of the benchmark: a dohyo command and how to
// read how many records it handled from its output.
type rateSource struct {
	name  string
	args  []string // "--out" last when it writes a capture
	count func(out string) (uint64, bool)
}

// importRate is one run of one side.
type importRate struct {
	records   uint64
	cpu, wall float64 // records per second
}

func (s rateSource) run(b *testing.B, bin string, dumped uint64) importRate {
	b.Helper()
	args := slices.Clone(s.args)
	if args[len(args)-1] == "--out" {
		args = append(args, filepath.Join(b.TempDir(), s.name))
	}
	cmd := exec.Command(bin, args...)
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer null.Close()
	var out syncBuffer
	cmd.Stderr = &out
	if s.count != nil {
		cmd.Stdout = &out
	} else {
		cmd.Stdout = null // the dump: every record a JSON line
	}
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s: %v\n%s", s.name, err, out.String())
	}
	wall := time.Since(start).Seconds()
	cpu := (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	n := dumped
	if s.count != nil {
		var ok bool
		if n, ok = s.count(out.String()); !ok {
			b.Fatalf("%s: no record count in\n%s", s.name, out.String())
		}
	}
	return importRate{records: n, cpu: float64(n) / cpu, wall: float64(n) / wall}
}

var (
	fqlImported  = regexp.MustCompile(`(?m)^imported \d+ entries \(\d+ batches\) as (\d+) records`)
	pcapImported = regexp.MustCompile(`(?m)^imported (\d+) records from`)
)

func fqlRecords(out string) (uint64, bool)  { return firstUint(fqlImported, out) }
func pcapRecords(out string) (uint64, bool) { return firstUint(pcapImported, out) }

func firstUint(re *regexp.Regexp, s string) (uint64, bool) {
	m := re.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	n, err := strconv.ParseUint(m[1], 10, 64)
	return n, err == nil
}

func medianRates(rs []importRate) (cpu, wall float64) {
	var c, w []float64
	for _, r := range rs {
		c, w = append(c, r.cpu), append(w, r.wall)
	}
	return median(c), median(w)
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func envInt(b *testing.B, name string, def int) int {
	b.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}
