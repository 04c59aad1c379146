package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dohyo/dohyo/soak"
)

// Exit codes of dohyo soak: 1 the run could not be made, 3 it ran and
// its verdict failed.
const soakVerdictFailed = 3

func newSoakCmd() *cobra.Command {
	var (
		cfg          soak.Config
		faults       []string
		mix, out     string
		maxSlopeMiB  float64
		protoVersion int
	)
	cmd := &cobra.Command{
		Use:   "soak",
		Short: "Drive a fixed request rate through dohyo for a long time, with faults, and judge it",
		Long: `Soak sends prepared reads and writes, a few LWTs and counter updates, at a fixed
rate through the --target dohyo instances (contact points of one session) on
every --keyspace (each routed by dohyo to its backend) for --duration, while
the --fault schedule runs its commands. It samples each --metrics URL (a
dohyo's /metrics: RSS, heap, goroutines, open files, CPU) and the clients
(throughput, p50/p99 from the intended send time, errors) every --sample; at
the end it reads back every acknowledged write and checks the counter and
LWT totals. It writes soak.json and soak.html (one offline page, the verdict
first) to --out.

Verdict rules: no acknowledged write lost (nor a wrong or phantom row); no
stale read; counters and LWT sequences end between their acknowledged and
their acknowledged-plus-unknown operations; no client error outside a fault's
window (from its start to --fault's WINDOW after it, or to the command's end
if later); each sampled dohyo's RSS slope over the second half of the run
at most --max-rss-slope MiB/h; every fault command succeeded.

A fault is NAME@AT/WINDOW:COMMAND, run with sh -c, e.g.
  --fault 'node2@10m/2m:bash it/cassandra/cluster.sh restart 2'

Exit status: 0 the verdict passed, 3 it failed, 1 the run could not be made
(bad flags, an unreachable target or metrics URL, a failed setup).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, f := range faults {
				ft, err := soak.ParseFault(f)
				if err != nil {
					return err
				}
				cfg.Faults = append(cfg.Faults, ft)
			}
			if mix != "" {
				m, err := soak.ParseMix(mix)
				if err != nil {
					return err
				}
				cfg.Mix = m
			}
			cfg.Rules.MaxRSSSlope = maxSlopeMiB * (1 << 20)
			if maxSlopeMiB < 0 {
				return fmt.Errorf("--max-rss-slope %v: must not be negative", maxSlopeMiB)
			}
			cfg.Protocol = protoVersion
			if err := cfg.Defaults().Validate(); err != nil {
				return err
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return fmt.Errorf("--out: %w", err)
			}
			rep, err := soak.Run(cmd.Context(), cfg, cmd.ErrOrStderr())
			if rep == nil {
				return err
			}
			if werr := writeSoakReport(out, rep); werr != nil {
				return werr
			}
			fmt.Fprint(cmd.OutOrStdout(), rep.Summary())
			fmt.Fprintf(cmd.OutOrStdout(), "report: %s, %s\n", filepath.Join(out, "soak.html"), filepath.Join(out, "soak.json"))
			if err != nil {
				return err
			}
			if !rep.Verdict.Pass {
				return &exitError{code: soakVerdictFailed, err: fmt.Errorf("soak: verdict failed: %s", strings.Join(rep.Verdict.Fails(), ", "))}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&cfg.Targets, "target", []string{"127.0.0.1:9042"}, "dohyo CQL address (repeatable: the session's contact points)")
	fl.StringSliceVar(&cfg.Keyspaces, "keyspace", []string{"soak"}, "keyspace to drive (repeatable; created with --replication if missing)")
	fl.Float64Var(&cfg.Rate, "rate", 200, "requests per second, all keyspaces together")
	fl.DurationVar(&cfg.Duration, "duration", 10*time.Minute, "measured run")
	fl.IntVar(&cfg.Workers, "workers", 64, "requests in flight at most")
	fl.DurationVar(&cfg.Warmup, "warmup", 0, "first part of the run whose errors are reported but not judged (a cold cluster's JIT and caches)")
	fl.DurationVar(&cfg.Sample, "sample", 5*time.Second, "sampling interval")
	fl.DurationVar(&cfg.Period, "period", 10*time.Minute, "latency summary period (p50/p99 per period)")
	fl.StringSliceVar(&cfg.Metrics, "metrics", nil, "a dohyo's /metrics URL to sample (repeatable)")
	fl.StringArrayVar(&faults, "fault", nil, "fault NAME@AT/WINDOW:COMMAND (repeatable)")
	fl.DurationVar(&cfg.Timeout, "timeout", 10*time.Second, "per-request timeout")
	fl.DurationVar(&cfg.Connect, "connect-timeout", 10*time.Second, "bound on reaching a target or metrics URL at start")
	fl.DurationVar(&cfg.FaultGrace, "fault-grace", 2*time.Minute, "how long a fault command may still run after the run ends before it is stopped and recorded as failed")
	fl.StringVar(&mix, "mix", "", "operation weights, e.g. read=45,write=45,lwt=5,counter=5 (the default)")
	fl.StringVar(&cfg.Consistency, "consistency", "QUORUM", "consistency of every request")
	fl.IntVar(&cfg.Replication, "replication", 1, "replication factor of keyspaces the soak creates")
	fl.IntVar(&protoVersion, "protocol", 0, "native protocol version (0: negotiate)")
	fl.IntVar(&cfg.ValueSize, "value-size", 100, "payload bytes per written row")
	fl.Float64Var(&maxSlopeMiB, "max-rss-slope", 64, "verdict bound: RSS growth over the second half, MiB per hour")
	fl.StringVar(&out, "out", "soak-report", "directory for soak.json and soak.html")
	return cmd
}

func writeSoakReport(dir string, rep *soak.Report) error {
	for name, write := range map[string]func(f *os.File) error{
		"soak.json": func(f *os.File) error { return rep.WriteJSON(f) },
		"soak.html": func(f *os.File) error { return rep.WriteHTML(f) },
	} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("soak report: %w", err)
		}
		werr := write(f)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return fmt.Errorf("soak report %s: %w", name, werr)
		}
	}
	return nil
}
