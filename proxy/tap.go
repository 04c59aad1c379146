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

// WantsValues reports that NopTap uses no bound values.
func (NopTap) WantsValues() bool { return false }

// Taps is a Tap handing every observation to each of its taps in turn
// (capture and mirroring side by side). It wants rows (values) when one of
// them does (bindings.RowsWanter, bindings.ValuesWanter).
type Taps []Tap

// Observe implements Tap.
func (ts Taps) Observe(o *bindings.Observation) {
	for _, t := range ts {
		t.Observe(o)
	}
}

// WantsRows implements bindings.RowsWanter.
func (ts Taps) WantsRows() bool {
	for _, t := range ts {
		if bindings.WantsRows(t) {
			return true
		}
	}
	return false
}

// WantsValues implements bindings.ValuesWanter.
func (ts Taps) WantsValues() bool {
	for _, t := range ts {
		if bindings.WantsValues(t) {
			return true
		}
	}
	return false
}
