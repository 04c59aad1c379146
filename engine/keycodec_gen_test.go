package engine

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/rand/v2"

	"github.com/dohyo/dohyo/cql"
)

// Random CQL-serialized values for key tests, biased towards edge cases and
// towards collisions (small alphabets), so order tests see many ties and
// near-ties.

// testKeyTypes are the key types covered by table, property and fuzz tests.
func testKeyTypes() []*cql.Type {
	s := cql.Scalar
	udt := &cql.Type{Kind: cql.KindUDT, Frozen: true, Keyspace: "ks", Name: "pt",
		Fields: []string{"a", "b"}, Elems: []*cql.Type{s(cql.KindInt), s(cql.KindText)}}
	return []*cql.Type{
		s(cql.KindInt), s(cql.KindBigint), s(cql.KindSmallint), s(cql.KindTinyint),
		s(cql.KindCounter), s(cql.KindTimestamp), s(cql.KindTime), s(cql.KindDate),
		s(cql.KindBoolean), s(cql.KindFloat), s(cql.KindDouble), s(cql.KindAscii),
		s(cql.KindText), s(cql.KindBlob), s(cql.KindInet), s(cql.KindUUID),
		s(cql.KindTimeuuid), s(cql.KindVarint), s(cql.KindDecimal),
		cql.FrozenOf(cql.ListOf(s(cql.KindInt))),
		cql.FrozenOf(cql.SetOf(s(cql.KindText))),
		cql.FrozenOf(cql.MapOf(s(cql.KindInt), s(cql.KindText))),
		cql.TupleOf(s(cql.KindInt), s(cql.KindText)),
		cql.TupleOf(s(cql.KindVarint), cql.FrozenOf(cql.ListOf(s(cql.KindDouble))), s(cql.KindUUID)),
		cql.FrozenOf(cql.ListOf(cql.TupleOf(s(cql.KindDecimal), s(cql.KindBoolean)))),
		udt,
	}
}

// genValue returns a random valid non-null value of t (sometimes empty when
// allowEmpty).
func genValue(r *rand.Rand, t *cql.Type, allowEmpty bool) []byte {
	if t.Kind == cql.KindVector { // never empty, elements never null
		items := make([][]byte, t.Dim)
		for i := range items {
			items[i] = genValue(r, t.Elems[0], t.Elems[0].Kind == cql.KindText)
		}
		return cql.BuildVector(t.Elems[0], items)
	}
	if allowEmpty && r.IntN(20) == 0 {
		return []byte{}
	}
	switch t.Kind {
	case cql.KindInt:
		return genInt(r, 4)
	case cql.KindBigint, cql.KindCounter, cql.KindTimestamp:
		return genInt(r, 8)
	case cql.KindSmallint:
		return genInt(r, 2)
	case cql.KindTinyint:
		return genInt(r, 1)
	case cql.KindDate:
		return binary.BigEndian.AppendUint32(nil, pick(r, []uint32{0, 1, 1 << 31, 1<<31 - 1, 1<<31 + 1, math.MaxUint32}, r.Uint32()))
	case cql.KindTime:
		const maxNanos = 86399999999999
		return binary.BigEndian.AppendUint64(nil, pick(r, []uint64{0, 1, maxNanos, 1 << 32}, r.Uint64N(maxNanos+1)))
	case cql.KindBoolean:
		return []byte{pick(r, []byte{0, 1, 0, 1, 2, 0xFF}, 1)}
	case cql.KindFloat:
		f := []uint32{0, 0x80000000, math.Float32bits(1), math.Float32bits(-1),
			0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001, 1, 0x80000001, 0x7F7FFFFF}
		return binary.BigEndian.AppendUint32(nil, pick(r, f, r.Uint32()))
	case cql.KindDouble:
		d := []uint64{0, 1 << 63, math.Float64bits(1), math.Float64bits(-1), math.Float64bits(0.5),
			0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000, 0xFFF8000000000001, 1, 1<<63 | 1}
		return binary.BigEndian.AppendUint64(nil, pick(r, d, r.Uint64()))
	case cql.KindAscii, cql.KindText, cql.KindBlob:
		return genBytes(r, r.IntN(7), []byte{0x00, 0x01, 0x02, 'a', 'b', 0x7F, 0x80, 0xFE, 0xFF})
	case cql.KindInet:
		n := 4
		if r.IntN(2) == 0 {
			n = 16
		}
		return genBytes(r, n, []byte{0, 1, 0x7F, 0x80, 0xFF})
	case cql.KindUUID:
		return genUUID(r, pick(r, []byte{1, 4, 0, 2, 15}, byte(r.IntN(16))))
	case cql.KindTimeuuid:
		return genUUID(r, 1)
	case cql.KindVarint:
		return genVarint(r)
	case cql.KindDecimal:
		return genDecimal(r)
	case cql.KindList, cql.KindSet:
		return genCollection(r, t, r.IntN(4), 1)
	case cql.KindMap:
		return genCollection(r, t, r.IntN(3), 2)
	case cql.KindTuple, cql.KindUDT:
		n := len(t.Elems)
		if r.IntN(4) == 0 {
			n = r.IntN(n + 1) // fewer components: trailing nulls
		}
		var b []byte
		for i := 0; i < n; i++ {
			if r.IntN(5) == 0 {
				b = binary.BigEndian.AppendUint32(b, math.MaxUint32)
				continue
			}
			e := genValue(r, t.Elems[i], true)
			b = binary.BigEndian.AppendUint32(b, uint32(len(e)))
			b = append(b, e...)
		}
		if b == nil && !allowEmpty {
			b = binary.BigEndian.AppendUint32(nil, math.MaxUint32) // (null)
		}
		if b == nil {
			b = []byte{} // a zero-component tuple is the empty value
		}
		return b
	}
	panic("genValue: no generator for " + t.String())
}

func pick[T any](r *rand.Rand, edges []T, random T) T {
	if r.IntN(2) == 0 {
		return edges[r.IntN(len(edges))]
	}
	return random
}

func genInt(r *rand.Rand, width int) []byte {
	b := make([]byte, width)
	switch r.IntN(4) {
	case 0: // small: 0, 1, -1, ...
		v := r.Int64N(5) - 2
		for i := range b {
			b[i] = byte(v >> (8 * (width - 1 - i)))
		}
	case 1: // min/max area
		b[0] = pick(r, []byte{0x7F, 0x80}, 0)
		for i := 1; i < width; i++ {
			b[i] = pick(r, []byte{0, 0xFF}, 0)
		}
	default:
		for i := range b {
			b[i] = byte(r.Uint32())
		}
	}
	return b
}

func genBytes(r *rand.Rand, n int, alphabet []byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return b
}

func genUUID(r *rand.Rand, version byte) []byte {
	b := genBytes(r, 16, []byte{0, 1, 0x7F, 0x80, 0xFF})
	if r.IntN(2) == 0 {
		for i := range b {
			b[i] = byte(r.Uint32())
		}
	}
	b[6] = b[6]&0x0F | version<<4
	return b
}

// genVarint returns a two's-complement integer, sometimes with redundant
// leading bytes.
func genVarint(r *rand.Rand) []byte {
	var x big.Int
	switch r.IntN(3) {
	case 0:
		x.SetInt64(r.Int64N(520) - 260)
	case 1:
		x.SetInt64(r.Int64())
		if r.IntN(2) == 0 {
			x.Neg(&x)
		}
		x.Lsh(&x, uint(r.IntN(80)))
	default:
		x.SetInt64(int64(pick(r, []int64{0, 127, 128, -128, -129, 255, 256, -256, -257, 32767, -32768}, 0)))
	}
	b := twosComplement(&x)
	if r.IntN(5) == 0 {
		ext := byte(0)
		if b[0]&0x80 != 0 {
			ext = 0xFF
		}
		for i := r.IntN(3) + 1; i > 0; i-- {
			b = append([]byte{ext}, b...)
		}
	}
	return b
}

// genDecimal returns a decimal, often one with trailing zeros in its
// unscaled value so that equal values with different scales show up.
func genDecimal(r *rand.Rand) []byte {
	scale := int32(r.IntN(9) - 4)
	if r.IntN(10) == 0 {
		scale = pick(r, []int32{-40, 40, math.MaxInt32, math.MinInt32}, 0)
	}
	var u big.Int
	u.SetInt64(r.Int64N(41) - 20)
	if r.IntN(3) == 0 {
		u.SetInt64(r.Int64())
		if r.IntN(2) == 0 {
			u.Neg(&u)
		}
	}
	if k := r.IntN(4); k > 0 && scale < math.MaxInt32-4 {
		u.Mul(&u, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(k)), nil))
		scale += int32(k)
	}
	b := binary.BigEndian.AppendUint32(nil, uint32(scale))
	m := twosComplement(&u)
	if r.IntN(8) == 0 {
		ext := byte(0)
		if m[0]&0x80 != 0 {
			ext = 0xFF
		}
		b = append(b, ext)
	}
	return append(b, m...)
}

func genCollection(r *rand.Rand, t *cql.Type, n, per int) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(n))
	for i := 0; i < n*per; i++ {
		e := genValue(r, t.Elems[i%per], true)
		b = binary.BigEndian.AppendUint32(b, uint32(len(e)))
		b = append(b, e...)
	}
	return b
}
