package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRootCmd()
	if err := root.ExecuteContext(ctx); err != nil {
		if e, ok := err.(*exitError); !ok || !e.logged {
			fmt.Fprintln(os.Stderr, "dohyo:", err)
		}
		stop()
		os.Exit(exitCode(err))
	}
}

// exitError carries a specific process exit code (replay uses bit flags).
type exitError struct {
	code   int
	err    error
	logged bool // already in the log: main does not print it again
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func exitCode(err error) int {
	if e, ok := err.(*exitError); ok {
		return e.code
	}
	return 1
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "dohyo",
		Short:         "dohyo: a CQL/GraphQL coordinator proxy that captures and replays traffic",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionLine(),
	}
	// --version prints the same line as `dohyo version`.
	root.SetVersionTemplate("{{.Version}}\n")
	root.AddCommand(newVersionCmd(), newServeCmd(), newCaptureCmd(), newConfigCmd(), newHealthCmd(), newReplayCmd(), newReportCmd(), newWorkloadCmd(), newMirrorCmd(), newSoakCmd())
	return root
}
