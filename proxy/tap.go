package proxy

import "github.com/dohyo/dohyo/bindings"

// Tap receives an observation of every request the coordinator executes.
// Observe must not block and must not keep references into o after it
// returns (copy what it needs). Capture satisfies Tap structurally.
type Tap interface {
	Observe(o *bindings.Observation)
}

// NopTap discards observations.
type NopTap struct{}

// Observe does nothing.
func (NopTap) Observe(*bindings.Observation) {}

// WantsRows reports that NopTap uses no result rows.
func (NopTap) WantsRows() bool { return false }
