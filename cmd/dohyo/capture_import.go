package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/dohyo/dohyo/capture"
	"github.com/dohyo/dohyo/capture/fql"
)

func newCaptureImportCmd() *cobra.Command {
	var (
		fqlDirs    []string
		outDir     string
		node       string
		schemaFile string
		window     time.Duration
		oneSession bool
		emptyUnset bool
		quiet      bool
	)
	cmd := &cobra.Command{
		Use:   "import --fql DIR [DIR...] --out CAPDIR",
		Short: "Import Cassandra full query logs (one directory per node) as a capture",
		Long: `Import reads Cassandra 4.0+ full query logs (nodetool enablefullquerylog),
one directory per node, merges their entries by start time and writes them as
ordinary capture segments, so inspect, dump, verify and replay work on them.
FQL records no results, latencies, sessions or errors: see docs/IMPORT.md.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			dirs := append(append([]string(nil), fqlDirs...), args...)
			if len(dirs) == 0 {
				return errors.New("--fql is required")
			}
			if outDir == "" {
				return errors.New("--out is required")
			}
			cfg := capture.DefaultWriterConfig()
			cfg.Dir, cfg.NodeID, cfg.DohyoVersion = outDir, node, buildVersion()
			cfg.QueueSize = 1 << 16
			if schemaFile != "" {
				b, err := os.ReadFile(schemaFile)
				if err != nil {
					return err
				}
				cfg.SchemaDDL = string(b)
			}
			m, err := fql.Merge(cmd.Context(), window, dirs...)
			if err != nil {
				return err
			}
			defer m.Close()
			for i, d := range dirs {
				if len(m.Files(i)) == 0 {
					fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s holds no .cq4 files\n", d)
				}
			}
			w, err := capture.NewWriter(cfg)
			if err != nil {
				return err
			}
			p := &progressLine{out: cmd.ErrOrStderr(), quiet: quiet, start: time.Now()}
			st, err := fql.Import(cmd.Context(), m, w, fql.ImportOptions{
				OneSession: oneSession, EmptyAsUnset: emptyUnset, ProgressEvery: 4096,
				Progress: func(entries, records uint64) {
					p.show("fql import: %d entries, %d records", entries, records)
				},
			})
			p.done()
			if cerr := w.Close(cmd.Context()); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
			ws := w.Stats()
			writeImportSummary(cmd.OutOrStdout(), m.Stats(), st, ws, len(dirs), filepath.Clean(outDir))
			if ws.Dropped > 0 {
				return &exitError{code: 1, err: fmt.Errorf("capture import: %d records dropped", ws.Dropped)}
			}
			return nil
		},
	}
	cmd.Flags().StringSliceVar(&fqlDirs, "fql", nil, "full query log directory of a node (repeat, or list after the flag, for several nodes)")
	cmd.Flags().StringVar(&outDir, "out", "", "directory for the capture segments")
	cmd.Flags().StringVar(&node, "node", "fql", "node id of the written segments")
	cmd.Flags().StringVar(&schemaFile, "schema", "", "file of CQL DDL (e.g. cqlsh -e 'DESCRIBE SCHEMA') for the capture header, used by replay --create-schema")
	cmd.Flags().DurationVar(&window, "window", fql.DefaultWindow, "reorder window: entries are logged at completion, stamped with their start")
	cmd.Flags().BoolVar(&oneSession, "one-session", false, "one capture session for all nodes (replay keeps their merged order) instead of one per node")
	cmd.Flags().BoolVar(&emptyUnset, "empty-as-unset", false, "import empty values as unset (the log cannot tell them apart: see docs/IMPORT.md)")
	cmd.Flags().BoolVar(&quiet, "quiet", false, "no progress line")
	return cmd
}

func writeImportSummary(out io.Writer, fs *fql.Stats, st fql.ImportStats, ws capture.Stats, dirs int, outDir string) {
	fmt.Fprintf(out, "read %d entries from %d files of %d logs\n", fs.Entries, fs.Files, dirs)
	fmt.Fprintf(out, "imported %d entries (%d batches) as %d records into %s (%d segments)\n",
		st.Entries, st.Batches, st.Records, outDir, ws.Segments)
	if st.Unset > 0 {
		fmt.Fprintf(out, "imported %d empty values as unset (--empty-as-unset)\n", st.Unset)
	}
	if n := fs.SkippedTotal(); n > 0 {
		fmt.Fprintf(out, "skipped %d entries:\n", n)
		reasons := make([]string, 0, len(fs.Skipped))
		for r := range fs.Skipped {
			reasons = append(reasons, r)
		}
		sort.Strings(reasons)
		for _, r := range reasons {
			fmt.Fprintf(out, "  %d\t%s (first: %s)\n", fs.Skipped[r], r, fs.Examples[r])
		}
	} else {
		fmt.Fprintln(out, "skipped 0 entries")
	}
	for _, t := range fs.Tails {
		fmt.Fprintf(out, "tail: %s at offset %d: %s (entries before it were read)\n", t.File, t.Offset, t.State)
	}
}

// progressLine rewrites one status line on a terminal-like stream at most
// once a second, and only once the work has taken a second.
type progressLine struct {
	mu    sync.Mutex
	out   io.Writer
	quiet bool
	start time.Time
	last  time.Time
	shown bool
}

func (p *progressLine) show(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if p.quiet || now.Sub(p.start) < time.Second || now.Sub(p.last) < time.Second {
		return
	}
	p.last, p.shown = now, true
	fmt.Fprintf(p.out, "\r"+format+" (%s)", append(args, now.Sub(p.start).Round(time.Second))...)
}

func (p *progressLine) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprintln(p.out)
	}
}
