package replay

import (
	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/capture"
)

// readCheck is what one target did with one op, next to what the capture
// says happened. Reads are compared at the end of the run, because a
// captured multi-page read's later pages arrive after its first page.
type readCheck struct {
	Fingerprint string
	Query       string
	Values      []capture.Value

	// Captured outcome.
	CapErr     bool
	CapCode    bindings.ErrorCode
	IsRead     bool     // captured a Rows result
	ExpPages   []uint64 // digest of each captured page (first page first)
	ExpRows    int
	Noise      string // why the captured result is nondeterministic, "" if it is not
	wantPaging bool   // captured first page said HasMore

	// Target outcome.
	Out Outcome
}
