package kvtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/dohyo/dohyo/engine/kv"
)

// Options declares documented differences of a store.
type Options struct {
	// SkipEqualTimestampTies skips the cases where two versions of a cell
	// share a timestamp: stores that cannot break such ties by
	// kv.Resolve (HBase keeps the last write) declare it.
	SkipEqualTimestampTies bool
}

// Run runs the suite with default options. newKV must return a fresh store
// (an empty one, or one whose other tables do not matter); the suite closes
// it at the end of each case and drops the tables it created.
func Run(t *testing.T, newKV func(t *testing.T) kv.KV) {
	RunWith(t, newKV, Options{})
}

// RunWith runs the suite with options.
func RunWith(t *testing.T, newKV func(t *testing.T) kv.KV, o Options) {
	cases := []struct {
		name string
		fn   func(*testing.T, *harness)
		skip bool
	}{
		{"Tables", testTables, false},
		{"ApplyGet", testApplyGet, false},
		{"CellOrder", testCellOrder, false},
		{"HigherTimestampWins", testHigherTimestampWins, false},
		{"EqualTimestampTies", testEqualTimestampTies, o.SkipEqualTimestampTies},
		{"GetMissingRows", testGetMissing, false},
		{"Scan", testScan, false},
		{"ScanBoundsInsideRows", testScanStraddle, false},
		{"TableIsolation", testIsolation, false},
		{"Meta", testMeta, false},
		{"Cancel", testCancel, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.skip {
				t.Skip("store declared it cannot run this case")
			}
			h := &harness{t: t, kv: newKV(t), ctx: t.Context(), run: randomID()}
			t.Cleanup(h.cleanup)
			c.fn(t, h)
		})
	}
}

// harness holds the store under test and the tables a case created.
type harness struct {
	t      *testing.T
	kv     kv.KV
	ctx    context.Context
	run    string
	n      int
	tables []*kv.TableSpec
}

func randomID() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// table creates a table with a unique ID (stores on real servers keep
// tables across runs).
func (h *harness) table(name string) *kv.TableSpec {
	h.t.Helper()
	h.n++
	ts := &kv.TableSpec{
		Keyspace: "kvtest",
		Name:     name,
		ID:       fmt.Sprintf("kvt%s%d", h.run, h.n),
	}
	if err := h.kv.CreateTable(h.ctx, ts); err != nil {
		h.t.Fatalf("CreateTable(%s): %v", name, err)
	}
	h.tables = append(h.tables, ts)
	return ts
}

func (h *harness) cleanup() {
	ctx := context.Background() // t.Context is already done in cleanup
	for _, ts := range h.tables {
		if err := h.kv.DropTable(ctx, ts); err != nil {
			h.t.Errorf("cleanup: DropTable(%s): %v", ts.Name, err)
		}
	}
	if err := h.kv.Close(); err != nil {
		h.t.Errorf("Close: %v", err)
	}
}

func (h *harness) apply(muts ...kv.Mutation) {
	h.t.Helper()
	if err := h.kv.Apply(h.ctx, muts); err != nil {
		h.t.Fatalf("Apply: %v", err)
	}
}

func (h *harness) get(ts *kv.TableSpec, keys ...string) []kv.Row {
	h.t.Helper()
	bk := make([][]byte, len(keys))
	for i, k := range keys {
		bk[i] = []byte(k)
	}
	rows, err := h.kv.Get(h.ctx, ts, bk)
	if err != nil {
		h.t.Fatalf("Get: %v", err)
	}
	if len(rows) != len(keys) {
		h.t.Fatalf("Get(%q) returned %d rows, want %d", keys, len(rows), len(keys))
	}
	return rows
}

// scan reads a whole scan and closes the iterator.
func (h *harness) scan(ts *kv.TableSpec, r kv.ScanRange) []kv.Row {
	h.t.Helper()
	it, err := h.kv.Scan(h.ctx, ts, r)
	if err != nil {
		h.t.Fatalf("Scan(%s): %v", fmtRange(r), err)
	}
	var rows []kv.Row
	for {
		row, ok := it.Next(h.ctx)
		if !ok {
			break
		}
		rows = append(rows, row)
	}
	if err := it.Err(); err != nil {
		h.t.Fatalf("Scan(%s).Err: %v", fmtRange(r), err)
	}
	if err := it.Close(); err != nil {
		h.t.Fatalf("Scan(%s).Close: %v", fmtRange(r), err)
	}
	return rows
}

// ---- building cells ----

// baseTS is a plausible CQL write time (µs); HBase rejects negative ones.
const baseTS int64 = 1_700_000_000_000_000

func live(data string) []byte { return kv.CellValue{Data: []byte(data)}.Encode() }

func tomb(deletedAt int64) []byte {
	return kv.CellValue{Tombstone: true, Expiry: deletedAt}.Encode()
}

func cell(q string, ts int64, v []byte) kv.Cell {
	return kv.Cell{Qualifier: []byte(q), Timestamp: ts, Value: v}
}

func mut(ts *kv.TableSpec, row string, cells ...kv.Cell) kv.Mutation {
	return kv.Mutation{Table: ts, Row: []byte(row), Cells: cells}
}

func row(key string, cells ...kv.Cell) kv.Row {
	return kv.Row{Key: []byte(key), Cells: cells}
}

// ---- comparing ----

func fmtRange(r kv.ScanRange) string {
	return fmt.Sprintf("start=%q stop=%q reverse=%v limit=%d", r.Start, r.Stop, r.Reverse, r.Limit)
}

func fmtCell(c kv.Cell) string {
	desc := fmt.Sprintf("%x", c.Value)
	if v, err := kv.DecodeCellValue(c.Value); err == nil {
		if v.Tombstone {
			desc = fmt.Sprintf("tombstone@%d", v.Expiry)
		} else {
			desc = fmt.Sprintf("%q", v.Data)
		}
	}
	return fmt.Sprintf("%q@%d=%s", c.Qualifier, c.Timestamp, desc)
}

func fmtRow(r kv.Row) string {
	parts := make([]string, len(r.Cells))
	for i, c := range r.Cells {
		parts[i] = fmtCell(c)
	}
	return fmt.Sprintf("%q{%s}", r.Key, strings.Join(parts, " "))
}

func fmtRows(rs []kv.Row) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmtRow(r)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func rowEqual(a, b kv.Row) bool {
	if !bytes.Equal(a.Key, b.Key) || len(a.Cells) != len(b.Cells) {
		return false
	}
	for i := range a.Cells {
		x, y := a.Cells[i], b.Cells[i]
		if !bytes.Equal(x.Qualifier, y.Qualifier) || x.Timestamp != y.Timestamp || !bytes.Equal(x.Value, y.Value) {
			return false
		}
	}
	return true
}

func rowsEqual(a, b []kv.Row) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !rowEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

func checkRows(t *testing.T, what string, got, want []kv.Row) {
	t.Helper()
	if !rowsEqual(got, want) {
		t.Errorf("%s:\n got  %s\n want %s", what, fmtRows(got), fmtRows(want))
	}
}
