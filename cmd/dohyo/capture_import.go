package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dohyo/dohyo/capture"
)

// `dohyo capture import`: requests recorded by something other than
// dohyo, written as capture segments. Each input format is an
// importSource in a file of its own (capture_pcap.go: --pcap).

// importSource is one input format of `capture import`.
type importSource interface {
	// flag names the option that selects the source ("--pcap").
	flag() string
	// selected tells whether its option was given.
	selected() bool
	// run imports into the output.
	run(ctx context.Context, cmd *cobra.Command, out importOut) error
}

// importOut is where an import writes: a writer of the output directory.
type importOut struct {
	w   *capture.Writer
	dir string
}

func newCaptureImportCmd() *cobra.Command {
	var outDir, node string
	cmd := &cobra.Command{
		Use:   "import (--pcap FILE...) --out DIR",
		Short: "Import requests recorded elsewhere (tcpdump captures of CQL traffic) as capture segments",
		Args:  cobra.NoArgs,
	}
	sources := []importSource{addPcapImport(cmd)}
	cmd.Flags().StringVar(&outDir, "out", "", "directory for the imported segments")
	cmd.Flags().StringVar(&node, "node", "import", "node id of the imported segments")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
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
		w, err := newImportWriter(outDir, node)
		if err != nil {
			return err
		}
		err = chosen[0].run(cmd.Context(), cmd, importOut{w: w, dir: outDir})
		if cerr := w.Close(context.WithoutCancel(cmd.Context())); err == nil {
			err = cerr
		}
		return err
	}
	return cmd
}

// newImportWriter opens a capture writer for offline imports: a large
// queue, since Append waits rather than drops.
func newImportWriter(dir, node string) (*capture.Writer, error) {
	cfg := capture.DefaultWriterConfig()
	cfg.Dir, cfg.NodeID, cfg.DohyoVersion = dir, node, buildVersion()
	cfg.QueueSize = 1 << 16
	return capture.NewWriter(cfg)
}
