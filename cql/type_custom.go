package cql

import (
	"encoding/hex"
	"sort"
	"strings"
)

// Custom types are written as a quoted class name of Cassandra's
// org.apache.cassandra.db.marshal package ('org.apache.cassandra.db.marshal.LexicalUUIDType'
// or the short 'LexicalUUIDType'). As in Cassandra, a class that is a native
// CQL type is that type ('Int32Type' is int, 'ReversedType(Int32Type)' is
// int, 'ListType(Int32Type)' is list<int>); any other known class is a
// custom type: its values are opaque bytes (Kind blob) and Custom holds the
// full class name, which is what Cassandra reports in metadata.

// marshalPackage is the package of Cassandra's type classes.
const marshalPackage = "org.apache.cassandra.db.marshal."

// marshalNative maps the classes of native CQL types to their kinds.
var marshalNative = map[string]Kind{
	"AsciiType": KindAscii, "LongType": KindBigint, "BytesType": KindBlob, "BooleanType": KindBoolean,
	"CounterColumnType": KindCounter, "SimpleDateType": KindDate, "DecimalType": KindDecimal,
	"DoubleType": KindDouble, "DurationType": KindDuration, "FloatType": KindFloat,
	"InetAddressType": KindInet, "Int32Type": KindInt, "ShortType": KindSmallint, "UTF8Type": KindText,
	"TimeType": KindTime, "TimestampType": KindTimestamp, "TimeUUIDType": KindTimeuuid,
	"ByteType": KindTinyint, "UUIDType": KindUUID, "IntegerType": KindVarint,
}

// marshalCustom lists the non-native classes dohyo accepts as custom types,
// with the name Cassandra reports for them.
var marshalCustom = map[string]string{
	"LexicalUUIDType": marshalPackage + "LexicalUUIDType",
	"EmptyType":       marshalPackage + "EmptyType",
}

// customClassType resolves a class name written as a type; ok is false (with
// Cassandra's message) for a class Cassandra would not find.
func customClassType(class string) (t *Type, msg string) {
	c := strings.TrimSpace(class)
	name, args := c, ""
	if i := strings.IndexByte(c, '('); i >= 0 && strings.HasSuffix(c, ")") {
		name, args = c[:i], c[i+1:len(c)-1]
	}
	short := strings.TrimPrefix(name, marshalPackage)
	full := name
	if !strings.Contains(name, ".") {
		full = marshalPackage + name
	}
	notFound := "Error setting type " + c + ": Unable to find abstract-type class '" + full + "'"
	if strings.Contains(short, ".") {
		return nil, notFound
	}
	parts := splitClassArgs(args)
	sub := func(i int) (*Type, string) {
		if i >= len(parts) {
			return nil, "Error setting type " + c + ": missing type parameter"
		}
		return customClassType(parts[i])
	}
	switch short {
	case "ReversedType":
		return sub(0)
	case "FrozenType":
		t, m := sub(0)
		if t != nil {
			t = FrozenOf(t)
		}
		return t, m
	case "ListType", "SetType":
		e, m := sub(0)
		if e == nil {
			return nil, m
		}
		if short == "ListType" {
			return ListOf(e), ""
		}
		return SetOf(e), ""
	case "VectorType":
		return parseVectorClass(c, args)
	case "CompositeType", "DynamicCompositeType":
		name, ok := compositeClass(short, parts)
		if !ok {
			return nil, "Error setting type " + c + ": Invalid definition for comparator " + marshalPackage + short + "."
		}
		return &Type{Kind: KindBlob, Custom: name}, ""
	case "TupleType":
		elems := make([]*Type, len(parts))
		for i := range parts {
			e, m := sub(i)
			if e == nil {
				return nil, m
			}
			elems[i] = e
		}
		if len(elems) == 0 {
			return nil, "Error setting type " + c + ": missing type parameter"
		}
		return TupleOf(elems...), ""
	case "UserType":
		return parseUserTypeClass(c, parts)
	case "MapType":
		k, m := sub(0)
		if k == nil {
			return nil, m
		}
		v, m := sub(1)
		if v == nil {
			return nil, m
		}
		return MapOf(k, v), ""
	}
	if k, ok := marshalNative[short]; ok && args == "" {
		return Scalar(k), ""
	}
	if rep, ok := marshalCustom[short]; ok {
		return &Type{Kind: KindBlob, Custom: rep}, ""
	}
	return nil, notFound
}

// splitClassArgs splits "A,B(C,D)" at top-level commas.
func splitClassArgs(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// parseUserTypeClass resolves "UserType(ks,hexname,hexfield:class,...)",
// how Cassandra names a user-defined type in protocol metadata.
func parseUserTypeClass(c string, parts []string) (*Type, string) {
	bad := "Error setting type " + c + ": malformed user type"
	if len(parts) < 2 {
		return nil, bad
	}
	name, err := hex.DecodeString(strings.TrimSpace(parts[1]))
	if err != nil {
		return nil, bad
	}
	u := &Type{Kind: KindUDT, Keyspace: strings.TrimSpace(parts[0]), Name: string(name)}
	for _, f := range parts[2:] {
		fn, fc, ok := strings.Cut(f, ":")
		field, err := hex.DecodeString(strings.TrimSpace(fn))
		if !ok || err != nil {
			return nil, bad
		}
		e, m := customClassType(fc)
		if e == nil {
			return nil, m
		}
		u.Fields = append(u.Fields, string(field))
		u.Elems = append(u.Elems, e)
	}
	return u, ""
}

// ParseClass resolves a type class name as protocol metadata carries it
// (a custom type's): the CQL type for native and vector classes, a custom
// type keeping the name for Cassandra's other known classes; ok is false
// for a class dohyo does not know.
func ParseClass(class string) (*Type, bool) {
	t, _ := customClassType(class)
	return t, t != nil
}

// IsCompositeClass reports a custom type of Cassandra's CompositeType or
// DynamicCompositeType: opaque bytes to dohyo, which Cassandra orders
// component by component.
func IsCompositeClass(t *Type) bool {
	return t != nil && (strings.HasPrefix(t.Custom, marshalPackage+"CompositeType(") ||
		strings.HasPrefix(t.Custom, marshalPackage+"DynamicCompositeType("))
}

// compositeClass is the name Cassandra reports for CompositeType(...) or
// DynamicCompositeType(...) with these parameters: each a type class
// (fully qualified, as Cassandra prints it), a dynamic composite's as
// alias=>class with a one-character alias, in the order of Java's
// HashMap<Byte, ...> of the aliases. ok is false for an invalid definition.
func compositeClass(short string, params []string) (string, bool) {
	var out []string
	var aliases []byte
	for _, p := range params {
		p = strings.TrimSpace(p)
		if short == "DynamicCompositeType" {
			a, cls, ok := strings.Cut(p, "=>")
			a = strings.TrimSpace(a)
			if !ok || len(a) != 1 {
				return "", false
			}
			p = cls
			aliases = append(aliases, a[0])
		}
		name, ok := canonicalClass(p)
		if !ok {
			return "", false
		}
		if short == "DynamicCompositeType" {
			name = string(aliases[len(aliases)-1]) + "=>" + name
		}
		out = append(out, name)
	}
	if short == "DynamicCompositeType" {
		out = javaByteMapOrder(aliases, out)
	}
	return marshalPackage + short + "(" + strings.Join(out, ",") + ")", true
}

// canonicalClass is a type class as Cassandra prints it: every class
// fully qualified, no spaces; ok is false for a class it would not find.
func canonicalClass(class string) (string, bool) {
	t, _ := customClassType(class)
	if t == nil {
		return "", false
	}
	c := strings.TrimSpace(class)
	name, args := c, ""
	if i := strings.IndexByte(c, '('); i >= 0 && strings.HasSuffix(c, ")") {
		name, args = c[:i], c[i+1:len(c)-1]
	}
	short := strings.TrimPrefix(name, marshalPackage)
	switch {
	case t.Custom != "":
		return t.Custom, true
	case short == "VectorType" || short == "TupleType" || short == "UserType":
		return marshalClassName(t), true
	case args == "":
		return marshalPackage + short, true
	}
	parts := splitClassArgs(args)
	for i, p := range parts {
		cp, ok := canonicalClass(p)
		if !ok {
			return "", false
		}
		parts[i] = cp
	}
	return marshalPackage + short + "(" + strings.Join(parts, ",") + ")", true
}

// javaByteMapOrder orders items keyed by distinct bytes as a
// java.util.HashMap<Byte, ...> built in that order iterates them: by
// bucket (the byte's value modulo a capacity of 16, doubling past a 0.75
// load), insertion order within a bucket.
func javaByteMapOrder(keys []byte, items []string) []string {
	capacity := 16
	for len(keys) > capacity*3/4 {
		capacity *= 2
	}
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	bucket := func(i int) int {
		h := uint32(int32(int8(keys[i]))) // Byte.hashCode, then HashMap.hash
		return int((h ^ h>>16) & uint32(capacity-1))
	}
	sort.SliceStable(idx, func(a, b int) bool { return bucket(idx[a]) < bucket(idx[b]) })
	out := make([]string, len(items))
	for i, j := range idx {
		out[i] = items[j]
	}
	return out
}
