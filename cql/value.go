package cql

// Values are CQL-serialized bytes exactly as the native protocol (v3+) puts
// them on the wire (native_protocol_v4.spec §6, v5 §5): a nil []byte is null,
// a non-nil empty slice is Cassandra's "empty value". This file holds the
// shared error type, the Resolver seam, Validate and Canonicalize; encoding of
// terms is in value_encode.go, rendering in value_format.go, ordering in
// value_compare.go and Go conversions in value_go.go.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"unicode/utf8"
)

// ValueError is an invalid value or term. Its message is Cassandra's own
// wording where Cassandra has one; executors answer it with a CQL Invalid
// error carrying Msg verbatim.
type ValueError struct{ Msg string }

func (e *ValueError) Error() string { return e.Msg }

func valueErrf(format string, args ...any) *ValueError {
	return &ValueError{Msg: fmt.Sprintf(format, args...)}
}

// ErrUnset is returned by EncodeTerm when the term is (or, for a collection,
// contains) a bind marker bound to the protocol's "unset" value: the caller
// must leave the column untouched. It is not a *ValueError.
var ErrUnset = errors.New("cql: unset value")

// Resolver supplies what a term cannot compute by itself. The executor
// implements it per request.
type Resolver interface {
	// Bind returns the bytes bound to marker m, whose receiver has type t.
	// unset reports the protocol's "unset" value (bytes are then ignored).
	Bind(m *BindMarker, t *Type) (b []byte, unset bool, err error)
	// Call evaluates a function call (now(), uuid(), currentTimestamp(),
	// toTimestamp(now()), token(...), ...) for a receiver of type t and
	// returns its CQL-serialized result. Names are lower-case. The string
	// 'now' for a timestamp arrives as a call of "currenttimestamp".
	// blobAs<type>/<type>AsBlob are handled by EncodeTerm itself.
	Call(fn *FuncCall, t *Type) ([]byte, error)
}

// NoResolver is a Resolver for contexts without bound values or functions
// (DDL defaults, tools, tests): every Bind and Call fails with a *ValueError.
type NoResolver struct{}

// Bind always fails.
func (NoResolver) Bind(m *BindMarker, t *Type) ([]byte, bool, error) {
	name := "?"
	if m != nil && m.Name != "" {
		name = ":" + m.Name
	}
	return nil, false, valueErrf("No value bound for bind marker %s", name)
}

// Call always fails.
func (NoResolver) Call(fn *FuncCall, t *Type) ([]byte, error) {
	name := ""
	if fn != nil {
		name = fn.Name
	}
	return nil, valueErrf("Function %s() cannot be evaluated here", name)
}

var _ Resolver = NoResolver{}

// ---- fixed-width helpers ----

func be16(v int16) []byte { return binary.BigEndian.AppendUint16(nil, uint16(v)) }
func be32(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }
func be64(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

// appendBytes appends a protocol [bytes]: int32 length (-1 for nil) + data.
func appendBytes(dst, b []byte) []byte {
	if b == nil {
		return binary.BigEndian.AppendUint32(dst, 0xFFFFFFFF)
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(b)))
	return append(dst, b...)
}

// buildCollection serializes a list or set (elems) or a map (alternating
// key, value) with n entries.
func buildCollection(n int, items [][]byte) []byte {
	size := 4
	for _, it := range items {
		size += 4 + len(it)
	}
	out := make([]byte, 0, size)
	out = binary.BigEndian.AppendUint32(out, uint32(n))
	for _, it := range items {
		out = appendBytes(out, it)
	}
	return out
}

// buildTuple serializes tuple components or UDT fields; nil is null.
func buildTuple(items [][]byte) []byte {
	size := 0
	for _, it := range items {
		size += 4 + len(it)
	}
	out := make([]byte, 0, size)
	for _, it := range items {
		out = appendBytes(out, it)
	}
	return out
}

// errShort and errExtra are internal signals turned into type-specific
// messages by the callers.
var (
	errShort = errors.New("short")
	errExtra = errors.New("extra")
)

// readBytes reads one [bytes] at b[off:], returning the value (nil for a
// negative length) and the next offset.
func readBytes(b []byte, off int) ([]byte, int, error) {
	if len(b)-off < 4 {
		return nil, off, errShort
	}
	n := int32(binary.BigEndian.Uint32(b[off:]))
	off += 4
	if n < 0 {
		return nil, off, nil
	}
	if int64(len(b)-off) < int64(n) {
		return nil, off, errShort
	}
	return b[off : off+int(n) : off+int(n)], off + int(n), nil
}

// splitCollection parses a list/set (per == 1) or map (per == 2) body into
// its items (keys and values alternate for maps). Items may be nil (null).
func splitCollection(b []byte, per int) ([][]byte, error) {
	if len(b) < 4 {
		return nil, errShort
	}
	n := int32(binary.BigEndian.Uint32(b))
	if n < 0 {
		return nil, errShort
	}
	// Every item needs at least 4 bytes, which bounds the allocation.
	if int64(n)*int64(per) > int64(len(b)-4)/4 {
		return nil, errShort
	}
	items := make([][]byte, 0, int(n)*per)
	off := 4
	for i := 0; i < int(n)*per; i++ {
		v, next, err := readBytes(b, off)
		if err != nil {
			return nil, err
		}
		items = append(items, v)
		off = next
	}
	if off != len(b) {
		return nil, errExtra
	}
	return items, nil
}

// splitTuple parses tuple components or UDT fields. Fewer components than
// the type declares is allowed (Cassandra allows it for field addition);
// more is not.
func splitTuple(b []byte, max int) ([][]byte, error) {
	var items [][]byte
	off := 0
	for off < len(b) {
		if len(items) == max {
			return nil, errExtra
		}
		v, next, err := readBytes(b, off)
		if err != nil {
			return nil, err
		}
		items = append(items, v)
		off = next
	}
	return items, nil
}

// ---- Validate ----

// Validate checks that b is a well-formed value of type t, as Cassandra does
// for bound values, with Cassandra's messages. nil (null) is always valid.
// Collections may not contain nulls.
func Validate(t *Type, b []byte) error {
	if b == nil {
		return nil
	}
	if t == nil {
		return valueErrf("Invalid value for unknown type")
	}
	return validate(t, b)
}

func validate(t *Type, b []byte) error {
	n := len(b)
	switch t.Kind {
	case KindInt:
		if n != 4 && n != 0 {
			return valueErrf("Expected 4 or 0 byte int (%d)", n)
		}
	case KindBigint, KindCounter:
		if n != 8 && n != 0 {
			return valueErrf("Expected 8 or 0 byte long (%d)", n)
		}
	case KindSmallint:
		if n != 2 {
			return valueErrf("Expected 2 bytes for a smallint (%d)", n)
		}
	case KindTinyint:
		if n != 1 {
			return valueErrf("Expected 1 byte for a tinyint (%d)", n)
		}
	case KindFloat:
		if n != 4 && n != 0 {
			return valueErrf("Expected 4 or 0 byte value for a float (%d)", n)
		}
	case KindDouble:
		if n != 8 && n != 0 {
			return valueErrf("Expected 8 or 0 byte value for a double (%d)", n)
		}
	case KindBoolean:
		if n != 1 && n != 0 {
			return valueErrf("Expected 1 or 0 byte value (%d)", n)
		}
	case KindTimestamp:
		if n != 8 && n != 0 {
			return valueErrf("Expected 8 or 0 byte long for date (%d)", n)
		}
	case KindDate:
		if n != 4 {
			return valueErrf("Expected 4 byte long for date (%d)", n)
		}
	case KindTime:
		if n != 8 {
			return valueErrf("Expected 8 byte long for time (%d)", n)
		}
	case KindUUID:
		if n != 16 && n != 0 {
			return valueErrf("UUID should be 16 or 0 bytes (%d)", n)
		}
	case KindTimeuuid:
		if n != 16 && n != 0 {
			return valueErrf("TimeUUID should be 16 or 0 bytes (%d)", n)
		}
		if n == 16 && b[6]&0xF0 != 0x10 {
			return valueErrf("Invalid version for TimeUUID type.")
		}
	case KindInet:
		if n != 0 && n != 4 && n != 16 {
			return valueErrf("Invalid length for an inet address (%d)", n)
		}
	case KindDecimal:
		if n != 0 && n < 4 {
			return valueErrf("Expected 0 or at least 4 bytes (%d)", n)
		}
	case KindVarint, KindBlob:
	case KindText:
		if !utf8.Valid(b) {
			return valueErrf("String didn't validate.")
		}
	case KindAscii:
		for _, c := range b {
			if c > 127 {
				return valueErrf("Invalid byte for ascii: %d", int(int8(c)))
			}
		}
	case KindDuration:
		_, err := decodeDuration(b)
		return err
	case KindList, KindSet, KindMap:
		return validateCollection(t, b)
	case KindTuple, KindUDT:
		return validateTuple(t, b)
	case KindVector:
		return validateVector(t, b)
	default:
		return valueErrf("Cannot validate a value of type %s", t.Kind)
	}
	return nil
}

func collectionWord(k Kind) string {
	switch k {
	case KindSet:
		return "set"
	case KindMap:
		return "map"
	}
	return "list"
}

func validateCollection(t *Type, b []byte) error {
	if len(t.Elems) < 1 || (t.Kind == KindMap && len(t.Elems) < 2) {
		return valueErrf("Invalid %s type without element types", t.Kind)
	}
	per := 1
	if t.Kind == KindMap {
		per = 2
	}
	items, err := splitCollection(b, per)
	switch err {
	case errShort:
		return valueErrf("Not enough bytes to read a %s", collectionWord(t.Kind))
	case errExtra:
		return valueErrf("Unexpected extraneous bytes after %s value", collectionWord(t.Kind))
	}
	for i, it := range items {
		if it == nil {
			return valueErrf("null is not supported inside collections")
		}
		if err := validate(t.Elems[i%per], it); err != nil {
			return err
		}
	}
	return nil
}

func validateTuple(t *Type, b []byte) error {
	what := "tuple"
	if t.Kind == KindUDT {
		what = "UDT"
	}
	off := 0
	for i := 0; off < len(b); i++ {
		if i >= len(t.Elems) {
			return valueErrf("Invalid remaining data after end of %s value", what)
		}
		field := ""
		if t.Kind == KindUDT && i < len(t.Fields) {
			field = " " + t.Fields[i]
		}
		if len(b)-off < 4 {
			if t.Kind == KindUDT {
				return valueErrf("Not enough bytes to read size of %dth field%s", i, field)
			}
			return valueErrf("Not enough bytes to read size of %dth component", i)
		}
		v, next, err := readBytes(b, off)
		if err != nil {
			if t.Kind == KindUDT {
				return valueErrf("Not enough bytes to read %dth field%s", i, field)
			}
			return valueErrf("Not enough bytes to read %dth component", i)
		}
		off = next
		if v != nil {
			if err := validate(t.Elems[i], v); err != nil {
				return err
			}
		}
	}
	return nil
}

// ---- Canonicalize ----

// Canonicalize returns b in the form Cassandra stores and returns it: set
// elements sorted by Compare and deduplicated (first wins), map entries
// sorted by key and deduplicated (last value wins), recursively inside
// lists, tuples and UDTs. b must be valid for t (see Validate). Values that
// are already canonical are returned unchanged (same slice).
func Canonicalize(t *Type, b []byte) ([]byte, error) {
	if b == nil || t == nil {
		return b, nil
	}
	if err := Validate(t, b); err != nil {
		return nil, err
	}
	if IsCompositeClass(t) {
		if err := validateComposite(t, b); err != nil {
			return nil, err
		}
	}
	return canonical(t, b), nil
}

// canonical assumes b is valid for t.
func canonical(t *Type, b []byte) []byte {
	switch t.Kind {
	case KindList, KindSet, KindMap:
		per := 1
		if t.Kind == KindMap {
			per = 2
		}
		items, err := splitCollection(b, per)
		if err != nil {
			return b
		}
		changed := false
		for i, it := range items {
			c := canonical(t.Elems[i%per], it)
			if !bytes.Equal(c, it) {
				changed = true
			}
			items[i] = c
		}
		switch t.Kind {
		case KindSet:
			sorted := sortUnique(t.Elems[0], items, 1)
			if len(sorted) != len(items) || !sameOrder(sorted, items) {
				return buildCollection(len(sorted), sorted)
			}
		case KindMap:
			sorted := sortUnique(t.Elems[0], items, 2)
			if len(sorted) != len(items) || !sameOrder(sorted, items) {
				return buildCollection(len(sorted)/2, sorted)
			}
		}
		if changed {
			return buildCollection(len(items)/per, items)
		}
		return b
	case KindTuple, KindUDT:
		items, err := splitTuple(b, len(t.Elems))
		if err != nil {
			return b
		}
		changed := false
		for i, it := range items {
			if it == nil {
				continue
			}
			c := canonical(t.Elems[i], it)
			if !bytes.Equal(c, it) {
				changed = true
			}
			items[i] = c
		}
		if changed {
			return buildTuple(items)
		}
	}
	return b
}

func sameOrder(a, b [][]byte) bool {
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// sortUnique sorts groups of per items by their first item under keyType's
// order. For duplicate keys the first group's key is kept (TreeSet/TreeMap
// semantics) and, for maps, the last group's value.
func sortUnique(keyType *Type, items [][]byte, per int) [][]byte {
	type group struct {
		idx  int
		item []byte
		val  []byte
	}
	gs := make([]group, 0, len(items)/per)
	for i := 0; i+per <= len(items); i += per {
		g := group{idx: i, item: items[i]}
		if per == 2 {
			g.val = items[i+1]
		}
		gs = append(gs, g)
	}
	sort.SliceStable(gs, func(i, j int) bool { return Compare(keyType, gs[i].item, gs[j].item) < 0 })
	out := make([][]byte, 0, len(items))
	for i := 0; i < len(gs); i++ {
		if i > 0 && Compare(keyType, gs[i-1].item, gs[i].item) == 0 {
			if per == 2 {
				out[len(out)-1] = gs[i].val // last value wins
			}
			continue
		}
		out = append(out, gs[i].item)
		if per == 2 {
			out = append(out, gs[i].val)
		}
	}
	return out
}
