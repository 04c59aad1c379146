package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dohyo/dohyo/capture"
	"github.com/dohyo/dohyo/cql"
)

// `dohyo capture import`: requests recorded by something other than
// dohyo, written as capture segments. Each input format is an
// importSource in a file of its own (capture_pcap.go: --pcap;
// capture_fql.go: --fql).

// importSource is one input format of `capture import`.
type importSource interface {
	// flag names the option that selects the source ("--pcap").
	flag() string
	// selected tells whether its option was given.
	selected() bool
	// run imports into the output; args are the command's positional
	// arguments (more inputs of the selected kind).
	run(ctx context.Context, cmd *cobra.Command, args []string, out importOut) error
}

// recordAppender takes records (a capture.Writer, an importOut).
type recordAppender interface {
	Append(ctx context.Context, r *capture.Record) error
}

// importOut is where an import writes: a writer of the output directory,
// through the --keyspace filter when one is given.
type importOut struct {
	w      *capture.Writer
	dir    string
	filter *capture.KeyspaceFilter // nil: every record
}

// Append writes r unless the filter leaves it out.
func (o importOut) Append(ctx context.Context, r *capture.Record) error {
	if o.filter != nil && !o.filter.Keep(r) {
		return nil
	}
	return o.w.Append(ctx, r)
}

// writeFilterSummary says what --keyspace kept and left out.
func writeFilterSummary(out io.Writer, keyspaces []string, f *capture.KeyspaceFilter) {
	kept, left := f.Counts()
	var n uint64
	parts := make([]string, 0, len(left))
	for _, c := range left {
		n += c.Records
		name := c.Keyspace
		if name == "" {
			name = "no keyspace"
		}
		if len(parts) < 8 {
			parts = append(parts, fmt.Sprintf("%s %d", name, c.Records))
		}
	}
	if len(left) > len(parts) {
		parts = append(parts, "...")
	}
	fmt.Fprintf(out, "--keyspace %s: wrote %d of %d records, left out %d", strings.Join(keyspaces, ","), kept, kept+n, n)
	if n > 0 {
		fmt.Fprintf(out, " (%s)", strings.Join(parts, ", "))
	}
	fmt.Fprintln(out)
}

func newCaptureImportCmd() *cobra.Command {
	var outDir, node, schemaFile string
	var keyspaces []string
	cmd := &cobra.Command{
		Use:   "import (--pcap FILE... | --fql DIR [DIR...]) --out DIR",
		Short: "Import requests recorded elsewhere (tcpdump captures of CQL traffic, Cassandra full query logs) as capture segments",
		Long: `Import writes requests recorded without dohyo as ordinary capture segments,
so inspect, dump, verify and replay work on them:

  --pcap FILE   tcpdump -w captures (pcap or pcapng) of CQL connections
                (docs/capture-import.md)
  --fql DIR     Cassandra 4.0+ full query logs (nodetool enablefullquerylog),
                one directory per node, merged by start time; FQL records no
                results, latencies, sessions or errors (docs/IMPORT.md)`,
	}
	sources := []importSource{addPcapImport(cmd), addFQLImport(cmd)}
	cmd.Flags().StringVar(&outDir, "out", "", "directory for the imported segments")
	cmd.Flags().StringVar(&node, "node", "import", "node id of the imported segments")
	cmd.Flags().StringVar(&schemaFile, "schema", "", "file of CQL DDL (e.g. cqlsh -e 'DESCRIBE SCHEMA') for the capture header, used by replay --create-schema")
	cmd.Flags().StringSliceVar(&keyspaces, "keyspace", nil, "write only the records of these keyspaces (the one a statement names, else its session's); leaves out the rest of the server's traffic, drivers' system reads included")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if outDir == "" {
			return errors.New("--out is required")
		}
		var chosen []importSource
		var names []string
		for _, s := range sources {
			names = append(names, s.flag())
			if s.selected() {
				chosen = append(chosen, s)
			}
		}
		if len(chosen) != 1 {
			return fmt.Errorf("give exactly one of %s", strings.Join(names, ", "))
		}
		schema := ""
		if schemaFile != "" {
			var err error
			if schema, err = readSchemaFile(schemaFile); err != nil {
				return err
			}
		}
		w, err := newImportWriter(outDir, node, schema)
		if err != nil {
			return err
		}
		dst := importOut{w: w, dir: outDir}
		if len(keyspaces) > 0 {
			dst.filter = capture.NewKeyspaceFilter(keyspaces)
		}
		err = chosen[0].run(cmd.Context(), cmd, args, dst)
		if err == nil && dst.filter != nil {
			writeFilterSummary(cmd.OutOrStdout(), keyspaces, dst.filter)
		}
		if cerr := w.Close(context.WithoutCancel(cmd.Context())); err == nil {
			err = cerr
		}
		if err == nil {
			if ws := w.Stats(); ws.Dropped > 0 {
				err = &exitError{code: 1, err: fmt.Errorf("capture import: %d records dropped by the writer", ws.Dropped)}
			}
		}
		return err
	}
	return cmd
}

// newImportWriter opens a capture writer for offline imports: a large
// queue, since Append waits rather than drops.
func newImportWriter(dir, node, schema string) (*capture.Writer, error) {
	cfg := capture.DefaultWriterConfig()
	cfg.Dir, cfg.NodeID, cfg.DohyoVersion, cfg.SchemaDDL = dir, node, buildVersion(), schema
	cfg.QueueSize = 1 << 16
	return capture.NewWriter(cfg)
}

// readSchemaFile reads --schema's DDL and checks that it parses, so that a
// wrong file fails the import rather than the replay. Lines cqlsh prints
// before its output ("WARNING: cqlsh was built against 5.0.0, but this
// server is 5.0.9 ...", on standard output, so in a redirected DESCRIBE)
// are left out.
func readSchemaFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	text, stripped := string(b), false
	for {
		rest := strings.TrimLeft(text, " \t\r\n")
		if !strings.HasPrefix(rest, "WARNING: ") {
			if stripped {
				text = rest
			}
			break
		}
		_, text, _ = strings.Cut(rest, "\n")
		stripped = true
	}
	if _, err := cql.ParseScript(text); err != nil {
		return "", fmt.Errorf("--schema %s: %w (want CQL DDL, e.g. from cqlsh -e 'DESCRIBE KEYSPACE ks')", path, err)
	}
	return text, nil
}
