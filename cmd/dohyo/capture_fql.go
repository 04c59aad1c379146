package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/dohyo/dohyo/capture"
	"github.com/dohyo/dohyo/capture/fql"
)

// fqlImport is `capture import --fql`: Cassandra full query logs, one
// directory per node (docs/IMPORT.md).
type fqlImport struct {
	dirs       []string
	window     time.Duration
	oneSession bool
	emptyUnset bool
	quiet      bool
}

func addFQLImport(cmd *cobra.Command) *fqlImport {
	f := &fqlImport{}
	fl := cmd.Flags()
	fl.StringSliceVar(&f.dirs, "fql", nil, "full query log directory of a node (repeat, or list after the flag, for several nodes)")
	fl.DurationVar(&f.window, "window", fql.DefaultWindow, "FQL reorder window: entries are logged at completion, stamped with their start")
	fl.BoolVar(&f.oneSession, "one-session", false, "FQL: one capture session for all nodes (replay keeps their merged order) instead of one per node")
	fl.BoolVar(&f.emptyUnset, "empty-as-unset", false, "FQL: import empty values as unset (the log cannot tell them apart: see docs/IMPORT.md)")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress line")
	return f
}

func (f *fqlImport) flag() string   { return "--fql" }
func (f *fqlImport) selected() bool { return len(f.dirs) > 0 }

func (f *fqlImport) run(ctx context.Context, cmd *cobra.Command, args []string, dst importOut) error {
	dirs := append(append([]string(nil), f.dirs...), args...)
	m, err := fql.Merge(ctx, f.window, dirs...)
	if err != nil {
		return err
	}
	defer m.Close()
	for i, d := range dirs {
		if len(m.Files(i)) == 0 {
			fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s holds no .cq4 files\n", d)
		}
	}
	p := &progressLine{out: cmd.ErrOrStderr(), quiet: f.quiet, start: time.Now()}
	st, err := fql.Import(ctx, m, dst, fql.ImportOptions{
		OneSession: f.oneSession, EmptyAsUnset: f.emptyUnset, ProgressEvery: 4096,
		Progress: func(entries, records uint64) {
			p.show("fql import: %d entries, %d records", entries, records)
		},
	})
	p.done()
	if err != nil {
		return err
	}
	if err := dst.w.Flush(ctx); err != nil {
		return err
	}
	writeImportSummary(cmd.OutOrStdout(), m.Stats(), st, dst.w.Stats(), len(dirs), filepath.Clean(dst.dir))
	return nil
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
