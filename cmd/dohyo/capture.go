package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/capture"
)

func newCaptureCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "capture",
		Short: "Inspect, dump, merge and verify capture segments",
	}
	cmd.AddCommand(newCaptureInspectCmd(), newCaptureDumpCmd(), newCaptureMergeCmd(), newCaptureVerifyCmd(), newCaptureImportCmd())
	return cmd
}

func newCaptureInspectCmd() *cobra.Command {
	var asJSON bool
	var top int
	cmd := &cobra.Command{
		Use:   "inspect PATH...",
		Short: "Summarise captures: span, records, sessions, top statements, drops, bytes per record",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sum, err := capture.Inspect(cmd.Context(), args...)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(sum)
			}
			return writeSummary(out, sum, top)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the summary as JSON")
	cmd.Flags().IntVar(&top, "top", 10, "statements to list, by count")
	return cmd
}

// errorCodes renders error counts by code, " (Invalid 2, ServerError 1)",
// most frequent first; "" when there are none.
func errorCodes(codes map[bindings.ErrorCode]uint64) string {
	if len(codes) == 0 {
		return ""
	}
	type kv struct {
		code bindings.ErrorCode
		n    uint64
	}
	var all []kv
	for c, n := range codes {
		all = append(all, kv{c, n})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].n != all[j].n {
			return all[i].n > all[j].n
		}
		return all[i].code < all[j].code
	})
	parts := make([]string, len(all))
	for i, e := range all {
		parts[i] = fmt.Sprintf("%s %d", e.code, e.n)
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func writeSummary(out io.Writer, s *capture.Summary, top int) error {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "segments\t%d (torn %d, unclosed %d)\n", s.Segments, s.Torn, s.Unclosed)
	fmt.Fprintf(w, "nodes\t%v\n", s.Nodes)
	fmt.Fprintf(w, "span\t%s (%s .. %s)\n", s.Span().Round(time.Millisecond),
		s.First.UTC().Format(time.RFC3339Nano), s.Last.UTC().Format(time.RFC3339Nano))
	fmt.Fprintf(w, "records\t%d\n", s.Records)
	fmt.Fprintf(w, "sessions\t%d\n", s.Sessions)
	fmt.Fprintf(w, "dropped\t%d\n", s.Dropped)
	fmt.Fprintf(w, "errors\t%d%s\n", s.Errors, errorCodes(s.ErrCodes))
	if s.Probes > 0 {
		fmt.Fprintf(w, "driver probes\t%d (reads of system.peers_v2 answered Invalid: not errors)\n", s.Probes)
	}
	fmt.Fprintf(w, "file bytes\t%d\n", s.FileBytes)
	fmt.Fprintf(w, "bytes/record\t%.1f\n", s.BytesPerRecord)
	fmt.Fprintf(w, "compression ratio\t%.2f\n", s.CompressionRatio)
	if err := w.Flush(); err != nil {
		return err
	}
	stmts := append([]capture.StatementSummary(nil), s.Statements...)
	sort.SliceStable(stmts, func(i, j int) bool { return stmts[i].Count > stmts[j].Count })
	if len(stmts) > top {
		stmts = stmts[:top]
	}
	fmt.Fprintln(out, "\ntop statements:")
	w = tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for _, st := range stmts {
		fmt.Fprintf(w, "  %d\t%s\n", st.Count, st.Fingerprint)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if s.Errors == 0 {
		return nil
	}
	// Every statement that erred, however rare: these are what to look at.
	fmt.Fprintln(out, "\nstatements with errors (errors/records, codes):")
	w = tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for _, st := range s.Statements {
		if st.Errors > 0 {
			fmt.Fprintf(w, "  %d/%d\t%s\t%s\n", st.Errors, st.Count, strings.TrimSuffix(strings.TrimPrefix(errorCodes(st.ErrCodes), " ("), ")"), st.Fingerprint)
		}
	}
	return w.Flush()
}

func newCaptureDumpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "dump PATH...",
		Short: "Print every record as a JSON line, in time order",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := capture.Merge(cmd.Context(), args...)
			if err != nil {
				return err
			}
			defer m.Close()
			bw := bufio.NewWriter(cmd.OutOrStdout())
			d := capture.NewDumper(bw)
			for _, h := range m.Headers() {
				d.SetSchema(h.SchemaDDL)
			}
			for {
				rec, err := m.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					return err
				}
				if err := d.Dump(rec); err != nil {
					return err
				}
			}
			return bw.Flush()
		},
	}
}

func newCaptureVerifyCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "verify PATH...",
		Short: "Read every segment fully and report torn, unclosed or corrupt ones",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := capture.Verify(cmd.Context(), args...)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			for _, s := range rep.Segments {
				fmt.Fprintf(out, "%s\n", segmentCheckLine(s))
			}
			fmt.Fprintf(out, "%d segments, %d records\n", len(rep.Segments), rep.Records)
			if !rep.OK() {
				return &exitError{code: 1, err: errors.New("capture verify: problems found")}
			}
			return nil
		},
	}
}

// segmentCheckLine is one segment's verdict: "ok" (clean or cleanly
// torn) or "PROBLEM" with what is wrong.
func segmentCheckLine(s capture.SegmentCheck) string {
	var b strings.Builder
	if s.OK() {
		fmt.Fprintf(&b, "ok       %s: %d records", s.Path, s.Records)
	} else {
		fmt.Fprintf(&b, "PROBLEM  %s: %d records", s.Path, s.Records)
	}
	switch {
	case s.Closed:
		fmt.Fprintf(&b, ", closed (trailer: %d records)", s.Trailer.Records)
	case s.Torn:
		fmt.Fprintf(&b, ", torn at offset %d (a crash; records before it are intact)", s.TornAt)
	default:
		b.WriteString(", not closed")
	}
	if s.Mismatch {
		fmt.Fprintf(&b, "; the trailer says %d records but %d were read", s.Trailer.Records, s.Records)
	}
	if s.Err != nil {
		fmt.Fprintf(&b, "; %v", s.Err)
	}
	return b.String()
}

func newCaptureMergeCmd() *cobra.Command {
	var outDir, node string
	cmd := &cobra.Command{
		Use:   "merge PATH... --out DIR",
		Short: "Merge segments of many nodes into one time-ordered capture",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if outDir == "" {
				return errors.New("--out is required")
			}
			m, err := capture.Merge(cmd.Context(), args...)
			if err != nil {
				return err
			}
			defer m.Close()
			cfg := capture.DefaultWriterConfig()
			cfg.Dir, cfg.NodeID, cfg.DohyoVersion = outDir, node, buildVersion()
			cfg.QueueSize = 1 << 16
			for _, h := range m.Headers() {
				cfg.SchemaDDL = h.SchemaDDL
			}
			w, err := capture.NewWriter(cfg)
			if err != nil {
				return err
			}
			n, err := copyRecords(cmd, m, w)
			if cerr := w.Close(cmd.Context()); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
			st := w.Stats()
			fmt.Fprintf(cmd.OutOrStdout(), "merged %d records into %s (%d segments, %d dropped)\n",
				n, filepath.Clean(outDir), st.Segments, st.Dropped)
			if st.Dropped > 0 {
				return &exitError{code: 1, err: fmt.Errorf("capture merge: %d records dropped", st.Dropped)}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&outDir, "out", "", "directory for the merged segments")
	cmd.Flags().StringVar(&node, "node", "merged", "node id of the merged segments")
	return cmd
}

// copyRecords writes every merged record into w, waiting for the writer's
// queue rather than letting it drop (merge is offline, not a live path).
func copyRecords(cmd *cobra.Command, m *capture.Merger, w *capture.Writer) (uint64, error) {
	type sessionKey struct {
		node    string
		session uint64
	}
	sessions := map[sessionKey]uint64{}
	var n uint64
	for {
		rec, err := m.Next()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		// Sessions of different nodes may share ids: give each
		// (node, session) pair its own id in the merged capture.
		key := sessionKey{rec.Node, rec.Session}
		id, ok := sessions[key]
		if !ok {
			id = uint64(len(sessions) + 1)
			sessions[key] = id
		}
		cp := *rec
		cp.Session = id
		if err := w.Append(cmd.Context(), &cp); err != nil {
			return n, err
		}
		n++
	}
}
