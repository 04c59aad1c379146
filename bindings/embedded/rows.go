package embedded

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"slices"
	"sync"

	"github.com/cockroachdb/pebble/v2"

	"github.com/dohyo/dohyo/engine/kv"
)

// The rows layout (FormatRows) keeps each row under one Pebble key,
//
//	0x01 <table no. uint32> <row>
//
// whose value is the row's cells in ascending qualifier order, each
//
//	uvarint(len(qualifier)) qualifier  timestamp (int64, big-endian)
//	uvarint(len(value)) value
//
// with every qualifier at most once. Writes are blind Merges of the cells a
// mutation sets; rowMerger folds a row's operands cell by cell, keeping for
// each qualifier the version beats ranks highest, as the cells layout's
// merger does for a single cell. Row keys are prefix-free, so keys sort as
// rows and a scan's row bounds are Pebble key bounds.

var errCorruptRow = errors.New("embedded: corrupt row value")

// rowCellLen is the encoded size of one cell of a row value.
func rowCellLen(q, v []byte) int {
	return uvarintLen(len(q)) + len(q) + tsLen + uvarintLen(len(v)) + len(v)
}

func uvarintLen(n int) int {
	l := 1
	for ; n >= 0x80; n >>= 7 {
		l++
	}
	return l
}

// appendRowCell appends one encoded cell to dst.
func appendRowCell(dst, q []byte, ts int64, v []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(q)))
	dst = append(dst, q...)
	dst = binary.BigEndian.AppendUint64(dst, uint64(ts))
	dst = binary.AppendUvarint(dst, uint64(len(v)))
	return append(dst, v...)
}

// nextRowCell decodes the cell at the start of b and returns the rest.
// Qualifier and value alias b.
func nextRowCell(b []byte) (q []byte, ts int64, v, rest []byte, err error) {
	n, k := minimalUvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return nil, 0, nil, nil, errCorruptRow
	}
	b = b[k:]
	q, b = b[:n:n], b[n:]
	if len(b) < tsLen {
		return nil, 0, nil, nil, errCorruptRow
	}
	ts = int64(binary.BigEndian.Uint64(b))
	b = b[tsLen:]
	n, k = minimalUvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return nil, 0, nil, nil, errCorruptRow
	}
	b = b[k:]
	return q, ts, b[:n:n], b[n:], nil
}

// minimalUvarint is binary.Uvarint for the lengths appendRowCell writes,
// which are always in their shortest form: a longer one (a last byte of
// zero, e.g. 0x93 0x00 for 19) is damage and reads as k = 0. Accepting it
// would let two different values decode to the same cells.
func minimalUvarint(b []byte) (uint64, int) {
	n, k := binary.Uvarint(b)
	if k > 1 && b[k-1] == 0 {
		return 0, 0
	}
	return n, k
}

// decodeRowCells appends the cells of row value v to cells. The cells alias
// v; qualifiers must be strictly ascending.
func decodeRowCells(v []byte, cells []kv.Cell) ([]kv.Cell, error) {
	start := len(cells)
	for len(v) > 0 {
		q, ts, cv, rest, err := nextRowCell(v)
		if err != nil {
			return cells[:start], err
		}
		if len(cells) > start && bytes.Compare(cells[len(cells)-1].Qualifier, q) >= 0 {
			return cells[:start], errCorruptRow
		}
		cells = append(cells, kv.Cell{Qualifier: q, Timestamp: ts, Value: cv})
		v = rest
	}
	return cells, nil
}

// rowOrder returns the indices of the cells a mutation writes, in ascending
// qualifier order, one per qualifier (the winner by cellBeats when a
// mutation sets a qualifier twice). The result may use idx's storage.
func rowOrder(cells []kv.Cell, idx []int) []int {
	idx = idx[:0]
	for i := range cells {
		idx = append(idx, i)
	}
	cmp := func(a, b int) int { return bytes.Compare(cells[a].Qualifier, cells[b].Qualifier) }
	if len(idx) <= 16 { // insertion sort: no allocation, few cells
		for i := 1; i < len(idx); i++ {
			for j := i; j > 0 && cmp(idx[j-1], idx[j]) > 0; j-- {
				idx[j-1], idx[j] = idx[j], idx[j-1]
			}
		}
	} else {
		slices.SortStableFunc(idx, cmp)
	}
	out := idx[:0]
	for _, i := range idx {
		if n := len(out); n > 0 && bytes.Equal(cells[out[n-1]].Qualifier, cells[i].Qualifier) {
			w, c := &cells[out[n-1]], &cells[i]
			if cellBeats(c.Timestamp, c.Value, w.Timestamp, w.Value) {
				out[n-1] = i
			}
			continue
		}
		out = append(out, i)
	}
	return out
}

// newRowMerger returns the merge operator of the rows layout. Like the cells
// layout's, it is pooled: every read of a row resolves its operands
// through one, and Pebble closes it (returning it to the pool) once it no
// longer uses the value.
func newRowMerger() *pebble.Merger {
	pool := &sync.Pool{New: func() any { return &rowMerger{} }}
	return &pebble.Merger{
		Name: rowsMergerName,
		Merge: func(_, value []byte) (pebble.ValueMerger, error) {
			m := pool.Get().(*rowMerger)
			m.pool = pool
			m.buf, m.ends = append(m.buf[:0], value...), append(m.ends[:0], len(value))
			return m, nil
		},
	}
}

// rowMerger collects a row's operands (copied: Pebble owns the slices it
// passes) and folds them in Finish. Folding keeps, per qualifier, the cell
// beats ranks highest; that is a maximum under a total order, so the result
// does not depend on the order or grouping of the operands, as Pebble
// requires of a merge operator. An operand that does not decode is left
// out of a fold (it cannot be corrected, and dropping it whole keeps the
// result independent of order); a row whose only operand is corrupt reads
// as an error.
type rowMerger struct {
	buf   []byte // operands, back to back
	ends  []int  // end offset of each operand in buf
	cells []mergeCell
	out   []byte
	pool  *sync.Pool
}

type mergeCell struct {
	q, v []byte
	ts   int64
}

func (m *rowMerger) add(v []byte) {
	m.buf = append(m.buf, v...)
	m.ends = append(m.ends, len(m.buf))
}

func (m *rowMerger) MergeNewer(v []byte) error { m.add(v); return nil }
func (m *rowMerger) MergeOlder(v []byte) error { m.add(v); return nil }

func (m *rowMerger) Finish(bool) ([]byte, io.Closer, error) {
	if len(m.ends) == 1 {
		return m.buf, m, nil
	}
	m.cells = m.cells[:0]
	start := 0
	for _, end := range m.ends {
		m.cells = appendOperand(m.cells, m.buf[start:end])
		start = end
	}
	slices.SortFunc(m.cells, func(a, b mergeCell) int { return bytes.Compare(a.q, b.q) })
	m.out = m.out[:0]
	for i := 0; i < len(m.cells); {
		w := m.cells[i]
		j := i + 1
		for ; j < len(m.cells) && bytes.Equal(m.cells[j].q, w.q); j++ {
			if c := m.cells[j]; cellBeats(c.ts, c.v, w.ts, w.v) {
				w = c
			}
		}
		m.out = appendRowCell(m.out, w.q, w.ts, w.v)
		i = j
	}
	return m.out, m, nil
}

// appendOperand appends the cells of one operand, or none if it does not
// decode.
func appendOperand(cells []mergeCell, op []byte) []mergeCell {
	start := len(cells)
	for len(op) > 0 {
		q, ts, v, rest, err := nextRowCell(op)
		if err != nil {
			return cells[:start]
		}
		cells = append(cells, mergeCell{q: q, v: v, ts: ts})
		op = rest
	}
	return cells
}

// Close returns the merger to its pool; Pebble no longer reads its value.
func (m *rowMerger) Close() error {
	if p := m.pool; p != nil && cap(m.buf)+cap(m.out) <= maxPooledValue {
		m.pool = nil // a second Close must not pool it twice
		clear(m.cells[:cap(m.cells)])
		p.Put(m)
	}
	return nil
}
