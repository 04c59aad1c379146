package cql

import (
	"encoding/hex"
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
	"LexicalUUIDType":      marshalPackage + "LexicalUUIDType",
	"DynamicCompositeType": marshalPackage + "DynamicCompositeType()",
	"EmptyType":            marshalPackage + "EmptyType",
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
