package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/dohyo/dohyo/replay/workload"
)

// newWorkloadCmd is `dohyo workload`: captures of standard benchmarks for
// `dohyo replay`.
func newWorkloadCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "workload", Short: "Generate a capture of a standard workload (YCSB A-F, Sberbank) to replay"}
	var y workload.YCSB
	var out string
	var interval time.Duration
	ycsb := &cobra.Command{
		Use:   "ycsb",
		Short: "YCSB core workload A-F as a capture (load phase, then run phase)",
		Long: `Generates YCSB 0.17 CoreWorkload's load phase (--records inserts) and run
phase (--operations operations) with the statements of YCSB's CQL binding
(keyspace ycsb, table usertable), the schema in the capture's header.

Replay the run phase alone, the load as warm-up:
  dohyo replay DIR --create-schema --warmup RECORDS --max --concurrency 16 --repeat 3 --target ...`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return errors.New("workload: -o DIR is required")
			}
			y.Interval = interval
			n, err := workload.Write(cmd.Context(), out, buildVersion(), &y)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d records (%d load, %d run-phase statements) to %s\nreplay: dohyo replay %s --create-schema --warmup %d --max --repeat 3 --target URL...\n",
				n, y.Records, int64(n)-y.Records, out, out, y.Records)
			return nil
		},
	}
	fl := ycsb.Flags()
	fl.StringVar(&y.Workload, "workload", "a", "core workload: a, b, c, d, e or f")
	fl.Int64Var(&y.Records, "records", 1000, "recordcount: rows loaded")
	fl.Int64Var(&y.Operations, "operations", 1000, "operationcount: run-phase operations")
	fl.IntVar(&y.FieldCount, "fieldcount", 10, "fields per row")
	fl.IntVar(&y.FieldLength, "fieldlength", 100, "bytes per field")
	fl.StringVar(&y.Distribution, "distribution", "", "request distribution: zipfian, uniform or latest (default: the workload's)")
	fl.StringVar(&y.Keyspace, "keyspace", "ycsb", "keyspace (YCSB's binding default: ycsb)")
	fl.IntVar(&y.Threads, "threads", 16, "client threads (captured sessions)")
	fl.Uint64Var(&y.Seed, "seed", 1, "random seed (the same seed gives the same capture)")
	fl.DurationVar(&interval, "interval", 100*time.Microsecond, "captured time between operations (what --speed replays)")
	fl.StringVarP(&out, "out", "o", "", "capture directory to write")

	var s workload.Sberbank
	var sout string
	sber := &cobra.Command{
		Use:   "sberbank",
		Short: "Sberbank's test: BEGIN BATCH of 100 inserts, then SELECT ... WHERE id IN (100 ids)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if sout == "" {
				return errors.New("workload: -o DIR is required")
			}
			n, err := workload.Write(cmd.Context(), sout, buildVersion(), &s)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d records to %s\n", n, sout)
			return nil
		},
	}
	sf := sber.Flags()
	sf.Int64Var(&s.Records, "records", 10000, "rows inserted, in batches")
	sf.Int64Var(&s.Operations, "operations", 1000, "IN reads")
	sf.IntVar(&s.BatchSize, "batch", 100, "inserts per BEGIN BATCH")
	sf.IntVar(&s.InSize, "in", 100, "ids per IN read")
	sf.IntVar(&s.FieldLength, "fieldlength", 100, "payload bytes")
	sf.IntVar(&s.Threads, "threads", 16, "client threads (captured sessions)")
	sf.Uint64Var(&s.Seed, "seed", 1, "random seed")
	sf.StringVarP(&sout, "out", "o", "", "capture directory to write")
	cmd.AddCommand(ycsb, sber)
	return cmd
}
