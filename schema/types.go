package schema

import (
	"strconv"
	"strings"

	"github.com/dohyo/dohyo/cql"
)

// TypeString renders a column type as Cassandra does in DESCRIBE output and
// system_schema.columns.type: frozen collections and UDTs as frozen<...>,
// tuples always as frozen<tuple<...>>, UDT names quoted when needed.
func TypeString(t *cql.Type) string {
	if t == nil {
		return ""
	}
	if t.Custom != "" {
		return "'" + t.Custom + "'"
	}
	var s string
	switch t.Kind {
	case cql.KindList, cql.KindSet:
		if len(t.Elems) != 1 {
			return t.Kind.String()
		}
		s = t.Kind.String() + "<" + TypeString(t.Elems[0]) + ">"
	case cql.KindMap:
		if len(t.Elems) != 2 {
			return "map"
		}
		s = "map<" + TypeString(t.Elems[0]) + ", " + TypeString(t.Elems[1]) + ">"
	case cql.KindTuple:
		return "frozen<tuple<" + joinTypes(t.Elems, TypeString) + ">>"
	case cql.KindUDT:
		s = cql.QuoteIdent(t.Name)
	case cql.KindVector:
		return "vector<" + TypeString(t.Elems[0]) + ", " + strconv.Itoa(t.Dim) + ">"
	default:
		return t.Kind.String()
	}
	if t.Frozen {
		return "frozen<" + s + ">"
	}
	return s
}

// rawTypeString renders a type as Cassandra's unprepared types print in
// error messages: tuples without frozen<>, UDTs with their keyspace.
func rawTypeString(t *cql.Type) string {
	var s string
	switch t.Kind {
	case cql.KindList, cql.KindSet:
		s = t.Kind.String() + "<" + rawTypeString(t.Elems[0]) + ">"
	case cql.KindMap:
		s = "map<" + rawTypeString(t.Elems[0]) + ", " + rawTypeString(t.Elems[1]) + ">"
	case cql.KindTuple:
		return "tuple<" + joinTypes(t.Elems, rawTypeString) + ">"
	case cql.KindUDT:
		s = udtName(t)
	case cql.KindVector:
		return "vector<" + rawTypeString(t.Elems[0]) + ", " + strconv.Itoa(t.Dim) + ">"
	default:
		return t.Kind.String()
	}
	if t.Frozen {
		return "frozen<" + s + ">"
	}
	return s
}

func udtName(t *cql.Type) string {
	if t.Keyspace != "" {
		return t.Keyspace + "." + t.Name
	}
	return t.Name
}

func joinTypes(ts []*cql.Type, f func(*cql.Type) string) string {
	parts := make([]string, len(ts))
	for i, e := range ts {
		parts[i] = f(e)
	}
	return strings.Join(parts, ", ")
}

// supportsFreezing reports whether frozen<> applies to the type.
func supportsFreezing(t *cql.Type) bool {
	return t.IsCollection() || t.Kind == cql.KindTuple || t.Kind == cql.KindUDT
}

// prepareType validates a type written in a statement on keyspace ks and
// returns its canonical form: frozen<> propagated to every nested
// collection, tuple and UDT, tuples marked frozen. Messages follow
// Cassandra's CQL3Type.Raw.prepare.
func prepareType(raw *cql.Type, ks string, types map[string]*UserType) (*cql.Type, *Error) {
	if err := checkShape(raw); err != nil {
		return nil, err
	}
	t := normalizeType(raw, false)
	if err := validateType(t, ks, types); err != nil {
		return nil, err
	}
	if r := resolveUDTs(t, types); r != nil {
		t = r
	}
	return t, nil
}

// checkShape rejects malformed types (a hand-built AST can hold anything)
// and frozen<> on scalars, which Cassandra rejects while parsing.
func checkShape(t *cql.Type) *Error {
	if t == nil {
		return invalidf("Unknown type")
	}
	want := -1
	switch t.Kind {
	case cql.KindList, cql.KindSet:
		want = 1
	case cql.KindMap:
		want = 2
	case cql.KindTuple:
		if len(t.Elems) == 0 {
			return syntaxf("Invalid tuple type: tuple<>")
		}
	case cql.KindUDT:
		if t.Name == "" {
			return invalidf("Unknown type")
		}
	case cql.KindVector:
		want = 1
		if t.Dim <= 0 {
			return invalidf("vectors may only have positive dimensions; given %d", t.Dim)
		}
	case cql.KindInvalid:
		return invalidf("Unknown type")
	default:
		if _, ok := cql.KindByName(t.Kind.String()); !ok {
			return invalidf("Unknown type %s", t.Kind)
		}
		if t.Frozen {
			return invalidf("frozen<> is only allowed on collections, tuples, and user-defined types (got %s)", t.Kind)
		}
	}
	if want >= 0 && len(t.Elems) != want {
		return syntaxf("Invalid %s type: %d element types", t.Kind, len(t.Elems))
	}
	for _, e := range t.Elems {
		if err := checkShape(e); err != nil {
			return err
		}
	}
	return nil
}

// normalizeType copies t, freezing everything nested in a frozen type.
func normalizeType(t *cql.Type, frozen bool) *cql.Type {
	c := *t
	if frozen && supportsFreezing(&c) {
		c.Frozen = true
	}
	if c.Kind == cql.KindTuple {
		c.Frozen = true // tuples are implicitly frozen
	}
	if c.Kind == cql.KindVector {
		c.Frozen = false // a vector is one cell; frozen<> changes nothing
	}
	if len(t.Elems) > 0 {
		c.Elems = make([]*cql.Type, len(t.Elems))
		for i, e := range t.Elems {
			c.Elems[i] = normalizeType(e, c.Frozen)
		}
	}
	if t.Fields != nil {
		c.Fields = append([]string(nil), t.Fields...)
	}
	return &c
}

func validateType(t *cql.Type, ks string, types map[string]*UserType) *Error {
	switch t.Kind {
	case cql.KindList, cql.KindSet, cql.KindMap:
		vals := t.Elems[len(t.Elems)-1]
		if !t.Frozen && supportsFreezing(vals) && !vals.Frozen {
			if err := nestedNonFrozen(t, vals); err != nil {
				return err
			}
		}
		if vals.Kind == cql.KindCounter {
			return invalidf("Counters are not allowed inside collections: %s", rawTypeString(t))
		}
		if vals.Kind == cql.KindDuration && t.Kind == cql.KindSet {
			return invalidf("Durations are not allowed inside sets: %s", rawTypeString(t))
		}
		if t.Kind == cql.KindMap {
			keys := t.Elems[0]
			if keys.Kind == cql.KindCounter {
				return invalidf("Counters are not allowed inside collections: %s", rawTypeString(t))
			}
			if keys.Kind == cql.KindDuration {
				return invalidf("Durations are not allowed as map keys: %s", rawTypeString(t))
			}
			if !t.Frozen && supportsFreezing(keys) && !keys.Frozen {
				if err := nestedNonFrozen(t, keys); err != nil {
					return err
				}
			}
		}
		for i := len(t.Elems) - 1; i >= 0; i-- {
			if err := validateType(t.Elems[i], ks, types); err != nil {
				return err
			}
		}
	case cql.KindVector:
		// Cassandra 5.0 takes any element type, composites included;
		// their own rules still hold (vector<set<list<int>>, 2> is refused).
		for _, e := range t.Elems {
			if err := validateType(e, ks, types); err != nil {
				return err
			}
		}
	case cql.KindTuple:
		for _, e := range t.Elems {
			if e.Kind == cql.KindCounter {
				return invalidf("Counters are not allowed inside tuples")
			}
			if err := validateType(e, ks, types); err != nil {
				return err
			}
		}
	case cql.KindUDT:
		if t.Keyspace != "" && t.Keyspace != ks {
			return invalidf("Statement on keyspace %s cannot refer to a user type in keyspace %s; "+
				"user types can only be used in the keyspace they are defined in", ks, t.Keyspace)
		}
		u := types[t.Name]
		if u == nil {
			return invalidf("Unknown type %s.%s", ks, t.Name)
		}
		if !t.Frozen {
			for _, f := range u.FieldTypes {
				if f.MultiCell() {
					return invalidf("Non-frozen UDTs with nested non-frozen collections are not supported")
				}
			}
		}
	}
	return nil
}

func nestedNonFrozen(outer, inner *cql.Type) *Error {
	switch {
	case inner.IsCollection():
		return invalidf("Non-frozen collections are not allowed inside collections: %s", rawTypeString(outer))
	case inner.Kind == cql.KindUDT:
		return invalidf("Non-frozen UDTs are not allowed inside collections: %s", rawTypeString(outer))
	}
	return nil
}

// referencesDuration reports whether t is or contains duration.
func referencesDuration(t *cql.Type) bool {
	if t.Kind == cql.KindDuration {
		return true
	}
	for _, e := range t.Elems {
		if referencesDuration(e) {
			return true
		}
	}
	return false
}

// typesCompatible reports whether a column of type b may be re-added over
// dropped data of type a. Cassandra checks serialization compatibility;
// dohyo requires the same type (text and varchar are one kind already).
func typesCompatible(a, b *cql.Type) bool {
	return a.Equal(b)
}
