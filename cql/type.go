package cql

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is a CQL data type kind.
type Kind int

// CQL type kinds. The order is not significant; names are given by Kind.String.
const (
	KindInvalid Kind = iota
	KindAscii
	KindBigint
	KindBlob
	KindBoolean
	KindCounter
	KindDate
	KindDecimal
	KindDouble
	KindDuration
	KindFloat
	KindInet
	KindInt
	KindSmallint
	KindText // varchar is an alias
	KindTime
	KindTimestamp
	KindTimeuuid
	KindTinyint
	KindUUID
	KindVarint
	KindList
	KindSet
	KindMap
	KindTuple
	KindUDT
	KindVector
)

var kindNames = map[Kind]string{
	KindAscii: "ascii", KindBigint: "bigint", KindBlob: "blob", KindBoolean: "boolean",
	KindCounter: "counter", KindDate: "date", KindDecimal: "decimal", KindDouble: "double",
	KindDuration: "duration", KindFloat: "float", KindInet: "inet", KindInt: "int",
	KindSmallint: "smallint", KindText: "text", KindTime: "time", KindTimestamp: "timestamp",
	KindTimeuuid: "timeuuid", KindTinyint: "tinyint", KindUUID: "uuid", KindVarint: "varint",
	KindList: "list", KindSet: "set", KindMap: "map", KindTuple: "tuple", KindUDT: "udt",
	KindVector: "vector",
}

// String returns the CQL name of the kind ("int", "map", ...).
func (k Kind) String() string {
	if n, ok := kindNames[k]; ok {
		return n
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// KindByName maps a CQL scalar type name (case-insensitive, "varchar" included)
// to its kind. Collection and tuple names are not scalar and return false.
func KindByName(name string) (Kind, bool) {
	n := strings.ToLower(name)
	if n == "varchar" {
		return KindText, true
	}
	for k, s := range kindNames {
		if s == n && k < KindList {
			return k, true
		}
	}
	return KindInvalid, false
}

// Type is a CQL data type. Scalars have no Elems; list and set have one element
// type, map has two (key, value), tuple has one per component. UDTs are named
// by Keyspace and Name with their fields in Fields/Elems (same order).
type Type struct {
	Kind   Kind
	Elems  []*Type
	Frozen bool

	// UDT only.
	Keyspace string
	Name     string
	Fields   []string

	// Dim is a vector's dimension (Elems holds its one element type).
	Dim int

	// Custom is the class name of a custom type written by class name
	// (Kind is then blob: values are opaque bytes); "" for CQL types.
	Custom string
}

// Scalar returns a type of a scalar kind.
func Scalar(k Kind) *Type { return &Type{Kind: k} }

// ListOf, SetOf, MapOf and TupleOf build collection and tuple types.
func ListOf(e *Type) *Type     { return &Type{Kind: KindList, Elems: []*Type{e}} }
func SetOf(e *Type) *Type      { return &Type{Kind: KindSet, Elems: []*Type{e}} }
func MapOf(k, v *Type) *Type   { return &Type{Kind: KindMap, Elems: []*Type{k, v}} }
func TupleOf(e ...*Type) *Type { return &Type{Kind: KindTuple, Elems: e} }
func FrozenOf(t *Type) *Type   { c := *t; c.Frozen = true; return &c }
func (t *Type) IsCollection() bool {
	return t.Kind == KindList || t.Kind == KindSet || t.Kind == KindMap
}

// MultiCell reports whether values of this type are stored as one cell per
// element (non-frozen collections and UDTs), as Cassandra does.
func (t *Type) MultiCell() bool {
	return !t.Frozen && (t.IsCollection() || t.Kind == KindUDT)
}

// String renders the type as CQL ("frozen<map<text, int>>"). Tuples are always
// frozen in CQL, so "frozen<" is not repeated for them.
func (t *Type) String() string {
	if t == nil {
		return "<nil>"
	}
	if t.Custom != "" {
		return "'" + t.Custom + "'"
	}
	var s string
	switch t.Kind {
	case KindList, KindSet:
		s = t.Kind.String() + "<" + t.Elems[0].String() + ">"
	case KindMap:
		s = "map<" + t.Elems[0].String() + ", " + t.Elems[1].String() + ">"
	case KindTuple:
		parts := make([]string, len(t.Elems))
		for i, e := range t.Elems {
			parts[i] = e.String()
		}
		return "tuple<" + strings.Join(parts, ", ") + ">"
	case KindUDT:
		s = QuoteIdent(t.Name)
	case KindVector:
		return "vector<" + t.Elems[0].String() + ", " + strconv.Itoa(t.Dim) + ">"
	default:
		s = t.Kind.String()
	}
	if t.Frozen {
		return "frozen<" + s + ">"
	}
	return s
}

// Equal reports whether two types are identical, frozenness included.
func (t *Type) Equal(o *Type) bool {
	if t == nil || o == nil {
		return t == o
	}
	if t.Kind != o.Kind || t.Frozen != o.Frozen || len(t.Elems) != len(o.Elems) ||
		t.Name != o.Name || t.Keyspace != o.Keyspace || t.Custom != o.Custom || t.Dim != o.Dim {
		return false
	}
	for i := range t.Elems {
		if !t.Elems[i].Equal(o.Elems[i]) {
			return false
		}
	}
	return true
}

// QuoteIdent returns an identifier as CQL source: unchanged when it is a
// lower-case unquoted identifier that is not a reserved word, otherwise
// double-quoted with inner quotes doubled.
func QuoteIdent(name string) string {
	if name == "" {
		return `""`
	}
	plain := true
	for i, r := range name {
		switch {
		case r >= 'a' && r <= 'z':
		case (r >= '0' && r <= '9' || r == '_') && i > 0:
		default:
			plain = false
		}
	}
	if plain && !IsReserved(name) {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}
