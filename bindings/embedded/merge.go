package embedded

import (
	"bytes"
	"io"
	"sync"

	"github.com/cockroachdb/pebble/v2"

	"github.com/dohyo/dohyo/engine/kv"
)

// Merge operator names. Pebble records the merger's name in the database
// and refuses to open it with another, so the name also tells a store's
// layout (Format): MergerName for the cells layout, rowsMergerName for the
// rows layout. A build that predates the rows layout cannot open a store
// written in it.
const (
	MergerName     = "dohyo.widecolumn.resolve.v1"
	rowsMergerName = "dohyo.widecolumn.rows.v2"
)

// newMerger returns the merge operator that keeps the winning version of a
// cell. Every write is a Merge, so writes never read: Pebble resolves
// versions lazily, during reads and compactions. "Keep the winner" is max
// under a total order on stored values, hence associative, commutative and
// deterministic, as Pebble requires.
//
// Mergers are pooled: every read of a cell resolves its operands through
// one (a single operand too), so a fresh merger and value buffer per cell
// were two allocations per cell read. Finish hands Pebble the merger itself
// as the value's Closer; Pebble closes it once it no longer uses the value,
// and Close returns it to the pool.
func newMerger() *pebble.Merger {
	pool := &sync.Pool{New: func() any { return &resolveMerger{} }}
	return &pebble.Merger{
		Name: MergerName,
		Merge: func(_, value []byte) (pebble.ValueMerger, error) {
			m := pool.Get().(*resolveMerger)
			m.pool = pool
			m.win = append(m.win[:0], value...)
			return m, nil
		},
	}
}

type resolveMerger struct {
	win  []byte
	pool *sync.Pool
}

// maxPooledValue bounds the buffers kept in the pool (larger values are
// left to the garbage collector).
const maxPooledValue = 64 << 10

// Close returns the merger to its pool; Pebble no longer reads its value.
func (m *resolveMerger) Close() error {
	if p := m.pool; p != nil && cap(m.win) <= maxPooledValue {
		m.pool = nil // a second Close must not pool it twice
		p.Put(m)
	}
	return nil
}

func (m *resolveMerger) MergeNewer(v []byte) error { m.take(v); return nil }
func (m *resolveMerger) MergeOlder(v []byte) error { m.take(v); return nil }

func (m *resolveMerger) take(v []byte) {
	if beats(v, m.win) {
		m.win = append(m.win[:0], v...)
	}
}

func (m *resolveMerger) Finish(bool) ([]byte, io.Closer, error) { return m.win, m, nil }

// beats reports whether stored value a strictly beats stored value b. The
// order is kv.Resolve's (higher timestamp, then its tie rules);
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
	}
	return cellBeats(ta, va, tb, vb)
}

// cellBeats is beats on decoded versions (timestamp and cell value).
func cellBeats(ta int64, va []byte, tb int64, vb []byte) bool {
	switch {
	case ta != tb:
		return ta > tb
	case bytes.Equal(va, vb):
		return false
	}
	ca := kv.Cell{Timestamp: ta, Value: va}
	cb := kv.Cell{Timestamp: tb, Value: vb}
	aFirst := bytes.Equal(kv.Resolve(ca, cb).Value, va)
	aSecond := bytes.Equal(kv.Resolve(cb, ca).Value, va)
	if aFirst == aSecond {
		return aFirst
	}
	// Resolve picked its first argument both times: equivalent versions.
	return bytes.Compare(va, vb) > 0
}
