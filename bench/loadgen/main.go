// Command loadgen drives a CQL endpoint (dohyo or Cassandra) with a
// YCSB-like mix of point reads and writes through gocql and reports
// throughput and latency percentiles per operation.
//
//	go run ./bench/loadgen -hosts 127.0.0.1:9042 -workload a -threads 16 -duration 30s
//
// With -rate, operations are issued on an absolute schedule and latency is
// also reported from the intended start time (coordinated omission
// corrected), like YCSB's [Intended-OP] lines.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/dohyo/dohyo/bench/load"
)

func main() {
	cfg := load.DefaultConfig()
	flag.StringVar(&cfg.Hosts, "hosts", cfg.Hosts, "comma-separated CQL endpoints")
	flag.IntVar(&cfg.Proto, "proto", cfg.Proto, "native protocol version (0 = negotiate)")
	flag.StringVar(&cfg.Keyspace, "keyspace", cfg.Keyspace, "keyspace (created if missing)")
	flag.StringVar(&cfg.Workload, "workload", cfg.Workload, "a (50/50 read/update), b (95/5), c (read only), w (insert only)")
	flag.IntVar(&cfg.Records, "records", cfg.Records, "records loaded before the run")
	flag.IntVar(&cfg.ValueSize, "value-size", cfg.ValueSize, "bytes per value")
	flag.IntVar(&cfg.Threads, "threads", cfg.Threads, "client goroutines")
	flag.IntVar(&cfg.Conns, "conns", cfg.Conns, "connections per host")
	flag.DurationVar(&cfg.Duration, "duration", cfg.Duration, "run phase length")
	flag.Float64Var(&cfg.Rate, "rate", cfg.Rate, "target ops/s in total (0 = as fast as possible)")
	flag.BoolVar(&cfg.SkipLoad, "skip-load", cfg.SkipLoad, "do not (re)load records, nor create the keyspace and table (loaded before)")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := load.Run(ctx, cfg, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
	rep.Write(os.Stdout)
}
