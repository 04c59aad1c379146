package engine

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/dohyo/dohyo/cql"
)

// fuzzCodec builds a table whose clustering columns are two key types chosen
// by sel (DESC per bit of sel), over an int partition key.
func fuzzCodec(t *testing.T, sel uint16, salt uint8) (*KeyCodec, []*cql.Type, []bool) {
	t.Helper()
	types := testKeyTypes()
	ck := []*cql.Type{types[int(sel&0xFF)%len(types)], types[int(sel>>8&0x3F)%len(types)]}
	desc := []bool{sel&0x4000 != 0, sel&0x8000 != 0}
	c, err := NewKeyCodec([]*cql.Type{cql.Scalar(cql.KindInt)}, ck, desc, int(salt))
	if err != nil {
		t.Fatal(err)
	}
	return c, ck, desc
}

// FuzzKeyCodecRoundTrip: generated and raw values round-trip through
// RowKey/DecodeRowKey exactly; arbitrary bytes never crash the decoder and
// decode only to keys that re-encode to themselves.
func FuzzKeyCodecRoundTrip(f *testing.F) {
	f.Add(uint16(0x1312), uint8(0), uint64(1), []byte{0, 0, 0, 1}, []byte("ab\x00c"))
	f.Add(uint16(0xC012), uint8(8), uint64(2), []byte{0, 0, 0, 10, 0x0a}, []byte{0, 0, 0, 1, 0xff})
	f.Add(uint16(0x4017), uint8(255), uint64(3), []byte{0xff, 0xff, 0xff, 0xff}, []byte{0})
	f.Fuzz(func(t *testing.T, sel uint16, salt uint8, seed uint64, a, b []byte) {
		c, ck, _ := fuzzCodec(t, sel, salt)
		pk := [][]byte{{0, 0, 0, 7}}
		r := rand.New(rand.NewPCG(seed, uint64(sel)))
		rows := [][][]byte{
			{genValue(r, ck[0], true), genValue(r, ck[1], true)},
			{a, b}, // raw: only if valid for the types
		}
		for i, row := range rows {
			key, err := c.RowKey(pk, row)
			if err != nil {
				if i == 0 {
					t.Fatalf("generated row (%x, %x) of %v: %v", row[0], row[1], ck, err)
				}
				continue
			}
			gotPK, gotCK, err := c.DecodeRowKey(key)
			if err != nil {
				t.Fatalf("DecodeRowKey(%x): %v", key, err)
			}
			if !equalValues(gotPK, pk) || !equalValues(gotCK, row) {
				t.Fatalf("%v: (%x, %x) decoded to (%x, %x)", ck, row[0], row[1], gotCK[0], gotCK[1])
			}
		}
		// Raw bytes as a key, and as the clustering part after a valid
		// partition prefix.
		checkDecodeConsistent(t, c, a)
		p, err := c.appendPartitionPrefix(nil, pk)
		if err != nil {
			t.Fatal(err)
		}
		checkDecodeConsistent(t, c, append(p, a...))
	})
}

// FuzzKeyCodecOrder: the order of two rows' keys agrees with Cassandra's
// order of their clustering values (reference comparator, DESC applied,
// column by column); keys are equal only for identical values.
func FuzzKeyCodecOrder(f *testing.F) {
	f.Add(uint16(0x1312), uint64(1), uint64(2), []byte{0, 0, 0, 1}, []byte{0, 0, 0, 2})
	f.Add(uint16(0xC012), uint64(3), uint64(4), []byte{0, 0, 0, 1, 0x0a}, []byte{0, 0, 0, 2, 0x64})
	f.Add(uint16(0x4009), uint64(5), uint64(6), []byte{0x7f, 0xf8, 0, 0, 0, 0, 0, 0}, []byte{0x80, 0, 0, 0, 0, 0, 0, 0})
	f.Add(uint16(0x0011), uint64(7), uint64(8), []byte{0xff, 0x7f}, []byte{0x80})
	f.Fuzz(func(t *testing.T, sel uint16, s1, s2 uint64, a, b []byte) {
		c, ck, desc := fuzzCodec(t, sel, 0)
		pk := [][]byte{{0, 0, 0, 7}}
		r1 := rand.New(rand.NewPCG(s1, 1))
		r2 := rand.New(rand.NewPCG(s2, 2))
		ga := [][]byte{genValue(r1, ck[0], true), genValue(r1, ck[1], true)}
		gb := [][]byte{genValue(r2, ck[0], true), genValue(r2, ck[1], true)}
		if s1%3 == 0 {
			gb[0] = ga[0] // equal first column: the second decides
		}
		pairs := [][2][][]byte{
			{ga, gb},
			{{a, ga[1]}, {b, gb[1]}}, // raw first column when valid
		}
		for _, p := range pairs {
			ka, errA := c.RowKey(pk, p[0])
			kb, errB := c.RowKey(pk, p[1])
			if errA != nil || errB != nil {
				continue
			}
			want := modelCompare(ck, desc, pk, p[0], pk, p[1])
			got := sign(bytes.Compare(ka, kb))
			if want == 2 || want == -2 {
				if got == 0 {
					t.Fatalf("%v desc=%v: distinct rows (%x) (%x) share a key", ck, desc, p[0], p[1])
				}
				continue
			}
			if got != want {
				t.Fatalf("%v desc=%v: rows (%x) vs (%x): key order %d, want %d", ck, desc, p[0], p[1], got, want)
			}
		}
	})
}
