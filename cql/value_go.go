package cql

// Conversions between CQL-serialized values and natural Go values, for
// GraphQL, reports and tools.

import (
	"encoding/binary"
	"math"
	"math/big"
	"net"
	"net/netip"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dohyo/dohyo/internal/bigdec"
)

// Decimal is a CQL decimal: Unscaled × 10^-Scale.
type Decimal struct {
	Unscaled *big.Int
	Scale    int32
}

// ParseDecimal parses decimal text like java.math.BigDecimal ("1.50",
// "-3e-7"); the scale keeps trailing zeros.
func ParseDecimal(s string) (Decimal, error) {
	d, ok := parseDecimal(s)
	if !ok {
		return Decimal{}, valueErrf("unable to make BigDecimal from '%s'", s)
	}
	return d, nil
}

// String renders d as Java's BigDecimal.toString does (plain notation, or
// scientific when the exponent is large), which parses back to the same
// unscaled value and scale.
func (d Decimal) String() string {
	return bigdec.Dec{Unscaled: d.Unscaled, Scale: d.Scale}.String()
}

// Date is a CQL date as a signed day count since 1970-01-01 (the serialized
// form is this plus 2^31, unsigned).
type Date int32

// DateOf returns the date of t in t's location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date(daysFromCivil(int64(y), int64(m), int64(d)))
}

// Time returns midnight UTC of the date.
func (d Date) Time() time.Time { return time.Unix(int64(d)*86400, 0).UTC() }

// String returns the ISO date (yyyy-mm-dd, "+" or "-" for years outside
// 0000-9999).
func (d Date) String() string { return formatISODate(int64(d)) }

// MapEntry is one map entry; DecodeGo returns maps as []MapEntry to keep
// Cassandra's key order.
type MapEntry struct {
	Key, Value any
}

// DecodeGo converts a serialized value to a Go value: ascii/text string;
// bigint/counter int64; int int32; smallint int16; tinyint int8; boolean
// bool; float float32; double float64; varint *big.Int; decimal Decimal;
// timestamp time.Time (UTC); date Date; time time.Duration (since
// midnight); uuid/timeuuid UUID; inet net.IP (4 or 16 bytes); duration
// Duration; blob []byte; list/set []any; map []MapEntry; tuple []any (one
// per component, nil for null); UDT map[string]any (every field). nil is
// nil. Cassandra's empty value of a fixed-size type decodes to []byte{}
// (EncodeGo turns it back into the empty value).
func DecodeGo(t *Type, b []byte) (any, error) {
	if b == nil {
		return nil, nil
	}
	if !wellFormed(t) {
		return nil, valueErrf("Invalid type %s", safeTypeName(t))
	}
	if err := validate(t, b); err != nil {
		return nil, err
	}
	return decodeGo(t, b), nil
}

// decodeGo assumes b is valid for t.
func decodeGo(t *Type, b []byte) any {
	if b == nil {
		return nil
	}
	switch t.Kind {
	case KindText, KindAscii:
		return string(b)
	case KindBlob:
		return append([]byte{}, b...)
	}
	if len(b) == 0 && t.Kind != KindTuple && t.Kind != KindUDT {
		return []byte{}
	}
	switch t.Kind {
	case KindBigint, KindCounter:
		return int64(binary.BigEndian.Uint64(b))
	case KindInt:
		return int32(binary.BigEndian.Uint32(b))
	case KindSmallint:
		return int16(binary.BigEndian.Uint16(b))
	case KindTinyint:
		return int8(b[0])
	case KindBoolean:
		return b[0] != 0
	case KindFloat:
		return math.Float32frombits(binary.BigEndian.Uint32(b))
	case KindDouble:
		return math.Float64frombits(binary.BigEndian.Uint64(b))
	case KindVarint:
		return varintValue(b)
	case KindDecimal:
		return decodeDecimal(b)
	case KindTimestamp:
		return time.UnixMilli(int64(binary.BigEndian.Uint64(b))).UTC()
	case KindDate:
		return Date(int32(binary.BigEndian.Uint32(b) - 1<<31))
	case KindTime:
		return time.Duration(int64(binary.BigEndian.Uint64(b)))
	case KindUUID, KindTimeuuid:
		return UUID(b)
	case KindInet:
		return net.IP(append([]byte{}, b...))
	case KindDuration:
		d, _ := decodeDuration(b)
		return d
	case KindList, KindSet:
		items, _ := splitCollection(b, 1)
		out := make([]any, len(items))
		for i, it := range items {
			out[i] = decodeGo(t.Elems[0], it)
		}
		return out
	case KindVector:
		items, _ := SplitVector(t, b)
		out := make([]any, len(items))
		for i, it := range items {
			out[i] = decodeGo(t.Elems[0], it)
		}
		return out
	case KindMap:
		items, _ := splitCollection(b, 2)
		out := make([]MapEntry, len(items)/2)
		for i := range out {
			out[i] = MapEntry{Key: decodeGo(t.Elems[0], items[2*i]), Value: decodeGo(t.Elems[1], items[2*i+1])}
		}
		return out
	case KindTuple:
		items, _ := splitTuple(b, len(t.Elems))
		out := make([]any, len(t.Elems))
		for i, it := range items {
			out[i] = decodeGo(t.Elems[i], it)
		}
		return out
	case KindUDT:
		items, _ := splitTuple(b, len(t.Elems))
		out := make(map[string]any, len(t.Fields))
		for i, f := range t.Fields {
			var v any
			if i < len(items) && i < len(t.Elems) {
				v = decodeGo(t.Elems[i], items[i])
			}
			out[f] = v
		}
		return out
	}
	return append([]byte{}, b...)
}

// EncodeGo converts a Go value to the serialized value of type t. It
// accepts what DecodeGo returns and, leniently: any Go integer for integer
// types (range-checked) and for float, double, varint, decimal; floats for
// float, double and decimal; strings in CQL literal syntax for every scalar
// type (blob as 0x-hex); time.Time for date; int64 milliseconds for
// timestamp; int64 nanoseconds for time; time.Duration for duration;
// netip.Addr for inet; any slice for list, set and tuple; any Go map for
// map (sorted by key) and map[string]any for UDTs. []byte for a non-blob
// scalar is taken as already serialized (validated). The order of []any
// sets and []MapEntry maps is kept (see Canonicalize). nil is null.
func EncodeGo(t *Type, v any) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	if !wellFormed(t) {
		return nil, valueErrf("Invalid type %s", safeTypeName(t))
	}
	return encodeGo(t, v)
}

func goTypeErr(t *Type, v any) error {
	return valueErrf("Cannot convert Go value of type %T to CQL type %s", v, t)
}

func encodeGo(t *Type, v any) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return nil, nil
	}
	if t.Kind < KindList && t.Kind != KindBlob && t.Kind != KindText && t.Kind != KindAscii {
		if raw, ok := v.([]byte); ok {
			if err := validate(t, raw); err != nil {
				return nil, err
			}
			return append([]byte{}, raw...), nil
		}
		if s, ok := v.(string); ok {
			return scalarFromString(t.Kind, s, nil)
		}
	}
	switch t.Kind {
	case KindText, KindAscii:
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case []byte:
			s = string(x)
		default:
			return nil, goTypeErr(t, v)
		}
		return scalarFromString(t.Kind, s, nil)
	case KindBlob:
		switch x := v.(type) {
		case []byte:
			return append([]byte{}, x...), nil
		case string:
			if !strings.HasPrefix(x, "0x") && !strings.HasPrefix(x, "0X") {
				return nil, valueErrf("Invalid blob string %q: expected 0x-prefixed hex", x)
			}
			return scalarFromString(KindBlob, x[2:], nil)
		}
	case KindBigint, KindCounter, KindInt, KindSmallint, KindTinyint, KindVarint, KindFloat, KindDouble, KindDecimal:
		return encodeGoNumber(t, v)
	case KindBoolean:
		if x, ok := v.(bool); ok {
			if x {
				return []byte{1}, nil
			}
			return []byte{0}, nil
		}
	case KindTimestamp, KindDate, KindTime, KindDuration:
		return encodeGoTime(t, v)
	case KindUUID, KindTimeuuid:
		var u UUID
		switch x := v.(type) {
		case UUID:
			u = x
		case [16]byte:
			u = x
		default:
			return nil, goTypeErr(t, v)
		}
		if t.Kind == KindTimeuuid && u.Version() != 1 {
			return nil, valueErrf("TimeUUID supports only version 1 UUIDs")
		}
		return append([]byte{}, u[:]...), nil
	case KindInet:
		switch x := v.(type) {
		case net.IP:
			if len(x) != 4 && len(x) != 16 {
				return nil, valueErrf("Invalid length for an inet address (%d)", len(x))
			}
			return append([]byte{}, x...), nil
		case netip.Addr:
			if !x.IsValid() {
				return nil, valueErrf("Invalid inet address")
			}
			return x.AsSlice(), nil
		}
	case KindList, KindSet:
		return encodeGoList(t, v)
	case KindVector:
		return encodeGoVector(t, v)
	case KindMap:
		return encodeGoMap(t, v)
	case KindTuple:
		return encodeGoTuple(t, v)
	case KindUDT:
		return encodeGoUDT(t, v)
	}
	return nil, goTypeErr(t, v)
}

// encodeGoNumber encodes a Go integer, float or Decimal as a numeric
// CQL type, refusing values out of the type's range.
func encodeGoNumber(t *Type, v any) ([]byte, error) {
	switch t.Kind {
	case KindBigint, KindCounter, KindInt, KindSmallint, KindTinyint:
		x, ok := goInt64(v)
		if !ok {
			n, ok := goInt(v)
			if !ok {
				break
			}
			if !n.IsInt64() {
				return nil, valueErrf("Value %s out of range for type %s", n, t)
			}
			x = n.Int64()
		}
		bits := intBits(t.Kind)
		if bitsNeeded(x) > bits {
			return nil, valueErrf("Value %d out of range for type %s", x, t)
		}
		switch bits {
		case 64:
			return be64(x), nil
		case 32:
			return be32(int32(x)), nil
		case 16:
			return be16(int16(x)), nil
		}
		return []byte{byte(x)}, nil
	case KindVarint:
		if n, ok := goInt(v); ok {
			return varintBytes(n), nil
		}
	case KindFloat, KindDouble:
		var f float64
		switch x := v.(type) {
		case float32:
			if t.Kind == KindFloat {
				return be32(int32(math.Float32bits(x))), nil
			}
			f = float64(x)
		case float64:
			f = x
		default:
			n, ok := goInt(v)
			if !ok {
				return nil, goTypeErr(t, v)
			}
			f, _ = new(big.Float).SetInt(n).Float64()
		}
		if t.Kind == KindFloat {
			return be32(int32(math.Float32bits(float32(f)))), nil
		}
		return be64(int64(math.Float64bits(f))), nil
	case KindDecimal:
		switch x := v.(type) {
		case Decimal:
			return encodeDecimal(x), nil
		case *Decimal:
			return encodeDecimal(*x), nil
		case float32:
			return scalarFromString(KindDecimal, strconv.FormatFloat(float64(x), 'g', -1, 32), nil)
		case float64:
			return scalarFromString(KindDecimal, strconv.FormatFloat(x, 'g', -1, 64), nil)
		}
		if n, ok := goInt(v); ok {
			return encodeDecimal(Decimal{Unscaled: n}), nil
		}
	}
	return nil, goTypeErr(t, v)
}

// encodeGoTime encodes a time.Time, Date, time.Duration, Duration or
// integer as a timestamp, date, time or duration.
func encodeGoTime(t *Type, v any) ([]byte, error) {
	switch t.Kind {
	case KindTimestamp:
		switch x := v.(type) {
		case time.Time:
			return be64(x.UnixMilli()), nil
		case int64:
			return be64(x), nil
		}
	case KindDate:
		switch x := v.(type) {
		case Date:
			return be32(int32(uint32(x) + 1<<31)), nil
		case time.Time:
			days := daysFromCivil(int64(x.Year()), int64(x.Month()), int64(x.Day()))
			if days < math.MinInt32 || days > math.MaxInt32 {
				return nil, valueErrf("Date %s out of range", x.Format(time.DateOnly))
			}
			return be32(int32(uint32(int32(days)) + 1<<31)), nil
		}
	case KindTime:
		var ns int64
		switch x := v.(type) {
		case time.Duration:
			ns = int64(x)
		case int64:
			ns = x
		default:
			return nil, goTypeErr(t, v)
		}
		// Like Cassandra's validation, any 8-byte value is accepted; text
		// input (see scalarFromString) is range-checked.
		return be64(ns), nil
	case KindDuration:
		switch x := v.(type) {
		case Duration:
			if !((x.Months >= 0 && x.Days >= 0 && x.Nanos >= 0) || (x.Months <= 0 && x.Days <= 0 && x.Nanos <= 0)) {
				return nil, valueErrf("The duration months, days and nanoseconds must be all of the same sign (%d, %d, %d)", x.Months, x.Days, x.Nanos)
			}
			return encodeDuration(x), nil
		case time.Duration:
			return encodeDuration(Duration{Nanos: int64(x)}), nil
		}
	}
	return nil, goTypeErr(t, v)
}

// goSequence is v as a reflect slice or array, if it is one.
func goSequence(v any) (reflect.Value, bool) {
	rv := reflect.ValueOf(v)
	return rv, rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array
}

// encodeGoElems encodes a sequence's elements as elem values; null
// elements are refused (what: "collections", "vectors").
func encodeGoElems(elem *Type, rv reflect.Value, what string) ([][]byte, error) {
	items := make([][]byte, rv.Len())
	for i := range items {
		b, err := encodeGo(elem, rv.Index(i).Interface())
		if err != nil {
			return nil, err
		}
		if b == nil {
			return nil, valueErrf("null is not supported inside %s", what)
		}
		items[i] = b
	}
	return items, nil
}

func encodeGoList(t *Type, v any) ([]byte, error) {
	rv, ok := goSequence(v)
	if !ok {
		return nil, goTypeErr(t, v)
	}
	items, err := encodeGoElems(t.Elems[0], rv, "collections")
	if err != nil {
		return nil, err
	}
	return buildCollection(len(items), items), nil
}

func encodeGoVector(t *Type, v any) ([]byte, error) {
	rv, ok := goSequence(v)
	if !ok {
		return nil, goTypeErr(t, v)
	}
	if rv.Len() != t.Dim {
		return nil, valueErrf("Invalid vector value for type %s; expected %d elements, but given %d", t, t.Dim, rv.Len())
	}
	items, err := encodeGoElems(t.Elems[0], rv, "vectors")
	if err != nil {
		return nil, err
	}
	return BuildVector(t.Elems[0], items), nil
}

// encodeGoTuple encodes a sequence as a tuple; missing trailing
// components are null.
func encodeGoTuple(t *Type, v any) ([]byte, error) {
	rv, ok := goSequence(v)
	if !ok {
		return nil, goTypeErr(t, v)
	}
	if rv.Len() > len(t.Elems) {
		return nil, valueErrf("Too many components (%d) for %s", rv.Len(), t)
	}
	items := make([][]byte, len(t.Elems))
	for i := 0; i < rv.Len(); i++ {
		b, err := encodeGo(t.Elems[i], rv.Index(i).Interface())
		if err != nil {
			return nil, err
		}
		items[i] = b
	}
	return buildTuple(items), nil
}

// encodeGoUDT encodes a map of field names as a user-defined type's
// value; fields left out are null.
func encodeGoUDT(t *Type, v any) ([]byte, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, goTypeErr(t, v)
	}
	items := make([][]byte, len(t.Elems))
	for name, fv := range m {
		idx := fieldIndex(t, name)
		if idx < 0 {
			return nil, valueErrf("Unknown field '%s' in value of user defined type %s", name, t.Name)
		}
		b, err := encodeGo(t.Elems[idx], fv)
		if err != nil {
			return nil, err
		}
		items[idx] = b
	}
	return buildTuple(items), nil
}

func encodeGoMap(t *Type, v any) ([]byte, error) {
	var items [][]byte
	add := func(k, val any) error {
		kb, err := encodeGo(t.Elems[0], k)
		if err != nil {
			return err
		}
		vb, err := encodeGo(t.Elems[1], val)
		if err != nil {
			return err
		}
		if kb == nil || vb == nil {
			return valueErrf("null is not supported inside collections")
		}
		items = append(items, kb, vb)
		return nil
	}
	if entries, ok := v.([]MapEntry); ok {
		for _, e := range entries {
			if err := add(e.Key, e.Value); err != nil {
				return nil, err
			}
		}
		return buildCollection(len(items)/2, items), nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Map {
		return nil, goTypeErr(t, v)
	}
	iter := rv.MapRange()
	for iter.Next() {
		if err := add(iter.Key().Interface(), iter.Value().Interface()); err != nil {
			return nil, err
		}
	}
	// Go maps have no order: sort by key so the result is deterministic.
	type pair struct{ k, v []byte }
	pairs := make([]pair, len(items)/2)
	for i := range pairs {
		pairs[i] = pair{items[2*i], items[2*i+1]}
	}
	sort.Slice(pairs, func(i, j int) bool { return Compare(t.Elems[0], pairs[i].k, pairs[j].k) < 0 })
	for i, p := range pairs {
		items[2*i], items[2*i+1] = p.k, p.v
	}
	return buildCollection(len(pairs), items), nil
}

// goInt64 is v when it is a Go signed integer (the types decoded
// variables and literals have), without goInt's big.Int.
func goInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case int32:
		return int64(x), true
	}
	return 0, false
}

// intBits is the width of an integer kind.
func intBits(k Kind) int {
	switch k {
	case KindInt:
		return 32
	case KindSmallint:
		return 16
	case KindTinyint:
		return 8
	}
	return 64 // bigint, counter
}

// goInt converts Go integers (and integral floats, as JSON decoding makes
// them) to a big.Int.
func goInt(v any) (*big.Int, bool) {
	switch x := v.(type) {
	case *big.Int:
		return new(big.Int).Set(x), true
	case big.Int:
		return new(big.Int).Set(&x), true
	case float64:
		if x != math.Trunc(x) || math.IsInf(x, 0) {
			return nil, false
		}
		n, _ := big.NewFloat(x).Int(nil)
		return n, true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return big.NewInt(rv.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return new(big.Int).SetUint64(rv.Uint()), true
	}
	return nil, false
}

// bitsNeeded is the two's complement width needed for x.
func bitsNeeded(x int64) int {
	switch {
	case x >= math.MinInt8 && x <= math.MaxInt8:
		return 8
	case x >= math.MinInt16 && x <= math.MaxInt16:
		return 16
	case x >= math.MinInt32 && x <= math.MaxInt32:
		return 32
	}
	return 64
}
