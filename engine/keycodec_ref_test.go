package engine

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"math/big"

	"github.com/dohyo/dohyo/cql"
)

// refCompare is a straightforward model of Cassandra 5.0's comparators
// (o.a.c.db.marshal.*Type.compareCustom) on CQL-serialized values, written
// independently of the key encoding so tests can check one against the
// other. testdata/cassandra_order.txt checks it against real Cassandra.
// Values must be valid for their type.
func refCompare(t *cql.Type, a, b []byte) int {
	if len(a) == 0 || len(b) == 0 {
		return cmp.Compare(len(a), len(b)) // empty first
	}
	switch t.Kind {
	case cql.KindInt, cql.KindBigint, cql.KindSmallint, cql.KindTinyint, cql.KindCounter, cql.KindTimestamp:
		return cmp.Compare(signedBE(a), signedBE(b))
	case cql.KindDate, cql.KindTime, cql.KindAscii, cql.KindText, cql.KindBlob, cql.KindInet:
		return bytes.Compare(a, b)
	case cql.KindBoolean:
		return cmp.Compare(boolInt(a[0] != 0), boolInt(b[0] != 0))
	case cql.KindFloat:
		return javaFloatCompare(float64(math.Float32frombits(binary.BigEndian.Uint32(a))),
			float64(math.Float32frombits(binary.BigEndian.Uint32(b))))
	case cql.KindDouble:
		return javaFloatCompare(math.Float64frombits(binary.BigEndian.Uint64(a)),
			math.Float64frombits(binary.BigEndian.Uint64(b)))
	case cql.KindUUID:
		return refUUID(a, b)
	case cql.KindTimeuuid:
		return refTimeUUID(a, b)
	case cql.KindVarint:
		return refBigInt(a).Cmp(refBigInt(b))
	case cql.KindDecimal:
		return refDecimal(a, b)
	case cql.KindList, cql.KindSet:
		return refCollection(t, a, b, 1)
	case cql.KindMap:
		return refCollection(t, a, b, 2)
	case cql.KindTuple, cql.KindUDT:
		return refTuple(t, a, b)
	case cql.KindVector: // element by element (scenario "vector in the primary key")
		x, err1 := cql.SplitVector(t, a)
		y, err2 := cql.SplitVector(t, b)
		if err1 != nil || err2 != nil {
			panic("refCompare: bad vector")
		}
		for i := range x {
			if c := refCompare(t.Elems[0], x[i], y[i]); c != 0 {
				return c
			}
		}
		return 0
	}
	panic("refCompare: unsupported type " + t.String())
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func signedBE(b []byte) int64 {
	v := int64(int8(b[0]))
	for _, x := range b[1:] {
		v = v<<8 | int64(x)
	}
	return v
}

// javaFloatCompare is Java's Double.compare: -0.0 < 0.0, NaN above all and
// equal to itself.
func javaFloatCompare(x, y float64) int {
	xn, yn := math.IsNaN(x), math.IsNaN(y)
	switch {
	case xn || yn:
		return cmp.Compare(boolInt(xn), boolInt(yn))
	case x != y:
		return cmp.Compare(x, y)
	}
	return cmp.Compare(boolInt(!math.Signbit(x)), boolInt(!math.Signbit(y)))
}

func refUUID(a, b []byte) int {
	ma, mb := binary.BigEndian.Uint64(a), binary.BigEndian.Uint64(b)
	va, vb := (ma>>12)&0xF, (mb>>12)&0xF
	if va != vb {
		return cmp.Compare(va, vb)
	}
	if va == 1 {
		// time_hi, then time_mid, then time_low
		ka := [3]uint64{ma & 0x0FFF, (ma >> 16) & 0xFFFF, ma >> 32}
		kb := [3]uint64{mb & 0x0FFF, (mb >> 16) & 0xFFFF, mb >> 32}
		for i := range ka {
			if c := cmp.Compare(ka[i], kb[i]); c != 0 {
				return c
			}
		}
	} else if c := cmp.Compare(ma, mb); c != 0 {
		return c
	}
	return bytes.Compare(a[8:], b[8:])
}

func refTimeUUID(a, b []byte) int {
	ma, mb := binary.BigEndian.Uint64(a), binary.BigEndian.Uint64(b)
	ka := [3]uint64{ma & 0x0FFF, (ma >> 16) & 0xFFFF, ma >> 32}
	kb := [3]uint64{mb & 0x0FFF, (mb >> 16) & 0xFFFF, mb >> 32}
	for i := range ka {
		if c := cmp.Compare(ka[i], kb[i]); c != 0 {
			return c
		}
	}
	for i := 8; i < 16; i++ { // signed bytes
		if c := cmp.Compare(int8(a[i]), int8(b[i])); c != 0 {
			return c
		}
	}
	return 0
}

// refBigInt decodes a two's-complement big-endian integer.
func refBigInt(b []byte) *big.Int {
	x := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		x.Sub(x, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return x
}

// refDecimal compares unscaled*10^-scale numerically.
func refDecimal(a, b []byte) int {
	sa, sb := int64(int32(binary.BigEndian.Uint32(a))), int64(int32(binary.BigEndian.Uint32(b)))
	ua, ub := refBigInt(a[4:]), refBigInt(b[4:])
	if ua.Sign() != ub.Sign() || ua.Sign() == 0 {
		return cmp.Compare(ua.Sign(), ub.Sign())
	}
	// Same sign, non-zero. Very different scales: the decimal exponent
	// (digits - scale) decides, as the values here have few digits.
	ea := int64(len(new(big.Int).Abs(ua).String())) - sa
	eb := int64(len(new(big.Int).Abs(ub).String())) - sb
	if d := ea - eb; d > 100 || d < -100 {
		return cmp.Compare(ea, eb) * ua.Sign()
	}
	// Bring both to the larger scale and compare the integers.
	ten := big.NewInt(10)
	if sa < sb {
		ua = new(big.Int).Mul(ua, new(big.Int).Exp(ten, big.NewInt(sb-sa), nil))
	} else if sb < sa {
		ub = new(big.Int).Mul(ub, new(big.Int).Exp(ten, big.NewInt(sa-sb), nil))
	}
	return ua.Cmp(ub)
}

// refElems splits a frozen collection into its elements.
func refElems(v []byte) [][]byte {
	n := int(binary.BigEndian.Uint32(v))
	v = v[4:]
	var out [][]byte
	for i := 0; i < n || len(v) > 0; i++ {
		l := int32(binary.BigEndian.Uint32(v))
		if l < 0 {
			out = append(out, nil)
			v = v[4:]
			continue
		}
		out = append(out, v[4:4+l])
		v = v[4+l:]
	}
	return out
}

func refCollection(t *cql.Type, a, b []byte, per int) int {
	ea, eb := refElems(a), refElems(b)
	for i := 0; i < len(ea) && i < len(eb); i++ {
		if c := refCompare(t.Elems[i%per], ea[i], eb[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(ea), len(eb))
}

// refTuple follows TupleType.compareCustom: nulls first, and missing
// trailing components equal to nulls.
func refTuple(t *cql.Type, a, b []byte) int {
	ea, eb := tupleElems(a), tupleElems(b)
	for i := 0; i < len(ea) && i < len(eb); i++ {
		switch {
		case ea[i] == nil && eb[i] == nil:
			continue
		case ea[i] == nil:
			return -1
		case eb[i] == nil:
			return 1
		}
		if c := refCompare(t.Elems[i], ea[i], eb[i]); c != 0 {
			return c
		}
	}
	allNull := func(es [][]byte) bool {
		for _, e := range es {
			if e != nil {
				return false
			}
		}
		return true
	}
	n := min(len(ea), len(eb))
	ra, rb := allNull(ea[n:]), allNull(eb[n:])
	switch {
	case ra && rb:
		return 0
	case len(ea) == n: // a ran out, b has a non-null left
		return -1
	}
	return 1
}

func tupleElems(v []byte) [][]byte {
	var out [][]byte
	for len(v) > 0 {
		l := int32(binary.BigEndian.Uint32(v))
		if l < 0 {
			out = append(out, nil)
			v = v[4:]
			continue
		}
		out = append(out, v[4:4+l:4+l])
		v = v[4+l:]
	}
	return out
}
