package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/capture"
	"github.com/dohyo/dohyo/mirror"
	"github.com/dohyo/dohyo/replay"
)

// openMirror opens the mirror backends of cfg.Mirrors (nil without any):
// each distinct URL once, named by the URL without its secrets
// (replay.RedactURL).
func openMirror(ctx context.Context, cfg Config, log *slog.Logger) (*mirror.Mirror, []bindings.Backend, error) {
	if len(cfg.Mirrors) == 0 {
		return nil, nil, nil
	}
	var backends []bindings.Backend
	closeAll := func() {
		for _, b := range backends {
			_ = b.Close()
		}
	}
	mc := mirror.Config{Keyspaces: map[string][]string{}, ReadSample: cfg.MirrorReadSample, Queue: cfg.MirrorQueue,
		Schema: cfg.MirrorSchema, Logger: log.With("component", "mirror")}
	names, err := mirrorNames(cfg.Mirrors)
	if err != nil {
		return nil, nil, err
	}
	opened := map[string]bool{}
	for _, r := range cfg.Mirrors {
		ks, u, _ := strings.Cut(r, "=")
		name := names[u]
		if !opened[name] {
			b, err := openBackend(ctx, u)
			if err != nil {
				closeAll()
				return nil, nil, errors.Join(errors.New("mirror "+ks+"="+name), err)
			}
			backends = append(backends, b)
			mc.Targets = append(mc.Targets, mirror.Target{Name: name, Backend: b})
			opened[name] = true
		}
		mc.Keyspaces[ks] = append(mc.Keyspaces[ks], name)
	}
	m, err := mirror.New(mc)
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	return m, backends, nil
}

// mirrorNames names each mirror URL of KEYSPACE=URL entries by the URL
// without its secrets (replay.RedactURL): the name shows in
// /admin/mirror, metrics, logs and reports. Two URLs that differ only in
// their secrets are refused.
func mirrorNames(mirrors []string) (map[string]string, error) {
	names := map[string]string{} // URL -> name
	urls := map[string]string{}  // name -> URL
	for _, r := range mirrors {
		_, u, _ := strings.Cut(r, "=")
		name := replay.RedactURL(u)
		if prev, ok := urls[name]; ok && prev != u {
			return nil, fmt.Errorf("mirrors %s: two mirror URLs differ only in their secrets", name)
		}
		names[u], urls[name] = name, u
	}
	return names, nil
}

// newMirrorCmd is `dohyo mirror`: tools for live mirroring.
func newMirrorCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "mirror", Short: "Tools for live mirroring (dohyo serve --mirror)"}
	cmd.AddCommand(newMirrorReapplyCmd(), newMirrorBackfillCmd(), newMirrorCompareCmd(), newMirrorReportCmd())
	return cmd
}

// newMirrorReapplyCmd is `dohyo mirror reapply`: the captured writes a
// mirror missed, applied again with their timestamps.
func newMirrorReapplyCmd() *cobra.Command {
	var target, since, until string
	var keyspaces []string
	cmd := &cobra.Command{
		Use:   "reapply CAPTURE... --target URL --keyspace KS",
		Short: "Apply a capture's writes of some keyspaces again to a mirror (the writes it missed while down or behind)",
		Long: `Reapply sends every successful plain write (INSERT, UPDATE, DELETE, batch
children) of the given keyspaces in the captures, in capture order and with
its captured timestamp, to the target. A write the target already has is
not changed by it (same values, same timestamp), so the window (--since,
--until, RFC 3339) may be generous: take it from the mirror's state changes
in the log or from dohyo_mirror_state. LWT, counter and read-modify-write
statements, and writes captured without a timestamp (before mirroring was
on), are not applied: they are counted, for the operator to settle.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var f mirror.ReapplyFilter
			f.Keyspaces = keyspaces
			for _, tv := range []struct {
				flag, v string
				to      *time.Time
			}{{"since", since, &f.Since}, {"until", until, &f.Until}} {
				if tv.v == "" {
					continue
				}
				t, err := time.Parse(time.RFC3339, tv.v)
				if err != nil {
					return fmt.Errorf("--%s %q is not an RFC 3339 time (2026-12-01T10:00:00Z): %w", tv.flag, tv.v, err)
				}
				*tv.to = t
			}
			if target == "" || len(keyspaces) == 0 {
				return errors.New("--target and --keyspace are required")
			}
			b, err := openBackend(cmd.Context(), target)
			if err != nil {
				return err
			}
			defer b.Close()
			mg, err := capture.NewMerger(cmd.Context(), capture.MergeOptions{}, args...)
			if err != nil {
				return err
			}
			defer mg.Close()
			st, err := mirror.Reapply(cmd.Context(), mg.Next, b, f)
			if encErr := printJSON(cmd, st); encErr != nil {
				return encErr
			}
			if err == nil && st.Failed > 0 {
				err = fmt.Errorf("%d writes failed on %s (see errors)", st.Failed, target)
			}
			return err
		},
	}
	cmd.Flags().StringVar(&target, "target", "", "the mirror's backend URL")
	cmd.Flags().StringArrayVar(&keyspaces, "keyspace", nil, "keyspace whose writes to apply (repeatable)")
	cmd.Flags().StringVar(&since, "since", "", "only writes that arrived at or after this time (RFC 3339)")
	cmd.Flags().StringVar(&until, "until", "", "only writes that arrived at or before this time (RFC 3339)")
	return cmd
}

// newMirrorBackfillCmd is `dohyo mirror backfill`: a keyspace's existing
// rows copied to a new mirror with their write times and TTLs.
func newMirrorBackfillCmd() *cobra.Command {
	var pf pairFlags
	var workers int
	var stateFile string
	var progress bool
	cmd := &cobra.Command{
		Use:   "backfill --source URL --target URL --keyspace KS [--table T]",
		Short: "Copy a keyspace's existing rows to a mirror with each cell's write time and TTL",
		Long: `Backfill scans every table of the keyspace (or --table) on the source and
writes each row to the target, one INSERT per group of cells sharing a
write time and TTL, with that timestamp (USING TIMESTAMP) and the remaining
TTL. Run it while the keyspace is mirrored (dohyo serve --mirror): a live
write newer than a copied cell wins on the target as it did on the source,
so the two converge. The target must already hold the schema.

Counter tables are not copied (counter updates take no timestamp, so a
copy could not converge with live increments); the output says so.
Non-frozen collections and UDTs are written whole at the backfill's time.
Tombstones are not copied. Prints what it did as JSON; exits non-zero when
a write failed.

--state FILE records each table once all its writes were applied; a run
with the same --state skips those tables (resuming an interrupted
backfill; a table cut off midway is copied again, which is safe: copied
cells keep their write times). --progress prints the rows copied so far to
stderr every 500 rows and when a table is done.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			src, dst, err := pf.open(cmd.Context())
			if err != nil {
				return err
			}
			defer src.Close()
			defer dst.Close()
			opts := mirror.BackfillOptions{Keyspace: pf.keyspace, Table: pf.table, Workers: workers}
			state, err := readBackfillState(stateFile, pf.keyspace)
			if err != nil {
				return err
			}
			opts.Done = state.done()
			opts.Progress = func(table string, rows int64, done bool) {
				if progress {
					end := ""
					if done {
						end = ", done"
					}
					fmt.Fprintf(cmd.ErrOrStderr(), "backfill %s.%s: %d rows%s\n", pf.keyspace, table, rows, end)
				}
				if done && stateFile != "" {
					state.Done = append(state.Done, table)
					if err := state.write(stateFile); err != nil {
						fmt.Fprintf(cmd.ErrOrStderr(), "backfill: --state %s: %v\n", stateFile, err)
					}
				}
			}
			st, err := mirror.Backfill(cmd.Context(), src, dst, opts)
			if encErr := printJSON(cmd, st); encErr != nil {
				return encErr
			}
			if err == nil && st.Failed > 0 {
				err = fmt.Errorf("%d writes failed on %s (see errors)", st.Failed, pf.target)
			}
			return err
		},
	}
	pf.register(cmd, "copy")
	cmd.Flags().IntVar(&workers, "workers", 8, "concurrent writes to the target")
	cmd.Flags().StringVar(&stateFile, "state", "", "file recording the tables copied completely; a run with the same file skips them (resume)")
	cmd.Flags().BoolVar(&progress, "progress", false, "print the rows copied so far to stderr")
	return cmd
}

// backfillState is what --state records: the tables of a keyspace whose
// backfill completed.
type backfillState struct {
	Keyspace string   `json:"keyspace"`
	Done     []string `json:"done"`
}

// readBackfillState reads a --state file (an empty state when there is
// no file yet). A file of another keyspace is an error.
func readBackfillState(path, keyspace string) (*backfillState, error) {
	st := &backfillState{Keyspace: keyspace}
	if path == "" {
		return st, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return nil, fmt.Errorf("--state: %w", err)
	}
	if err := json.Unmarshal(b, st); err != nil {
		return nil, fmt.Errorf("--state %s: %w", path, err)
	}
	if st.Keyspace != keyspace {
		return nil, fmt.Errorf("--state %s records keyspace %q, not %q", path, st.Keyspace, keyspace)
	}
	return st, nil
}

func (s *backfillState) done() map[string]bool {
	m := map[string]bool{}
	for _, t := range s.Done {
		m[t] = true
	}
	return m
}

// write replaces the file atomically (a crash leaves the old or the new).
func (s *backfillState) write(path string) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// newMirrorCompareCmd is `dohyo mirror compare`: a full-scan comparison.
func newMirrorCompareCmd() *cobra.Command {
	var pf pairFlags
	var examples int
	cmd := &cobra.Command{
		Use:   "compare --source URL --target URL --keyspace KS [--table T]",
		Short: "Compare a keyspace on two backends by full scans (values and write times)",
		Long: `Compare scans every table of the keyspace (or --table) on both backends and
compares them row by row: primary key, every cell's value and write time
(not TTLs, which count down, nor the write times of counters, non-frozen
collections and UDTs, whose values are compared). It prints a JSON summary
with per-table counts (equal, missing on the target, extra on the target,
different) and up to --examples differences, and exits non-zero when any
row differs. The source's rows are held in memory while the target is
scanned.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			src, dst, err := pf.open(cmd.Context())
			if err != nil {
				return err
			}
			defer src.Close()
			defer dst.Close()
			res, err := mirror.Compare(cmd.Context(), src, dst, mirror.CompareOptions{Keyspace: pf.keyspace, Table: pf.table, Examples: examples})
			if err != nil {
				return err
			}
			if err := printJSON(cmd, res); err != nil {
				return err
			}
			if !res.Equal {
				return fmt.Errorf("keyspace %s differs between %s and %s", pf.keyspace, pf.source, pf.target)
			}
			return nil
		},
	}
	pf.register(cmd, "compare")
	cmd.Flags().IntVar(&examples, "examples", 20, "differences shown at most")
	return cmd
}

// pairFlags are backfill's and compare's --source, --target, --keyspace
// and --table.
type pairFlags struct{ source, target, keyspace, table string }

func (p *pairFlags) register(cmd *cobra.Command, verb string) {
	cmd.Flags().StringVar(&p.source, "source", "", "the primary's backend URL")
	cmd.Flags().StringVar(&p.target, "target", "", "the mirror's backend URL")
	cmd.Flags().StringVar(&p.keyspace, "keyspace", "", "keyspace to "+verb)
	cmd.Flags().StringVar(&p.table, "table", "", "only this table")
}

// open opens the source and target backends.
func (p *pairFlags) open(ctx context.Context) (bindings.Backend, bindings.Backend, error) {
	if p.source == "" || p.target == "" || p.keyspace == "" {
		return nil, nil, errors.New("--source, --target and --keyspace are required")
	}
	if p.source == p.target {
		return nil, nil, errors.New("--source and --target are the same backend")
	}
	src, err := openBackend(ctx, p.source)
	if err != nil {
		return nil, nil, fmt.Errorf("source: %w", err)
	}
	dst, err := openBackend(ctx, p.target)
	if err != nil {
		_ = src.Close()
		return nil, nil, fmt.Errorf("target: %w", err)
	}
	return src, dst, nil
}

func printJSON(cmd *cobra.Command, v any) error {
	enc := json.NewEncoder(cmd.OutOrStdout())
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
