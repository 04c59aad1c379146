package cql

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
)

// Vectors (Cassandra 5.0's vector<T, n>) are fixed-dimension, single-cell
// values. Their serialized form is the n element values concatenated: without
// length prefixes when the element type has a fixed size (float, double, int,
// bigint, boolean, timestamp, uuid, timeuuid), each prefixed by its length as
// an unsigned vint otherwise. Elements may not be null.

// VectorOf builds the type vector<e, dim>.
func VectorOf(e *Type, dim int) *Type { return &Type{Kind: KindVector, Elems: []*Type{e}, Dim: dim} }

// vectorClass is the Java class Cassandra names vectors by in protocol
// metadata.
const vectorClass = marshalPackage + "VectorType"

// elemFixedSize is the serialized size of a fixed-size vector element type,
// or -1 when elements are length-prefixed (Cassandra's valueLengthIfFixed).
func elemFixedSize(t *Type) int {
	switch t.Kind {
	case KindBoolean:
		return 1
	case KindFloat, KindInt:
		return 4
	case KindDouble, KindBigint, KindTimestamp:
		return 8
	case KindUUID, KindTimeuuid:
		return 16
	case KindVector:
		// A vector of fixed-size elements has a fixed size itself.
		if len(t.Elems) == 1 && t.Elems[0] != nil {
			if n := elemFixedSize(t.Elems[0]); n > 0 {
				return n * t.Dim
			}
		}
	}
	return -1
}

// BuildVector serializes vector elements of type et (none may be nil).
func BuildVector(et *Type, items [][]byte) []byte {
	fixed := elemFixedSize(et)
	size := 0
	for _, it := range items {
		size += len(it) + 2
	}
	out := make([]byte, 0, size)
	for _, it := range items {
		if fixed < 0 {
			out = appendUvint(out, uint64(len(it)))
		}
		out = append(out, it...)
	}
	return out
}

// SplitVector parses a serialized vector of type t into its elements, with
// Cassandra's messages for a value of the wrong size.
func SplitVector(t *Type, b []byte) ([][]byte, error) {
	if len(b) == 0 {
		return nil, valueErrf("Invalid empty vector value")
	}
	et, n := t.Elems[0], t.Dim
	fixed := elemFixedSize(et)
	if fixed > 0 {
		if len(b) < fixed*n {
			return nil, valueErrf("Not enough bytes to read a %s", t)
		}
		if len(b) > fixed*n {
			return nil, valueErrf("Unexpected %d extraneous bytes after %s value", len(b)-fixed*n, t)
		}
		items := make([][]byte, n)
		for i := range items {
			items[i] = b[i*fixed : (i+1)*fixed : (i+1)*fixed]
		}
		return items, nil
	}
	if n > len(b) {
		return nil, valueErrf("Not enough bytes to read a %s", t)
	}
	items := make([][]byte, 0, n)
	off := 0
	for i := 0; i < n; i++ {
		l, next, ok := readUvint(b, off)
		if !ok || uint64(len(b)-next) < l {
			return nil, valueErrf("Not enough bytes to read a %s", t)
		}
		items = append(items, b[next:next+int(l):next+int(l)])
		off = next + int(l)
	}
	if off != len(b) {
		return nil, valueErrf("Unexpected %d extraneous bytes after %s value", len(b)-off, t)
	}
	return items, nil
}

// validateVector checks a vector's size and every element.
func validateVector(t *Type, b []byte) error {
	items, err := SplitVector(t, b)
	if err != nil {
		return err
	}
	for _, it := range items {
		if err := validate(t.Elems[0], it); err != nil {
			return err
		}
	}
	return nil
}

// VectorFloats decodes a vector<float, n> value; ok is false for another
// type or a malformed value.
func VectorFloats(t *Type, b []byte) ([]float32, bool) {
	if t == nil || t.Kind != KindVector || len(t.Elems) != 1 || t.Elems[0].Kind != KindFloat || len(b) != 4*t.Dim {
		return nil, false
	}
	out := make([]float32, t.Dim)
	for i := range out {
		out[i] = math.Float32frombits(binary.BigEndian.Uint32(b[4*i:]))
	}
	return out, true
}

// VectorClassName is the protocol (custom type) class name of a vector type,
// as Cassandra writes it: "org.apache.cassandra.db.marshal.VectorType(
// org.apache.cassandra.db.marshal.FloatType , 3)" without the line break.
func VectorClassName(t *Type) string {
	return vectorClass + "(" + marshalClassName(t.Elems[0]) + " , " + strconv.Itoa(t.Dim) + ")"
}

// ParseVectorClass resolves a protocol custom type class naming a vector
// ("org.apache.cassandra.db.marshal.VectorType(...FloatType , 3)"); ok is
// false for any other class.
func ParseVectorClass(class string) (*Type, bool) {
	if !strings.HasPrefix(strings.TrimSpace(class), vectorClass+"(") {
		return nil, false
	}
	t, _ := customClassType(class)
	return t, t != nil && t.Kind == KindVector
}

// messageType prints a type as Cassandra's messages do (its CQL3Type):
// as String, except that a frozen tuple shows frozen<> (tuples always are
// in a vector or a collection).
func messageType(t *Type) string {
	switch {
	case t == nil || t.Custom != "":
		return t.String()
	case t.Kind == KindTuple:
		parts := make([]string, len(t.Elems))
		for i, e := range t.Elems {
			parts[i] = messageType(e)
		}
		s := "tuple<" + strings.Join(parts, ", ") + ">"
		if t.Frozen {
			s = "frozen<" + s + ">"
		}
		return s
	case t.Kind == KindVector && len(t.Elems) == 1:
		return "vector<" + messageType(t.Elems[0]) + ", " + strconv.Itoa(t.Dim) + ">"
	}
	return t.String()
}

// marshalClassName is the Cassandra class name of a type.
func marshalClassName(t *Type) string {
	if t.Custom != "" {
		return t.Custom
	}
	switch t.Kind {
	case KindList, KindSet:
		c := "ListType"
		if t.Kind == KindSet {
			c = "SetType"
		}
		return frozenClass(t, marshalPackage+c+"("+marshalClassName(t.Elems[0])+")")
	case KindMap:
		return frozenClass(t, marshalPackage+"MapType("+marshalClassName(t.Elems[0])+","+marshalClassName(t.Elems[1])+")")
	case KindVector:
		return VectorClassName(t)
	case KindTuple:
		parts := make([]string, len(t.Elems))
		for i, e := range t.Elems {
			parts[i] = marshalClassName(e)
		}
		return marshalPackage + "TupleType(" + strings.Join(parts, ",") + ")"
	case KindUDT:
		parts := []string{t.Keyspace, hex.EncodeToString([]byte(t.Name))}
		for i, e := range t.Elems {
			if i < len(t.Fields) {
				parts = append(parts, hex.EncodeToString([]byte(t.Fields[i]))+":"+marshalClassName(e))
			}
		}
		return frozenClass(t, marshalPackage+"UserType("+strings.Join(parts, ",")+")")
	}
	for name, k := range marshalNative {
		if k == t.Kind {
			return marshalPackage + name
		}
	}
	return marshalPackage + "BytesType"
}

func frozenClass(t *Type, c string) string {
	if t.Frozen {
		return marshalPackage + "FrozenType(" + c + ")"
	}
	return c
}

// parseVectorClass resolves "VectorType(elem , n)" class arguments.
func parseVectorClass(c, args string) (*Type, string) {
	parts := splitClassArgs(args)
	if len(parts) != 2 {
		return nil, "Error setting type " + c + ": expected an element type and a dimension"
	}
	e, msg := customClassType(parts[0])
	if e == nil {
		return nil, msg
	}
	n, err := strconv.Atoi(strings.TrimSpace(parts[1]))
	if err != nil || n <= 0 {
		return nil, "Error setting type " + c + ": vectors may only have positive dimensions; given " + strings.TrimSpace(parts[1])
	}
	return VectorOf(e, n), ""
}

// encodeVector encodes a list literal for a vector receiver.
func encodeVector(t *Type, c *CollectionLit, recv string, r Resolver) ([]byte, error) {
	if len(c.Values) != t.Dim {
		return nil, valueErrf("Invalid vector literal for %s of type %s; expected %d elements, but given %d",
			recv, messageType(t), t.Dim, len(c.Values))
	}
	for _, e := range c.Values {
		if l, ok := e.(*Literal); ok && l.Kind == LitNull {
			return nil, valueErrf("null is not supported inside vectors")
		}
		if !assignable(t.Elems[0], e) {
			return nil, valueErrf("Invalid vector literal for %s: value %s is not of type %s", recv, termText(e), messageType(t.Elems[0]))
		}
	}
	items := make([][]byte, 0, len(c.Values))
	for _, e := range c.Values {
		b, err := encodeTerm(t.Elems[0], e, valueSpec(recv), r)
		if err != nil {
			return nil, err
		}
		if b == nil {
			return nil, valueErrf("null is not supported inside vectors")
		}
		items = append(items, b)
	}
	return BuildVector(t.Elems[0], items), nil
}

// formatVector renders a vector as a list literal.
func formatVector(sb *strings.Builder, t *Type, b []byte) {
	items, err := SplitVector(t, b)
	if err != nil {
		writeRaw(sb, t, b)
		return
	}
	sb.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			sb.WriteString(", ")
		}
		formatValue(sb, t.Elems[0], it)
	}
	sb.WriteByte(']')
}

// compareVector orders vectors element by element.
func compareVector(t *Type, a, b []byte) (int, bool) {
	x, err1 := SplitVector(t, a)
	y, err2 := SplitVector(t, b)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	for i := range x {
		if c := Compare(t.Elems[0], x[i], y[i]); c != 0 {
			return c, true
		}
	}
	return 0, true
}
