package embedded

import (
	"bytes"
	"io"

	"github.com/cockroachdb/pebble/v2"

	"github.com/dohyo/dohyo/bindings/widecolumn"
)

// MergerName is the name of the merge operator Pebble records in the
// database; a database written with another merger cannot be opened.
const MergerName = "dohyo.widecolumn.resolve.v1"

// newMerger returns the merge operator that keeps the winning version of a
// cell. Every write is a Merge, so writes never read: Pebble resolves
// versions lazily, during reads and compactions. "Keep the winner" is max
// under a total order on stored values, hence associative, commutative and
// deterministic, as Pebble requires.
func newMerger() *pebble.Merger {
	return &pebble.Merger{
		Name: MergerName,
		Merge: func(_, value []byte) (pebble.ValueMerger, error) {
			m := &resolveMerger{}
			m.win = append(m.win, value...)
			return m, nil
		},
	}
}

type resolveMerger struct{ win []byte }

func (m *resolveMerger) MergeNewer(v []byte) error { m.take(v); return nil }
func (m *resolveMerger) MergeOlder(v []byte) error { m.take(v); return nil }

func (m *resolveMerger) take(v []byte) {
	if beats(v, m.win) {
		m.win = append(m.win[:0], v...)
	}
}

func (m *resolveMerger) Finish(bool) ([]byte, io.Closer, error) { return m.win, nil, nil }

// beats reports whether stored value a strictly beats stored value b. The
// order is widecolumn.Resolve's (higher timestamp, then its tie rules);
// versions Resolve considers equivalent, and malformed values (which always
// lose to well-formed ones), are ordered by their raw bytes so the result
// never depends on arrival order.
func beats(a, b []byte) bool {
	ta, va, oka := decodeValue(a)
	tb, vb, okb := decodeValue(b)
	switch {
	case oka != okb:
		return oka
	case !oka:
		return bytes.Compare(a, b) > 0
	case ta != tb:
		return ta > tb
	case bytes.Equal(va, vb):
		return false
	}
	ca := widecolumn.Cell{Timestamp: ta, Value: va}
	cb := widecolumn.Cell{Timestamp: tb, Value: vb}
	aFirst := bytes.Equal(widecolumn.Resolve(ca, cb).Value, va)
	aSecond := bytes.Equal(widecolumn.Resolve(cb, ca).Value, va)
	if aFirst == aSecond {
		return aFirst
	}
	// Resolve picked its first argument both times: equivalent versions.
	return bytes.Compare(va, vb) > 0
}
