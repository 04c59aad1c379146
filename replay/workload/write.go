package workload

import (
	"context"
	"fmt"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/capture"
)

// Generator is a workload that can be written as a capture.
type Generator interface {
	Node() string
	SchemaDDL() string
	Generate(emit func(*bindings.Observation)) error
}

// flushEvery bounds the capture writer's queue (it drops rather than
// blocks when full).
const flushEvery = 4096

// Write generates g into a capture directory with capture's writer (the
// same format as a real capture; the schema in the segment header). It
// returns the records written.
func Write(ctx context.Context, dir, dohyoVersion string, g Generator) (uint64, error) {
	w, err := capture.NewWriter(capture.WriterConfig{Dir: dir, NodeID: g.Node(), DohyoVersion: dohyoVersion, SchemaDDL: g.SchemaDDL()})
	if err != nil {
		return 0, fmt.Errorf("workload: %w", err)
	}
	n := 0
	var ferr error
	genErr := g.Generate(func(o *bindings.Observation) {
		w.Observe(o)
		if n++; n%flushEvery == 0 && ferr == nil {
			ferr = w.Flush(ctx)
		}
	})
	cerr := w.Close(ctx)
	st := w.Stats()
	switch {
	case genErr != nil:
		return 0, genErr
	case ferr != nil:
		return 0, fmt.Errorf("workload: flush: %w", ferr)
	case cerr != nil:
		return 0, fmt.Errorf("workload: close: %w", cerr)
	case st.Dropped > 0 || st.Records != uint64(n):
		return 0, fmt.Errorf("workload: %d of %d records written (%d dropped)", st.Records, n, st.Dropped)
	}
	return st.Records, nil
}
