package cql

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"math/big"
)

// Compare orders two serialized values of type t as Cassandra's
// AbstractType.compare does: the order of clustering columns, set elements
// and map keys. null (nil) sorts before everything, then the empty value.
// Numbers compare numerically (varint and decimal by value, so 1.0 equals
// 1.00), float/double as Java's Double.compare (-0.0 < 0.0, NaN last),
// boolean false < true, date unsigned, timestamp and time signed, text,
// ascii, blob and inet bytewise. uuid: version first, then time for version
// 1, then unsigned bytes; timeuuid: time, then the low 8 bytes as signed
// bytes (Cassandra's compatibility quirk). Frozen collections, tuples and
// UDTs compare element by element, a strict prefix first. duration has no
// order in CQL: it compares bytewise. Malformed values never panic; they
// compare bytewise.
func Compare(t *Type, a, b []byte) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	if t == nil {
		return bytes.Compare(a, b)
	}
	switch t.Kind {
	case KindText, KindAscii, KindBlob, KindInet, KindDuration:
		return bytes.Compare(a, b)
	}
	if len(a) == 0 || len(b) == 0 {
		return cmp.Compare(len(a), len(b))
	}
	switch t.Kind {
	case KindInt:
		if len(a) == 4 && len(b) == 4 {
			return cmp.Compare(int32(binary.BigEndian.Uint32(a)), int32(binary.BigEndian.Uint32(b)))
		}
	case KindBigint, KindCounter, KindTimestamp, KindTime:
		if len(a) == 8 && len(b) == 8 {
			return cmp.Compare(int64(binary.BigEndian.Uint64(a)), int64(binary.BigEndian.Uint64(b)))
		}
	case KindSmallint:
		if len(a) == 2 && len(b) == 2 {
			return cmp.Compare(int16(binary.BigEndian.Uint16(a)), int16(binary.BigEndian.Uint16(b)))
		}
	case KindTinyint:
		if len(a) == 1 && len(b) == 1 {
			return cmp.Compare(int8(a[0]), int8(b[0]))
		}
	case KindDate:
		if len(a) == 4 && len(b) == 4 {
			return cmp.Compare(binary.BigEndian.Uint32(a), binary.BigEndian.Uint32(b))
		}
	case KindBoolean:
		return cmp.Compare(boolBit(a[0]), boolBit(b[0]))
	case KindFloat:
		if len(a) == 4 && len(b) == 4 {
			return javaDoubleCompare(float64(math.Float32frombits(binary.BigEndian.Uint32(a))),
				float64(math.Float32frombits(binary.BigEndian.Uint32(b))))
		}
	case KindDouble:
		if len(a) == 8 && len(b) == 8 {
			return javaDoubleCompare(math.Float64frombits(binary.BigEndian.Uint64(a)),
				math.Float64frombits(binary.BigEndian.Uint64(b)))
		}
	case KindVarint:
		return varintValue(a).Cmp(varintValue(b))
	case KindDecimal:
		if len(a) >= 4 && len(b) >= 4 {
			return compareDecimal(decodeDecimal(a), decodeDecimal(b))
		}
	case KindUUID:
		if len(a) == 16 && len(b) == 16 {
			return compareUUID(a, b)
		}
	case KindTimeuuid:
		if len(a) == 16 && len(b) == 16 {
			return compareTimeUUID(a, b)
		}
	case KindList, KindSet, KindMap:
		if c, ok := compareCollection(t, a, b); ok {
			return c
		}
	case KindTuple, KindUDT:
		if c, ok := compareTuple(t, a, b); ok {
			return c
		}
	case KindVector:
		if c, ok := compareVector(t, a, b); ok {
			return c
		}
	}
	return bytes.Compare(a, b)
}

func boolBit(b byte) int {
	if b == 0 {
		return 0
	}
	return 1
}

// javaDoubleCompare is java.lang.Double.compare: -0.0 < 0.0 and every NaN
// equals every NaN and is greater than +Inf.
func javaDoubleCompare(x, y float64) int {
	xn, yn := math.IsNaN(x), math.IsNaN(y)
	switch {
	case xn && yn:
		return 0
	case xn:
		return 1
	case yn:
		return -1
	case x < y:
		return -1
	case x > y:
		return 1
	}
	// Equal values: only the sign of zero can differ.
	sx, sy := math.Signbit(x), math.Signbit(y)
	switch {
	case sx == sy:
		return 0
	case sx:
		return -1
	}
	return 1
}

func decodeDecimal(b []byte) Decimal {
	return Decimal{Unscaled: varintValue(b[4:]), Scale: int32(binary.BigEndian.Uint32(b))}
}

// compareDecimal compares numerically without materialising huge powers of
// ten: magnitudes are ordered by their adjusted exponent first.
func compareDecimal(x, y Decimal) int {
	sx, sy := x.Unscaled.Sign(), y.Unscaled.Sign()
	if sx != sy {
		return cmp.Compare(sx, sy)
	}
	if sx == 0 {
		return 0
	}
	dx, dy := decimalDigits(x.Unscaled), decimalDigits(y.Unscaled)
	ax, ay := int64(dx)-int64(x.Scale), int64(dy)-int64(y.Scale)
	if ax != ay {
		return sx * cmp.Compare(ax, ay)
	}
	// Same adjusted exponent: the scale difference equals the digit-count
	// difference, which is bounded by the value sizes.
	ux, uy := new(big.Int).Set(x.Unscaled), new(big.Int).Set(y.Unscaled)
	if d := int64(x.Scale) - int64(y.Scale); d > 0 {
		uy.Mul(uy, new(big.Int).Exp(big.NewInt(10), big.NewInt(d), nil))
	} else if d < 0 {
		ux.Mul(ux, new(big.Int).Exp(big.NewInt(10), big.NewInt(-d), nil))
	}
	return ux.Cmp(uy)
}

// decimalDigits counts the decimal digits of |v| (v != 0).
func decimalDigits(v *big.Int) int {
	s := v.Text(10)
	if s[0] == '-' {
		return len(s) - 1
	}
	return len(s)
}

// uuidTimeKey reorders a version 1 msb so the timestamp compares as an
// integer: time_hi (with version), time_mid, time_low.
func uuidTimeKey(msb uint64) uint64 {
	return msb<<48 | (msb<<16)&0xFFFF00000000 | msb>>32
}

func compareUUID(a, b []byte) int {
	ma, mb := binary.BigEndian.Uint64(a), binary.BigEndian.Uint64(b)
	va, vb := int(ma>>12&0xF), int(mb>>12&0xF)
	if va != vb {
		return cmp.Compare(va, vb)
	}
	if va == 1 {
		if c := cmp.Compare(uuidTimeKey(ma), uuidTimeKey(mb)); c != 0 {
			return c
		}
	} else if c := cmp.Compare(ma, mb); c != 0 {
		return c
	}
	return cmp.Compare(binary.BigEndian.Uint64(a[8:]), binary.BigEndian.Uint64(b[8:]))
}

func compareTimeUUID(a, b []byte) int {
	ma, mb := binary.BigEndian.Uint64(a), binary.BigEndian.Uint64(b)
	if c := cmp.Compare(int64(uuidTimeKey(ma)), int64(uuidTimeKey(mb))); c != 0 {
		return c
	}
	// Signed per-byte comparison of the clock sequence and node.
	for i := 8; i < 16; i++ {
		if c := cmp.Compare(int8(a[i]), int8(b[i])); c != 0 {
			return c
		}
	}
	return 0
}

// compareCollection compares frozen collections element by element (maps:
// key then value), then by size. ok is false for malformed values.
func compareCollection(t *Type, a, b []byte) (int, bool) {
	if !wellFormed(t) {
		return 0, false
	}
	per := 1
	if t.Kind == KindMap {
		per = 2
	}
	xa, err1 := splitCollection(a, per)
	xb, err2 := splitCollection(b, per)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	for i := 0; i < len(xa) && i < len(xb); i++ {
		if c := Compare(t.Elems[i%per], xa[i], xb[i]); c != 0 {
			return c, true
		}
	}
	return cmp.Compare(len(xa), len(xb)), true
}

// compareTuple compares components in order (null first); when one value
// has more components, it is greater unless the extra ones are all null.
// (Cassandra also ignores trailing empty values there; treating them as
// values keeps the order transitive.)
func compareTuple(t *Type, a, b []byte) (int, bool) {
	if !wellFormed(t) {
		return 0, false
	}
	xa, err1 := splitTuple(a, len(t.Elems))
	xb, err2 := splitTuple(b, len(t.Elems))
	if err1 != nil || err2 != nil {
		return 0, false
	}
	n := min(len(xa), len(xb))
	for i := 0; i < n; i++ {
		if c := Compare(t.Elems[i], xa[i], xb[i]); c != 0 {
			return c, true
		}
	}
	if !allBlank(xa[n:]) {
		return 1, true
	}
	if !allBlank(xb[n:]) {
		return -1, true
	}
	return 0, true
}

func allBlank(items [][]byte) bool {
	for _, it := range items {
		if it != nil {
			return false
		}
	}
	return true
}

// wellFormed reports whether t has the element types its kind needs.
func wellFormed(t *Type) bool {
	if t == nil {
		return false
	}
	need := 0
	switch t.Kind {
	case KindList, KindSet, KindVector:
		need = 1
	case KindMap:
		need = 2
	case KindTuple, KindUDT:
		need = len(t.Elems)
	case KindInvalid:
		return false
	}
	if len(t.Elems) < need {
		return false
	}
	for _, e := range t.Elems {
		if !wellFormed(e) {
			return false
		}
	}
	return true
}

// safeTypeName names a possibly malformed type without panicking.
func safeTypeName(t *Type) string {
	if wellFormed(t) {
		return t.String()
	}
	if t == nil {
		return "<nil>"
	}
	return t.Kind.String()
}
