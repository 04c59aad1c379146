package embedded

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"

	"github.com/dohyo/dohyo/engine/kv"
)

// version is one cell version in the merger tests.
type version struct {
	q  string
	ts int64
	v  string
}

func encodeOperand(vs []version) []byte {
	slices.SortFunc(vs, func(a, b version) int { return strings.Compare(a.q, b.q) })
	var out []byte
	for _, c := range vs {
		out = appendRowCell(out, []byte(c.q), c.ts, []byte(c.v))
	}
	return out
}

func decodeOperand(t *testing.T, b []byte) []version {
	t.Helper()
	cells, err := decodeRowCells(b, nil)
	if err != nil {
		t.Fatalf("decode %x: %v", b, err)
	}
	out := make([]version, len(cells))
	for i, c := range cells {
		out[i] = version{string(c.Qualifier), c.Timestamp, string(c.Value)}
	}
	return out
}

// fold merges operands with a fresh merger of the rows layout, adding them
// newer-first or older-first, and returns a copy of the result.
func fold(t *testing.T, m *pebble.Merger, ops [][]byte, newer bool) []byte {
	t.Helper()
	vm, err := m.Merge([]byte("k"), ops[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range ops[1:] {
		if newer {
			err = vm.MergeNewer(op)
		} else {
			err = vm.MergeOlder(op)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	got, closer, err := vm.Finish(true)
	if err != nil {
		t.Fatal(err)
	}
	out := append([]byte(nil), got...)
	if err := closer.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRowMergerFoldsInAnyOrder checks what Pebble needs of the rows
// layout's merge operator: folding a row's operands gives, per qualifier,
// the version beats ranks highest, whatever the order of the operands and
// however they are grouped into partial merges (compactions fold subsets
// and feed the result back as one operand); an operand that does not
// decode is left out as a whole.
func TestRowMergerFoldsInAnyOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	m := newRowMerger()
	quals := []string{"\x00", "\x02a", "\x02b", "\x04\x01xk", "\x04\x01xl"}
	vals := []string{
		string(kv.CellValue{Data: []byte("a")}.Encode()),
		string(kv.CellValue{Data: []byte("b")}.Encode()),
		string(kv.CellValue{Tombstone: true, Expiry: 5}.Encode()),
		string(kv.CellValue{Data: []byte("b"), TTL: 10, Expiry: 100}.Encode()),
	}
	for round := range 300 {
		n := 1 + rng.IntN(6)
		ops := make([][]byte, n)
		var all []version
		for i := range ops {
			seen := map[string]bool{}
			var vs []version
			for range 1 + rng.IntN(4) {
				q := quals[rng.IntN(len(quals))]
				if seen[q] {
					continue
				}
				seen[q] = true
				vs = append(vs, version{q, int64(rng.IntN(3)), vals[rng.IntN(len(vals))]})
			}
			all = append(all, vs...)
			ops[i] = encodeOperand(vs)
		}
		if n >= 2 && round%5 == 0 { // a corrupt operand among valid ones
			ops = append(ops, []byte{0x05, 'x'})
		}
		want := map[string]version{}
		for _, v := range all {
			if w, ok := want[v.q]; !ok || cellBeats(v.ts, []byte(v.v), w.ts, []byte(w.v)) {
				want[v.q] = v
			}
		}
		wantList := make([]version, 0, len(want))
		for _, v := range want {
			wantList = append(wantList, v)
		}
		wantEnc := encodeOperand(wantList)

		for try := range 4 {
			perm := slices.Clone(ops)
			rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			var got []byte
			if try%2 == 0 || len(perm) < 3 {
				got = fold(t, m, perm, try%4 == 0)
			} else { // fold a prefix first, as a compaction would
				cut := 2 + rng.IntN(len(perm)-2)
				partial := fold(t, m, perm[:cut], true)
				got = fold(t, m, append([][]byte{partial}, perm[cut:]...), false)
			}
			if len(perm) == 1 { // a single operand is returned as it is
				wantEnc = perm[0]
			}
			if !bytes.Equal(got, wantEnc) {
				t.Fatalf("round %d try %d: folded %v, want %v", round, try, decodeOperand(t, got), decodeOperand(t, wantEnc))
			}
		}
	}
}

// TestRowOrderKeepsOneWinnerPerQualifier: a mutation's cells are written
// in qualifier order, one per qualifier, the winner when one repeats.
func TestRowOrderKeepsOneWinnerPerQualifier(t *testing.T) {
	old := kv.CellValue{Data: []byte("old")}.Encode()
	newer := kv.CellValue{Data: []byte("new")}.Encode()
	for _, n := range []int{3, 40} { // insertion sort and slices.Sort
		var cells []kv.Cell
		for i := n - 1; i >= 0; i-- {
			q := []byte(fmt.Sprintf("\x02c%03d", i))
			cells = append(cells, kv.Cell{Qualifier: q, Timestamp: 5, Value: old},
				kv.Cell{Qualifier: q, Timestamp: 9, Value: newer})
		}
		order := rowOrder(cells, nil)
		if len(order) != n {
			t.Fatalf("%d qualifiers: %d cells kept", n, len(order))
		}
		for i, idx := range order {
			c := cells[idx]
			if want := fmt.Sprintf("\x02c%03d", i); string(c.Qualifier) != want || c.Timestamp != 9 {
				t.Errorf("%d qualifiers, position %d: %q@%d, want %q@9", n, i, c.Qualifier, c.Timestamp, want)
			}
		}
	}
}

// TestRowValueDecodeRejectsDamage: every truncation of a row value, and
// qualifiers out of order, read as corrupt rather than as other cells.
func TestRowValueDecodeRejectsDamage(t *testing.T) {
	v := encodeOperand([]version{{"\x00", 1, ""}, {"\x02a", 2, "xyz"}, {"\x02b", 3, strings.Repeat("v", 200)}})
	if got := decodeOperand(t, v); len(got) != 3 || got[2].v != strings.Repeat("v", 200) {
		t.Fatalf("round trip: %v", got)
	}
	boundaries := map[int]bool{0: true}
	rest := v
	for len(rest) > 0 {
		_, _, _, r, err := nextRowCell(rest)
		if err != nil {
			t.Fatal(err)
		}
		rest = r
		boundaries[len(v)-len(rest)] = true
	}
	for n := range len(v) {
		if _, err := decodeRowCells(v[:n], nil); boundaries[n] != (err == nil) {
			t.Errorf("prefix of %d bytes: err %v (cell boundary: %v)", n, err, boundaries[n])
		}
	}
	swapped := append(appendRowCell(nil, []byte("\x02b"), 1, nil), appendRowCell(nil, []byte("\x02a"), 1, nil)...)
	if _, err := decodeRowCells(swapped, nil); !errors.Is(err, errCorruptRow) {
		t.Errorf("qualifiers out of order: err %v, want errCorruptRow", err)
	}
	// A length in a longer form than the encoder writes (19 as 0x93 0x00,
	// found by FuzzRowValue) is damage: it would decode to the same cells
	// as a different value.
	cell := appendRowCell(nil, []byte("q"), 1, []byte("value"))
	overlong := append([]byte{cell[0] | 0x80, 0}, cell[1:]...)
	if _, err := decodeRowCells(overlong, nil); !errors.Is(err, errCorruptRow) {
		t.Errorf("overlong qualifier length: err %v, want errCorruptRow", err)
	}
	vat := 1 + 1 + tsLen
	overlong = append(append(cell[:vat:vat], cell[vat]|0x80, 0), cell[vat+1:]...)
	if _, err := decodeRowCells(overlong, nil); !errors.Is(err, errCorruptRow) {
		t.Errorf("overlong value length: err %v, want errCorruptRow", err)
	}
}

// FuzzRowValue: decoding arbitrary bytes never panics, a value that decodes
// re-encodes to itself, and folding it with a valid operand never panics.
func FuzzRowValue(f *testing.F) {
	f.Add(encodeOperand([]version{{"\x00", 1, ""}, {"\x02a", 2, "xyz"}}))
	f.Add([]byte{})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Add([]byte{1, 'a', 0, 0, 0, 0, 0, 0, 0, 1, 0x80})
	m := newRowMerger()
	valid := encodeOperand([]version{{"\x02a", 5, "v"}})
	f.Fuzz(func(t *testing.T, b []byte) {
		cells, err := decodeRowCells(b, nil)
		if err == nil {
			var re []byte
			for _, c := range cells {
				re = appendRowCell(re, c.Qualifier, c.Timestamp, c.Value)
			}
			if !bytes.Equal(re, b) {
				t.Fatalf("%x decodes to %d cells that encode as %x", b, len(cells), re)
			}
		}
		_ = fold(t, m, [][]byte{b, valid}, true)
	})
}

// TestStoreKeepsItsFormat: a store keeps the layout it was created with;
// asking for the other one is an error, and Pebble itself (as a build
// that knows only the cells layout would open it) refuses a rows store.
func TestStoreKeepsItsFormat(t *testing.T) {
	ctx := t.Context()
	spec := &kv.TableSpec{Keyspace: "ks", Name: "t", ID: "id-t"}
	for _, tc := range []struct {
		created, other Format
	}{{FormatCells, FormatRows}, {FormatDefault, FormatCells}} {
		dir := t.TempDir()
		s := openDisk(t, dir, tc.created)
		want := cmpFormat(tc.created)
		if s.Format() != want {
			t.Fatalf("created with %v: format %v, want %v", tc.created, s.Format(), want)
		}
		if err := s.CreateTable(ctx, spec); err != nil {
			t.Fatal(err)
		}
		if err := s.Apply(ctx, []kv.Mutation{{Table: spec, Row: []byte("r"), Cells: []kv.Cell{val(3, "x")}}}); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s = openDisk(t, dir, FormatDefault)
		if s.Format() != want {
			t.Errorf("reopened: format %v, want %v", s.Format(), want)
		}
		if got := cellData(t, mustGet(t, s, spec, "r")); fmt.Sprint(got) != "[c@3=x]" {
			t.Errorf("reopened %v store: %v", want, got)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if s, err := OpenStore(Config{Dir: dir, Format: tc.other}); err == nil {
			s.Close()
			t.Errorf("a %v store opened as %v", want, tc.other)
		} else if !strings.Contains(err.Error(), "keeps the format it was created with") {
			t.Errorf("a %v store opened as %v: %v", want, tc.other, err)
		}
	}
	dir := t.TempDir()
	openDisk(t, dir, FormatRows).Close()
	db, err := pebble.Open(dir, &pebble.Options{Merger: newMerger(), FormatMajorVersion: pebble.FormatValueSeparation})
	if err == nil {
		db.Close()
		t.Fatal("Pebble opened a rows store with the cells layout's merger")
	}
	if !strings.Contains(err.Error(), "merger name") {
		t.Errorf("rows store opened with the cells merger: %v, want a merger name mismatch", err)
	}
}

func cmpFormat(f Format) Format {
	if f == FormatDefault {
		return FormatRows
	}
	return f
}
