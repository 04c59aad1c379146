package java

import (
	"math"
	"strconv"
	"strings"

	"github.com/dohyo/dohyo/cql"
)

// Runtime values: nil (null), bool, int8 (byte), int16 (short), jchar,
// int32 (int), int64 (long), float32, float64, string, *jList, *jSet,
// *jMap, *jEntry and *jTuple (TupleValue and UDTValue).

type jchar uint16

type jList struct{ elems []any }

// jSet keeps insertion order (LinkedHashSet; the driver's sets arrive
// sorted).
type jSet struct{ elems []any }

type jMap struct{ keys, vals []any }

type jEntry struct{ k, v any }

// jTuple is a TupleValue (names nil) or a UDTValue.
type jTuple struct {
	t    *cql.Type
	vals []any
}

func (s *jSet) index(v any) int {
	for i, e := range s.elems {
		if javaEquals(e, v) {
			return i
		}
	}
	return -1
}

func (m *jMap) index(k any) int {
	for i, e := range m.keys {
		if javaEquals(e, k) {
			return i
		}
	}
	return -1
}

func (m *jMap) put(k, v any) any {
	if i := m.index(k); i >= 0 {
		old := m.vals[i]
		m.vals[i] = v
		return old
	}
	m.keys = append(m.keys, k)
	m.vals = append(m.vals, v)
	return nil
}

// javaEquals is Object.equals: boxed values of different classes differ.
func javaEquals(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y) || ok && x == y && x != 0
	case float32:
		y, ok := b.(float32)
		return ok && math.Float32bits(x) == math.Float32bits(y) || ok && x == y && x != 0
	case *jList:
		y, ok := b.(*jList)
		if !ok || len(x.elems) != len(y.elems) {
			return false
		}
		for i := range x.elems {
			if !javaEquals(x.elems[i], y.elems[i]) {
				return false
			}
		}
		return true
	case *jSet:
		y, ok := b.(*jSet)
		if !ok || len(x.elems) != len(y.elems) {
			return false
		}
		for _, e := range x.elems {
			if y.index(e) < 0 {
				return false
			}
		}
		return true
	case *jMap:
		y, ok := b.(*jMap)
		if !ok || len(x.keys) != len(y.keys) {
			return false
		}
		for i, k := range x.keys {
			j := y.index(k)
			if j < 0 || !javaEquals(x.vals[i], y.vals[j]) {
				return false
			}
		}
		return true
	case *jTuple:
		y, ok := b.(*jTuple)
		if !ok || len(x.vals) != len(y.vals) || !x.t.Equal(y.t) {
			return false
		}
		for i := range x.vals {
			if !javaEquals(x.vals[i], y.vals[i]) {
				return false
			}
		}
		return true
	case *jEntry:
		y, ok := b.(*jEntry)
		return ok && javaEquals(x.k, y.k) && javaEquals(x.v, y.v)
	}
	return a == b
}

// javaString is String.valueOf(v).
func javaString(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case int8:
		return strconv.Itoa(int(x))
	case int16:
		return strconv.Itoa(int(x))
	case int32:
		return strconv.Itoa(int(x))
	case int64:
		return strconv.FormatInt(x, 10)
	case jchar:
		return string(rune(x))
	case float32:
		return cql.JavaFloatString(float64(x), 32)
	case float64:
		return cql.JavaFloatString(x, 64)
	case *jBuilder:
		return x.String()
	case *jList:
		return "[" + joinStrings(x.elems) + "]"
	case *jSet:
		return "[" + joinStrings(x.elems) + "]"
	case *jMap:
		parts := make([]string, len(x.keys))
		for i := range x.keys {
			parts[i] = javaString(x.keys[i]) + "=" + javaString(x.vals[i])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case *jEntry:
		return javaString(x.k) + "=" + javaString(x.v)
	case *jTuple:
		b, err := fromJava(x.t, x)
		if err != nil {
			return "?"
		}
		return cql.FormatValue(x.t, b)
	}
	return "?"
}

func joinStrings(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = javaString(v)
	}
	return strings.Join(parts, ", ")
}

// javaHash is Object.hashCode.
func javaHash(v any) int32 {
	switch x := v.(type) {
	case nil:
		return 0
	case bool:
		if x {
			return 1231
		}
		return 1237
	case int8:
		return int32(x)
	case int16:
		return int32(x)
	case int32:
		return x
	case jchar:
		return int32(x)
	case int64:
		return int32(x ^ int64(uint64(x)>>32))
	case float32:
		return int32(math.Float32bits(x))
	case float64:
		b := math.Float64bits(x)
		return int32(b ^ b>>32)
	case string:
		var h int32
		for _, u := range utf16Of(x) {
			h = 31*h + int32(u)
		}
		return h
	case *jList:
		h := int32(1)
		for _, e := range x.elems {
			h = 31*h + javaHash(e)
		}
		return h
	case *jSet:
		var h int32
		for _, e := range x.elems {
			h += javaHash(e)
		}
		return h
	case *jMap:
		var h int32
		for i := range x.keys {
			h += javaHash(x.keys[i]) ^ javaHash(x.vals[i])
		}
		return h
	}
	return 0
}
