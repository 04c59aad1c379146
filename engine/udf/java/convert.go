package java

import (
	"fmt"

	"github.com/dohyo/dohyo/cql"
)

// supportedType reports whether values of t cross between CQL and the
// subset: numbers, booleans, text, and collections, tuples and UDTs of
// them. (Cassandra passes the others as java.util.Date, UUID, BigDecimal,
// ByteBuffer, ... which the subset has no methods for.)
func supportedType(t *cql.Type) bool {
	switch t.Kind {
	case cql.KindText, cql.KindAscii, cql.KindInt, cql.KindBigint, cql.KindSmallint, cql.KindTinyint,
		cql.KindFloat, cql.KindDouble, cql.KindBoolean, cql.KindCounter:
		return t.Custom == ""
	case cql.KindList, cql.KindSet, cql.KindMap, cql.KindTuple, cql.KindUDT:
		for _, e := range t.Elems {
			if !supportedType(e) {
				return false
			}
		}
		return true
	}
	return false
}

// javaClass names the Java class Cassandra maps a CQL type to.
func javaClass(t *cql.Type) string {
	switch t.Kind {
	case cql.KindText, cql.KindAscii:
		return "String"
	case cql.KindInt:
		return "Integer"
	case cql.KindBigint, cql.KindCounter:
		return "Long"
	case cql.KindSmallint:
		return "Short"
	case cql.KindTinyint:
		return "Byte"
	case cql.KindFloat:
		return "Float"
	case cql.KindDouble:
		return "Double"
	case cql.KindBoolean:
		return "Boolean"
	case cql.KindList:
		return "List"
	case cql.KindSet:
		return "Set"
	case cql.KindMap:
		return "Map"
	case cql.KindTuple:
		return "TupleValue"
	case cql.KindUDT:
		return "UDTValue"
	case cql.KindDecimal:
		return "java.math.BigDecimal"
	case cql.KindVarint:
		return "java.math.BigInteger"
	case cql.KindTimestamp:
		return "java.util.Date"
	case cql.KindUUID, cql.KindTimeuuid:
		return "java.util.UUID"
	case cql.KindDate:
		return "LocalDate"
	case cql.KindBlob:
		return "java.nio.ByteBuffer"
	case cql.KindInet:
		return "java.net.InetAddress"
	}
	return t.String()
}

// toJava decodes a serialized CQL value into a runtime value.
func toJava(t *cql.Type, b []byte) (any, error) {
	g, err := cql.DecodeGo(t, b)
	if err != nil {
		return nil, &ExecError{Msg: err.Error()}
	}
	return goToJava(t, g), nil
}

func goToJava(t *cql.Type, g any) any {
	if bs, ok := g.([]byte); ok && len(bs) == 0 && t.Kind != cql.KindBlob {
		return nil // Cassandra's empty value of a fixed-size type
	}
	switch t.Kind {
	case cql.KindList, cql.KindSet:
		items, _ := g.([]any)
		out := make([]any, len(items))
		for i, it := range items {
			out[i] = goToJava(t.Elems[0], it)
		}
		if t.Kind == cql.KindSet {
			return &jSet{elems: out}
		}
		return &jList{elems: out}
	case cql.KindMap:
		entries, _ := g.([]cql.MapEntry)
		m := &jMap{}
		for _, e := range entries {
			m.keys = append(m.keys, goToJava(t.Elems[0], e.Key))
			m.vals = append(m.vals, goToJava(t.Elems[1], e.Value))
		}
		return m
	case cql.KindTuple:
		items, _ := g.([]any)
		tv := newTuple(t)
		for i := range tv.vals {
			if i < len(items) {
				tv.vals[i] = goToJava(t.Elems[i], items[i])
			}
		}
		return tv
	case cql.KindUDT:
		fields, _ := g.(map[string]any)
		tv := newTuple(t)
		for i, f := range t.Fields {
			if i < len(tv.vals) {
				tv.vals[i] = goToJava(t.Elems[i], fields[f])
			}
		}
		return tv
	}
	return g
}

func newTuple(t *cql.Type) *jTuple { return &jTuple{t: t, vals: make([]any, len(t.Elems))} }

// fromJava encodes a runtime value as a CQL value of type t.
func fromJava(t *cql.Type, v any) ([]byte, error) {
	g, err := javaToGo(t, v)
	if err != nil {
		return nil, err
	}
	b, err := cql.EncodeGo(t, g)
	if err != nil {
		return nil, &ExecError{Msg: err.Error()}
	}
	if t.IsCollection() {
		return cql.Canonicalize(t, b)
	}
	return b, nil
}

func classCast(v any, t *cql.Type) error {
	return jexc("ClassCastException", "class %s cannot be cast to class %s", runtimeClass(v), javaClass(t))
}

func javaToGo(t *cql.Type, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch t.Kind {
	case cql.KindText, cql.KindAscii:
		if s, ok := v.(string); ok {
			return s, nil
		}
	case cql.KindBoolean:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case cql.KindInt, cql.KindBigint, cql.KindCounter, cql.KindSmallint, cql.KindTinyint, cql.KindFloat, cql.KindDouble:
		return numberTo(t, v)
	case cql.KindList, cql.KindSet:
		var elems []any
		switch c := v.(type) {
		case *jList:
			elems = c.elems
		case *jSet:
			elems = c.elems
		default:
			return nil, classCast(v, t)
		}
		out := make([]any, len(elems))
		for i, e := range elems {
			g, err := javaToGo(t.Elems[0], e)
			if err != nil {
				return nil, err
			}
			out[i] = g
		}
		return out, nil
	case cql.KindMap:
		m, ok := v.(*jMap)
		if !ok {
			return nil, classCast(v, t)
		}
		out := make([]cql.MapEntry, len(m.keys))
		for i := range m.keys {
			k, err := javaToGo(t.Elems[0], m.keys[i])
			if err != nil {
				return nil, err
			}
			val, err := javaToGo(t.Elems[1], m.vals[i])
			if err != nil {
				return nil, err
			}
			out[i] = cql.MapEntry{Key: k, Value: val}
		}
		return out, nil
	case cql.KindTuple, cql.KindUDT:
		tv, ok := v.(*jTuple)
		if !ok || tv.t.Kind != t.Kind || len(tv.vals) != len(t.Elems) {
			return nil, classCast(v, t)
		}
		out := make([]any, len(tv.vals))
		for i, e := range tv.vals {
			g, err := javaToGo(t.Elems[i], e)
			if err != nil {
				return nil, err
			}
			out[i] = g
		}
		if t.Kind == cql.KindUDT {
			m := make(map[string]any, len(t.Fields))
			for i, f := range t.Fields {
				m[f] = out[i]
			}
			return m, nil
		}
		return out, nil
	}
	return nil, classCast(v, t)
}

// numberTo converts a numeric runtime value to the Go value of CQL
// numeric type t (widening only, as Java's boxing of a return value).
func numberTo(t *cql.Type, v any) (any, error) {
	switch t.Kind {
	case cql.KindFloat:
		switch x := v.(type) {
		case float32:
			return x, nil
		case float64:
			return nil, classCast(v, t)
		}
		if i, ok := integral(v); ok {
			return float32(i), nil
		}
	case cql.KindDouble:
		switch x := v.(type) {
		case float32:
			return float64(x), nil
		case float64:
			return x, nil
		}
		if i, ok := integral(v); ok {
			return float64(i), nil
		}
	default:
		i, ok := integral(v)
		if !ok {
			return nil, classCast(v, t)
		}
		rank := map[cql.Kind]int{cql.KindTinyint: 1, cql.KindSmallint: 2, cql.KindInt: 3, cql.KindBigint: 4, cql.KindCounter: 4}
		if intRank(v) > rank[t.Kind] {
			return nil, classCast(v, t)
		}
		switch t.Kind {
		case cql.KindTinyint:
			return int8(i), nil
		case cql.KindSmallint:
			return int16(i), nil
		case cql.KindInt:
			return int32(i), nil
		}
		return i, nil
	}
	return nil, classCast(v, t)
}

func intRank(v any) int {
	switch v.(type) {
	case int8:
		return 1
	case int16:
		return 2
	case int32, jchar:
		return 3
	}
	return 4
}

// integral returns an integer runtime value as int64.
func integral(v any) (int64, bool) {
	switch x := v.(type) {
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case jchar:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	}
	return 0, false
}

// runtimeClass names a runtime value's Java class.
func runtimeClass(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "java.lang.Boolean"
	case int8:
		return "java.lang.Byte"
	case int16:
		return "java.lang.Short"
	case jchar:
		return "java.lang.Character"
	case int32:
		return "java.lang.Integer"
	case int64:
		return "java.lang.Long"
	case float32:
		return "java.lang.Float"
	case float64:
		return "java.lang.Double"
	case string:
		return "java.lang.String"
	case *jBuilder:
		return "java.lang.StringBuilder"
	case *jList:
		return "java.util.ArrayList"
	case *jSet:
		return "java.util.LinkedHashSet"
	case *jMap:
		return "java.util.LinkedHashMap"
	case *jEntry:
		return "java.util.Map$Entry"
	case *jTuple:
		return "TupleValue"
	}
	return fmt.Sprintf("%T", v)
}
