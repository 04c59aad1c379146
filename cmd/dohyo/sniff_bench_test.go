package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bench/load"
	"github.com/dohyo/dohyo/capture/pcap"
)

// BenchmarkSniffRate: `dohyo capture sniff` on lo while bench/load's
// YCSB-like workload A runs closed-loop (as fast as it goes) against
// `dohyo serve` on an in-memory embedded store — the highest CQL rate on
// loopback this machine reaches. Rounds (DOHYO_BENCH_ROUNDS, default 5)
// alternate the load alone and the load with the sniffer (which goes
// first alternating), each DOHYO_BENCH_ROUND long (default 10s), with
// DOHYO_BENCH_SNIFF_THREADS goroutines (default 16) on 2 connections.
// Reported: the load's throughput sniffed / alone (median of the rounds'
// ratios), packets the kernel dropped (buffer full) and received, records
// captured per operation, and the sniffer's CPU (user + system of its
// process) per operation and in cores. dohyo built without the race
// detector; needs CAP_NET_RAW.
//
//	go test -run '^$' -bench SniffRate -benchtime 1x ./cmd/dohyo/
func BenchmarkSniffRate(b *testing.B) {
	if l, err := pcap.OpenLive(pcap.LiveConfig{Interface: "lo"}); err != nil {
		b.Skipf("live capture on lo: %v", err)
	} else {
		l.Close()
	}
	bin := plainBinary(b)
	p := startServeBin(b, bin, nil, "--backend", "embedded://memory")
	_, port, _ := strings.Cut(p.CQLAddr, ":")
	cfg := load.DefaultConfig()
	cfg.Hosts, cfg.Keyspace, cfg.Records = p.CQLAddr, "sniffbench", 10000
	cfg.Threads = envInt(b, "DOHYO_BENCH_SNIFF_THREADS", 16)
	round := 10 * time.Second
	if v := os.Getenv("DOHYO_BENCH_ROUND"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			b.Fatalf("DOHYO_BENCH_ROUND=%q: %v", v, err)
		}
		round = d
	}
	cfg.Duration = time.Second
	if _, err := load.Run(context.Background(), cfg, io.Discard); err != nil { // schema, records, warm-up
		b.Fatal(err)
	}
	cfg.SkipLoad, cfg.Duration = true, round
	rounds := envInt(b, "DOHYO_BENCH_ROUNDS", 5)

	var ratios, cpuPerOp, cores, recsPerOp []float64
	var dropped, received uint64
	b.ResetTimer()
	for i := 0; i < b.N*rounds; i++ {
		var alone, sniffed float64
		var sn sniffRound
		for j := 0; j < 2; j++ {
			if (i+j)%2 == 0 {
				alone = runLoad(b, cfg).Throughput()
				continue
			}
			sn = sniffLoad(b, bin, port, cfg)
			sniffed = sn.rate
		}
		ratios = append(ratios, sniffed/alone)
		cpuPerOp = append(cpuPerOp, sn.cpu.Seconds()/float64(sn.ops)*1e6)
		cores = append(cores, sn.cpu.Seconds()/sn.elapsed.Seconds())
		recsPerOp = append(recsPerOp, float64(sn.records)/float64(sn.ops))
		dropped += sn.dropped
		received += sn.received
		b.Logf("round %d: alone %.0f ops/s, sniffed %.0f ops/s (%.3f); sniffer %.1f µs CPU per op, %.2f cores; kernel %d received, %d dropped; %d records for %d ops",
			i+1, alone, sniffed, sniffed/alone, cpuPerOp[len(cpuPerOp)-1], cores[len(cores)-1], sn.received, sn.dropped, sn.records, sn.ops)
	}
	b.StopTimer()
	b.ReportMetric(median(ratios), "sniffed/alone")
	b.ReportMetric(median(cpuPerOp), "sniffer-µs-cpu/op")
	b.ReportMetric(median(cores), "sniffer-cores")
	b.ReportMetric(median(recsPerOp), "records/op")
	b.ReportMetric(float64(dropped), "dropped")
	b.ReportMetric(float64(received), "received")
}

func runLoad(b *testing.B, cfg load.Config) *load.Report {
	b.Helper()
	rep, err := load.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	return rep
}

// sniffRound is one load run under the sniffer.
type sniffRound struct {
	rate                       float64
	ops                        uint64
	elapsed, cpu               time.Duration
	records, received, dropped uint64
}

var (
	sniffCaptured = regexp.MustCompile(`(?m)^captured (\d+) records`)
	sniffKernel   = regexp.MustCompile(`(?m)^kernel\s+(\d+) received, (\d+) dropped`)
)

// sniffLoad runs the load with `capture sniff` on lo watching port.
func sniffLoad(b *testing.B, bin, port string, cfg load.Config) sniffRound {
	b.Helper()
	var out, errOut syncBuffer
	cmd := exec.Command(bin, "capture", "sniff", "--interface", "lo", "--port", port, "--out", filepath.Join(b.TempDir(), "sniffed"))
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	waitFor(b, time.Minute, "the sniffer to start", func() bool { return strings.Contains(errOut.String(), "sniffing lo") })
	rep := runLoad(b, cfg)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		b.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		b.Fatalf("sniff: %v\n%s%s", err, out.String(), errOut.String())
	}
	var r sniffRound
	r.rate, r.elapsed = rep.Throughput(), rep.Elapsed
	for _, s := range rep.Ops {
		r.ops += s.Latency.Count()
	}
	r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	var ok1, ok2 bool
	r.records, ok1 = firstUint(sniffCaptured, out.String())
	if m := sniffKernel.FindStringSubmatch(out.String()); m != nil {
		r.received, _ = strconv.ParseUint(m[1], 10, 64)
		r.dropped, _ = strconv.ParseUint(m[2], 10, 64)
		ok2 = true
	}
	if !ok1 || !ok2 {
		b.Fatalf("sniff summary without counts:\n%s", out.String())
	}
	return r
}
