package engine

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/internal/murmur3"
)

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	if s == "~" {
		return []byte{}
	}
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatalf("hex %q: %v", s, err)
	}
	return b
}

// encodeOne returns the row key of v as the only clustering value of a
// table (ASC or DESC), under a fixed partition.
func encodeOne(t testing.TB, ty *cql.Type, v []byte, desc bool) []byte {
	t.Helper()
	c, err := NewKeyCodec([]*cql.Type{cql.Scalar(cql.KindInt)}, []*cql.Type{ty}, []bool{desc}, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.RowKey([][]byte{{0, 0, 0, 1}}, [][]byte{v})
	if err != nil {
		t.Fatalf("encode %s %x: %v", ty, v, err)
	}
	return b
}

func sign(x int) int { return cmp.Compare(x, 0) }

// checkOrder verifies the encoding against the type order want (Cassandra's
// comparison of a and b): the same sign when want != 0; when Cassandra calls
// different bytes equal the encoding must still tell them apart.
func checkOrder(t testing.TB, ty *cql.Type, a, b []byte, want int) {
	t.Helper()
	for _, desc := range []bool{false, true} {
		got := sign(bytes.Compare(encodeOne(t, ty, a, desc), encodeOne(t, ty, b, desc)))
		w := sign(want)
		if desc {
			w = -w
		}
		switch {
		case w != 0 && got != w:
			t.Errorf("%s desc=%v: compare(enc %x, enc %x) = %d, want %d", ty, desc, a, b, got, w)
		case w == 0 && bytes.Equal(a, b) != (got == 0):
			t.Errorf("%s desc=%v: %x and %x: encoded compare %d, want 0 exactly when bytes are equal", ty, desc, a, b, got)
		}
	}
}

func TestKeyCodecComponentOrder(t *testing.T) {
	s := cql.Scalar
	f32 := func(f float32) string {
		return hex.EncodeToString(binary.BigEndian.AppendUint32(nil, math.Float32bits(f)))
	}
	f64 := func(f float64) string {
		return hex.EncodeToString(binary.BigEndian.AppendUint64(nil, math.Float64bits(f)))
	}
	tests := []struct {
		ty   *cql.Type
		a, b string // hex, ~ = empty
		want int
	}{
		{s(cql.KindInt), "~", "80000000", -1},
		{s(cql.KindInt), "ffffffff", "00000000", -1},
		{s(cql.KindInt), "80000000", "7fffffff", -1},
		{s(cql.KindBigint), "fffffffffffffffe", "ffffffffffffffff", -1},
		{s(cql.KindTinyint), "ff", "01", -1},
		{s(cql.KindSmallint), "8000", "ffff", -1},
		{s(cql.KindTimestamp), "ffffffffffffffff", "0000000000000000", -1},
		{s(cql.KindDate), "7fffffff", "80000000", -1}, // unsigned days
		{s(cql.KindTime), "0000000000000001", "00004e94914effff", -1},
		{s(cql.KindBoolean), "00", "01", -1},
		{s(cql.KindBoolean), "01", "02", 0}, // both true to Cassandra
		{s(cql.KindFloat), f32(float32(math.Copysign(0, -1))), f32(0), -1},
		{s(cql.KindFloat), f32(float32(math.Inf(1))), f32(float32(math.NaN())), -1},
		{s(cql.KindFloat), f32(-1), f32(-0.5), -1},
		{s(cql.KindDouble), f64(math.Copysign(0, -1)), f64(0), -1},
		{s(cql.KindDouble), f64(math.Inf(-1)), f64(-math.MaxFloat64), -1},
		{s(cql.KindDouble), f64(math.Inf(1)), "fff8000000000000", -1}, // negative NaN is still greatest
		{s(cql.KindDouble), "7ff8000000000000", "fff8000000000001", 0},
		{s(cql.KindText), "~", "00", -1},
		{s(cql.KindText), "61", "6100", -1},
		{s(cql.KindText), "6100", "6101", -1},
		{s(cql.KindText), "6100ff", "6101", -1},
		{s(cql.KindText), "61ff", "62", -1},
		{s(cql.KindBlob), "00", "0000", -1},
		{s(cql.KindInet), "7f000001", "00000000000000000000000000000001", 1},
		{s(cql.KindVarint), "ff7f", "80", -1}, // -129 < -128
		{s(cql.KindVarint), "80", "ff", -1},
		{s(cql.KindVarint), "ff", "00", -1},
		{s(cql.KindVarint), "00", "7f", -1},
		{s(cql.KindVarint), "7f", "0080", -1},
		{s(cql.KindVarint), "0080", "00ff", -1},
		{s(cql.KindVarint), "01", "0001", 0}, // padding: equal to Cassandra
		{s(cql.KindVarint), "ff", "ffff", 0},
		{s(cql.KindVarint), "0001", "02", -1},
		{s(cql.KindVarint), "80000000000000000000", "ff", -1},
		{s(cql.KindDecimal), "000000010a", "0000000264", 0},                                              // 1.0 = 1.00
		{s(cql.KindDecimal), "0000000213", "0000000114", -1},                                             // 0.19 < 2.0
		{s(cql.KindDecimal), "0000000113", "0000000002", -1},                                             // 1.9 < 2
		{s(cql.KindDecimal), "00000002ed", "00000001ec", 1},                                              // -0.19 > -2.0
		{s(cql.KindDecimal), "0000000000", "000000ff00", 0},                                              // 0 = 0E-255
		{s(cql.KindDecimal), "00000000ff", "0000000000", -1},                                             // -1 < 0
		{s(cql.KindDecimal), "8000000001", "7fffffff7f", 1},                                              // 10^(2^31) > 127E-(2^31-1)
		{s(cql.KindDecimal), "0000000001", "fffffffe01", -1},                                             // 1 < 100
		{s(cql.KindDecimal), "ffffffff0a", "0000000064", 0},                                              // 100 = 100
		{s(cql.KindDecimal), "000000000b", "ffffffff01", 1},                                              // 11 > 1E1
		{s(cql.KindUUID), "00000000000010008000000000000000", "00000000000040000000000000000000", -1},    // version first
		{s(cql.KindUUID), "ffffffff000010000000000000000000", "00000000000110000000000000000000", -1},    // v1: time_hi before time_low
		{s(cql.KindUUID), "00000000000040008000000000000000", "0000000000004000ff00000000000000", -1},    // unsigned low word
		{s(cql.KindTimeuuid), "00000000000010000000000000000000", "00000000000010008000000000000000", 1}, // signed low word
		{s(cql.KindTimeuuid), "00000001000010000000000000000000", "00000000000110000000000000000000", -1},
		{cql.FrozenOf(cql.ListOf(s(cql.KindInt))), "00000000", "0000000100000004ffffffff", -1},
		{cql.FrozenOf(cql.ListOf(s(cql.KindInt))), "0000000100000004ffffffff", "000000010000000400000000", -1},
		{cql.TupleOf(s(cql.KindInt), s(cql.KindText)), "ffffffff", "00000000", -1}, // null < empty
		{cql.TupleOf(s(cql.KindInt), s(cql.KindText)), "0000000400000001", "0000000400000001ffffffff", 0},
		{cql.TupleOf(s(cql.KindInt), s(cql.KindText)), "0000000400000001", "000000040000000100000000", -1},
	}
	for _, tc := range tests {
		a, b := mustHex(t, tc.a), mustHex(t, tc.b)
		if got := sign(refCompare(tc.ty, a, b)); got != tc.want {
			t.Errorf("refCompare(%s, %s, %s) = %d, want %d", tc.ty, tc.a, tc.b, got, tc.want)
		}
		checkOrder(t, tc.ty, a, b, tc.want)
	}
}

// goldenBlock is one type's values and Cassandra's pairwise compare signs.
type goldenBlock struct {
	ty     string
	values [][]byte
	signs  []string
}

func readGoldenOrder(t *testing.T) []goldenBlock {
	t.Helper()
	f, err := os.Open("testdata/cassandra_order.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []goldenBlock
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "type "):
			blocks = append(blocks, goldenBlock{ty: line[5:]})
		case strings.HasPrefix(line, "v "):
			b := &blocks[len(blocks)-1]
			b.values = append(b.values, mustHex(t, line[2:]))
		case strings.HasPrefix(line, "m "):
			b := &blocks[len(blocks)-1]
			b.signs = append(b.signs, line[2:])
		}
	}
	return blocks
}

// TestKeyCodecCassandraGolden checks both the encoding and the reference
// comparator against real Cassandra's comparators
// (testdata/cassandra_order.txt, every pair of ~40 values per key type).
func TestKeyCodecCassandraGolden(t *testing.T) {
	types := map[string]*cql.Type{}
	for _, ty := range testKeyTypes() {
		types[ty.String()] = ty
	}
	blocks := readGoldenOrder(t)
	if len(blocks) != len(types) {
		t.Errorf("golden file has %d types, tests know %d", len(blocks), len(types))
	}
	for _, blk := range blocks {
		ty := types[blk.ty]
		if ty == nil {
			t.Errorf("golden type %q unknown", blk.ty)
			continue
		}
		if len(blk.signs) != len(blk.values) {
			t.Fatalf("%s: %d rows for %d values", blk.ty, len(blk.signs), len(blk.values))
		}
		ties := 0
		for i, a := range blk.values {
			for j, b := range blk.values {
				want := map[byte]int{'-': -1, '0': 0, '+': 1}[blk.signs[i][j]]
				if got := sign(refCompare(ty, a, b)); got != want {
					t.Errorf("%s: refCompare(%x, %x) = %d, Cassandra says %d", blk.ty, a, b, got, want)
				}
				if want == 0 && i != j {
					ties++
				}
				checkOrder(t, ty, a, b, want)
			}
		}
		t.Logf("%s: %d values, %d Cassandra-equal pairs of different bytes", blk.ty, len(blk.values), ties)
	}
}

// randTable is a table with a composite partition key and clustering
// columns of mixed order for property tests.
func randTable(r *rand.Rand, salt int) (*KeyCodec, []*cql.Type, []*cql.Type, []bool) {
	types := testKeyTypes()
	pk := []*cql.Type{types[r.IntN(len(types))]}
	if r.IntN(2) == 0 {
		pk = append(pk, types[r.IntN(len(types))])
	}
	var ck []*cql.Type
	var desc []bool
	for i := r.IntN(4); i > 0; i-- {
		ck = append(ck, types[r.IntN(len(types))])
		desc = append(desc, r.IntN(2) == 0)
	}
	c, err := NewKeyCodec(pk, ck, desc, salt)
	if err != nil {
		panic(err)
	}
	return c, pk, ck, desc
}

func genRow(r *rand.Rand, pk, ck []*cql.Type) (pv, cv [][]byte) {
	for _, ty := range pk {
		v := genValue(r, ty, len(pk) > 1)
		for len(pk) == 1 && len(v) == 0 { // Cassandra: "Key may not be empty"
			v = genValue(r, ty, false)
		}
		pv = append(pv, v)
	}
	for _, ty := range ck {
		cv = append(cv, genValue(r, ty, true))
	}
	return pv, cv
}

func TestKeyCodecRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for iter := 0; iter < 3000; iter++ {
		salt := []int{0, 1, 16, 256}[iter%4]
		c, pk, ck, _ := randTable(r, salt)
		pv, cv := genRow(r, pk, ck)
		key, err := c.RowKey(pv, cv)
		if err != nil {
			t.Fatalf("RowKey(%x, %x): %v", pv, cv, err)
		}
		gotPK, gotCK, err := c.DecodeRowKey(key)
		if err != nil {
			t.Fatalf("DecodeRowKey(%x): %v", key, err)
		}
		if !equalValues(gotPK, pv) || !equalValues(gotCK, cv) {
			t.Fatalf("round trip of (%x, %x) gave (%x, %x)", pv, cv, gotPK, gotCK)
		}
		header, err := c.PartitionKey(pv)
		if err != nil {
			t.Fatal(err)
		}
		hp, hc, err := c.DecodeRowKey(header)
		if err != nil || !equalValues(hp, pv) || len(hc) != 0 {
			t.Fatalf("header round trip: (%x, %x, %v)", hp, hc, err)
		}
		if len(ck) > 0 && bytes.Compare(header, key) >= 0 {
			t.Fatalf("header %x does not sort before row %x", header, key)
		}
		prefix, err := c.PartitionPrefix(key)
		if err != nil || !bytes.HasPrefix(header, prefix) || len(prefix) != len(header)-1 {
			t.Fatalf("PartitionPrefix(%x) = %x, %v; header %x", key, prefix, err, header)
		}
		tok, err := c.KeyToken(key)
		if err != nil || tok != murmur3.Token(SerializePartitionKey(pv)) {
			t.Fatalf("KeyToken = %d, %v; want %d", tok, err, murmur3.Token(SerializePartitionKey(pv)))
		}
		if salt > 0 {
			ser := SerializePartitionKey(pv)
			if want := int(crc32IEEE(ser) % uint32(salt)); c.Bucket(key) != want {
				t.Fatalf("bucket %d, want %d", c.Bucket(key), want)
			}
		}
	}
}

func equalValues(a, b [][]byte) bool {
	return slices.EqualFunc(a, b, func(x, y []byte) bool { return bytes.Equal(x, y) && (x == nil) == (y == nil) })
}

// modelCompare orders full primary keys as Cassandra does: token, then the
// serialized partition key unsigned, then clustering columns in clustering
// order (-2/+2: the codec may order Cassandra-equal keys either way).
func modelCompare(ck []*cql.Type, desc []bool, pa, ca, pb, cb [][]byte) int {
	sa, sb := SerializePartitionKey(pa), SerializePartitionKey(pb)
	if c := cmp.Compare(murmur3.Token(sa), murmur3.Token(sb)); c != 0 {
		return c
	}
	if c := bytes.Compare(sa, sb); c != 0 {
		return c
	}
	tie := 0
	for i := range ck {
		c := sign(refCompare(ck[i], ca[i], cb[i]))
		if desc[i] {
			c = -c
		}
		if c != 0 {
			return c
		}
		if tie == 0 && !bytes.Equal(ca[i], cb[i]) {
			tie = 2
		}
	}
	return tie
}

func TestKeyCodecRowOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	for iter := 0; iter < 200; iter++ {
		c, pk, ck, desc := randTable(r, 0)
		type row struct {
			pv, cv [][]byte
			key    []byte
		}
		var rows []row
		// Few partitions, many rows each, so clustering order is exercised.
		var parts [][][]byte
		for i := 0; i < 3; i++ {
			pv, _ := genRow(r, pk, ck)
			parts = append(parts, pv)
		}
		for i := 0; i < 40; i++ {
			_, cv := genRow(r, pk, ck)
			pv := parts[r.IntN(len(parts))]
			key, err := c.RowKey(pv, cv)
			if err != nil {
				t.Fatal(err)
			}
			rows = append(rows, row{pv, cv, key})
		}
		for _, a := range rows {
			for _, b := range rows {
				want := modelCompare(ck, desc, a.pv, a.cv, b.pv, b.cv)
				got := sign(bytes.Compare(a.key, b.key))
				switch {
				case want == 2 || want == -2:
					if got == 0 {
						t.Fatalf("distinct rows (%x %x) and (%x %x) share key %x", a.pv, a.cv, b.pv, b.cv, a.key)
					}
				case got != want:
					t.Fatalf("table ck=%v desc=%v: rows (%x %x) vs (%x %x): key order %d, want %d",
						ck, desc, a.pv, a.cv, b.pv, b.cv, got, want)
				}
				if got != 0 && (bytes.HasPrefix(a.key, b.key) || bytes.HasPrefix(b.key, a.key)) {
					t.Fatalf("key %x is a prefix of %x", a.key, b.key)
				}
			}
		}
	}
}

func TestSerializePartitionKey(t *testing.T) {
	if got := SerializePartitionKey([][]byte{{1, 2}}); !bytes.Equal(got, []byte{1, 2}) {
		t.Errorf("single = %x", got)
	}
	got := SerializePartitionKey([][]byte{{0xAA}, {}, {1, 2}})
	want := mustHex(t, "0001aa00 000000 0002010200")
	if !bytes.Equal(got, want) {
		t.Errorf("composite = %x, want %x", got, want)
	}
	if got := SerializePartitionKey([][]byte{make([]byte, 70000), {1}}); got != nil {
		t.Errorf("oversized component serialized to %d bytes", len(got))
	}
}

func TestKeyCodecErrors(t *testing.T) {
	s := cql.Scalar
	if _, err := NewKeyCodec([]*cql.Type{s(cql.KindDuration)}, nil, nil, 0); !errors.Is(err, bindings.ErrInvalid) {
		t.Errorf("duration partition key: err = %v, want Invalid", err)
	}
	if _, err := NewKeyCodec([]*cql.Type{s(cql.KindInt)}, []*cql.Type{cql.TupleOf(s(cql.KindDuration))}, nil, 0); err == nil {
		t.Error("duration inside a tuple accepted")
	}
	if _, err := NewKeyCodec([]*cql.Type{s(cql.KindInt)}, nil, nil, 257); err == nil {
		t.Error("257 salt buckets accepted")
	}
	if _, err := NewKeyCodec(nil, nil, nil, 0); err == nil {
		t.Error("no partition key accepted")
	}
	if _, err := NewKeyCodec([]*cql.Type{s(cql.KindInt)}, []*cql.Type{s(cql.KindInt)}, []bool{true, false}, 0); err == nil {
		t.Error("DESC flag count mismatch accepted")
	}

	c, err := NewKeyCodec([]*cql.Type{s(cql.KindText)}, []*cql.Type{s(cql.KindInt), s(cql.KindTimeuuid)}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	tuuid := mustHex(t, "00000000000010008000000000000000")
	v4 := mustHex(t, "00000000000040008000000000000000")
	tests := []struct {
		name   string
		pk, ck [][]byte
	}{
		{"empty partition key", [][]byte{{}}, [][]byte{{0, 0, 0, 1}, tuuid}},
		{"null partition key", [][]byte{nil}, [][]byte{{0, 0, 0, 1}, tuuid}},
		{"too many partition values", [][]byte{{1}, {2}}, [][]byte{{0, 0, 0, 1}, tuuid}},
		{"partial clustering", [][]byte{{1}}, [][]byte{{0, 0, 0, 1}}},
		{"null clustering", [][]byte{{1}}, [][]byte{nil, tuuid}},
		{"short int", [][]byte{{1}}, [][]byte{{0, 1}, tuuid}},
		{"timeuuid v4", [][]byte{{1}}, [][]byte{{0, 0, 0, 1}, v4}},
	}
	for _, tc := range tests {
		if _, err := c.RowKey(tc.pk, tc.ck); !errors.Is(err, bindings.ErrInvalid) {
			t.Errorf("%s: err = %v, want Invalid", tc.name, err)
		}
	}

	// Values that are not valid serializations of their type.
	bad := []struct {
		ty *cql.Type
		v  string
	}{
		{s(cql.KindDouble), "0000"},
		{s(cql.KindUUID), "00"},
		{s(cql.KindBoolean), "0000"},
		{s(cql.KindDecimal), "00000001"},
		{cql.FrozenOf(cql.ListOf(s(cql.KindInt))), "000000"},
		{cql.FrozenOf(cql.ListOf(s(cql.KindInt))), "00000001ffffffff"},       // null element
		{cql.FrozenOf(cql.ListOf(s(cql.KindInt))), "0000000100000004000000"}, // truncated
		{cql.FrozenOf(cql.ListOf(s(cql.KindInt))), "000000000000"},           // trailing bytes
		{cql.FrozenOf(cql.ListOf(s(cql.KindInt))), "80000000"},               // negative count
		{cql.TupleOf(s(cql.KindInt)), "0000000400000001 00000000"},           // extra component
		{cql.TupleOf(s(cql.KindInt)), "fffffffe"},                            // bad length
		{cql.FrozenOf(cql.MapOf(s(cql.KindInt), s(cql.KindInt))), "0000000100000004 00000001"},
	}
	for _, tc := range bad {
		cc, err := NewKeyCodec([]*cql.Type{s(cql.KindInt)}, []*cql.Type{tc.ty}, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cc.RowKey([][]byte{{0, 0, 0, 1}}, [][]byte{mustHex(t, tc.v)}); !errors.Is(err, bindings.ErrInvalid) {
			t.Errorf("%s %s: err = %v, want Invalid", tc.ty, tc.v, err)
		}
	}
}

// TestDecodeRowKeyCorrupt feeds truncated and altered keys to the decoder:
// it must report ErrCorruptKey (or decode to a key that re-encodes to the
// same bytes), never panic.
func TestDecodeRowKeyCorrupt(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for iter := 0; iter < 300; iter++ {
		c, pk, ck, _ := randTable(r, []int{0, 7}[iter%2])
		pv, cv := genRow(r, pk, ck)
		key, err := c.RowKey(pv, cv)
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n < len(key); n++ {
			if _, _, err := c.DecodeRowKey(key[:n]); !errors.Is(err, ErrCorruptKey) {
				t.Fatalf("truncated key %x: err = %v, want ErrCorruptKey", key[:n], err)
			}
		}
		for k := 0; k < 20; k++ {
			mut := bytes.Clone(key)
			mut[r.IntN(len(mut))] ^= byte(1 + r.IntN(255))
			checkDecodeConsistent(t, c, mut)
		}
	}
}

// checkDecodeConsistent: a key either fails to decode with ErrCorruptKey
// or decodes to values whose encoding is the key itself.
func checkDecodeConsistent(t testing.TB, c *KeyCodec, key []byte) {
	t.Helper()
	pv, cv, err := c.DecodeRowKey(key)
	if err != nil {
		if !errors.Is(err, ErrCorruptKey) {
			t.Fatalf("DecodeRowKey(%x): err = %v, want ErrCorruptKey", key, err)
		}
		return
	}
	again, err := c.appendKey(nil, pv, cv)
	if err != nil || !bytes.Equal(again, key) {
		t.Fatalf("key %x decodes to (%x, %x) which encodes to %x (%v)", key, pv, cv, again, err)
	}
}

func BenchmarkRowKey(b *testing.B) {
	s := cql.Scalar
	c, err := NewKeyCodec([]*cql.Type{s(cql.KindText)}, []*cql.Type{s(cql.KindInt), s(cql.KindTimestamp)}, []bool{false, true}, 16)
	if err != nil {
		b.Fatal(err)
	}
	pk := [][]byte{[]byte("user0000012345")}
	ck := [][]byte{{0, 0, 0, 42}, {0, 0, 1, 0x8f, 0x5e, 0x2a, 0x3c, 0x00}}
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = c.AppendRowKey(buf[:0], pk, ck); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeRowKey(b *testing.B) {
	s := cql.Scalar
	c, err := NewKeyCodec([]*cql.Type{s(cql.KindText)}, []*cql.Type{s(cql.KindInt), s(cql.KindTimestamp)}, []bool{false, true}, 16)
	if err != nil {
		b.Fatal(err)
	}
	key, err := c.RowKey([][]byte{[]byte("user0000012345")}, [][]byte{{0, 0, 0, 42}, {0, 0, 1, 0x8f, 0x5e, 0x2a, 0x3c, 0x00}})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := c.DecodeRowKey(key); err != nil {
			b.Fatal(err)
		}
	}
}

func crc32IEEE(b []byte) uint32 { return crc32.ChecksumIEEE(b) }

// TestKeyCodecRoundTripEdges round-trips values whose canonical encodings
// need tie items (and the corner cases of those items).
func TestKeyCodecRoundTripEdges(t *testing.T) {
	s := cql.Scalar
	tests := []struct {
		ty *cql.Type
		v  string
	}{
		{s(cql.KindDecimal), "8000000014"},           // 20E+2147483648: exponent past int32 before ties
		{s(cql.KindDecimal), "7fffffff0a"},           // 10E-2147483647
		{s(cql.KindDecimal), "000000050000"},         // 0.00000, padded
		{s(cql.KindDecimal), "00000002ff9c"},         // -1.00
		{s(cql.KindDecimal), "fffffffe00e8d4a51000"}, // 10^12 * 100, padded
		{s(cql.KindVarint), "00000001"},
		{s(cql.KindVarint), "ffff80"},
		{s(cql.KindBoolean), "7f"},
		{s(cql.KindFloat), "ffc00001"},
		{s(cql.KindDouble), "7ff8000000000000"},
		{s(cql.KindDouble), "fff0000000000001"},
		{cql.TupleOf(s(cql.KindInt), s(cql.KindText)), "ffffffffffffffff"},
		{cql.TupleOf(s(cql.KindInt), s(cql.KindText)), "00000000ffffffff"},
		{cql.TupleOf(s(cql.KindBoolean), s(cql.KindVarint)), "0000000102ffffffff"},
		{cql.FrozenOf(cql.ListOf(s(cql.KindDecimal))), "00000002 00000005000000010a 000000050000000214"},
	}
	for _, tc := range tests {
		for _, desc := range []bool{false, true} {
			c, err := NewKeyCodec([]*cql.Type{s(cql.KindInt)}, []*cql.Type{tc.ty, s(cql.KindBoolean)}, []bool{desc, false}, 0)
			if err != nil {
				t.Fatal(err)
			}
			ck := [][]byte{mustHex(t, tc.v), {2}}
			key, err := c.RowKey([][]byte{{0, 0, 0, 1}}, ck)
			if err != nil {
				t.Fatalf("%s %s: %v", tc.ty, tc.v, err)
			}
			_, got, err := c.DecodeRowKey(key)
			if err != nil || !equalValues(got, ck) {
				t.Errorf("%s desc=%v: %x decoded to %x (%v)", tc.ty, desc, ck, got, err)
			}
		}
	}
}

// TestKeyCodecTiesDoNotDecide: values Cassandra calls equal (1.0, 1.00)
// must not decide the order before a later column does; a bound or prefix
// on one covers both.
func TestKeyCodecTiesDoNotDecide(t *testing.T) {
	s := cql.Scalar
	c, err := NewKeyCodec([]*cql.Type{s(cql.KindInt)}, []*cql.Type{s(cql.KindDecimal), s(cql.KindInt)}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	pk := [][]byte{{0, 0, 0, 1}}
	one0, one00 := mustHex(t, "000000010a"), mustHex(t, "0000000264")
	a, _ := c.RowKey(pk, [][]byte{one0, {0, 0, 0, 5}})
	b, _ := c.RowKey(pk, [][]byte{one00, {0, 0, 0, 3}})
	if bytes.Compare(b, a) >= 0 {
		t.Errorf("(1.00, 3) = %x does not sort before (1.0, 5) = %x", b, a)
	}
	rs, err := c.Slice(pk, [][]byte{one0}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !inRanges(rs, a) || !inRanges(rs, b) {
		t.Errorf("prefix 1.0 does not cover both rows: %v", rs)
	}
	rs, err = c.Slice(pk, nil, &Bound{Values: [][]byte{one00}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if inRanges(rs, a) || inRanges(rs, b) {
		t.Errorf("c > 1.00 selects a row equal to 1.00")
	}
}

// TestAppendEscaped: short values (the one-pass loop) and long ones (a
// search per zero byte) escape alike: every 0x00 as 0x00 0xFF, the end as
// 0x00 0x01, appended after what dst holds.
func TestAppendEscaped(t *testing.T) {
	want := func(s []byte) []byte {
		out := []byte("pre")
		for _, c := range s {
			out = append(out, c)
			if c == 0 {
				out = append(out, escByte)
			}
		}
		return append(out, 0, escEnd)
	}
	rng := rand.New(rand.NewPCG(7, 21))
	for n := 0; n <= 40; n++ {
		for _, zeroEvery := range []int{1, 2, 3, 8, 1 << 30} {
			s := make([]byte, n)
			for i := range s {
				if i%zeroEvery != 0 || zeroEvery == 1<<30 {
					s[i] = byte(1 + rng.IntN(255))
				}
			}
			if got := appendEscaped([]byte("pre"), s); !bytes.Equal(got, want(s)) {
				t.Fatalf("appendEscaped(% x) = % x, want % x", s, got, want(s))
			}
		}
	}
}
