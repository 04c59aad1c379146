package cql

// EncodeTerm: AST terms to CQL-serialized values, following Cassandra's
// Term.Raw.prepare/testAssignment rules and messages (Constants, Lists, Sets,
// Maps, Tuples, UserTypes, TypeCast).

import (
	"errors"
	"fmt"
	"strings"
)

// EncodeTerm converts term to the CQL-serialized value for a receiver of
// type t. receiver names the receiver in messages (a column name, or e.g.
// "value(c)" for collection elements). nil means null. Bind markers and
// functions other than blobAs<type>/<type>AsBlob go through r (nil means
// NoResolver). A marker bound to "unset" (directly, or inside a collection)
// yields ErrUnset; every other failure is a *ValueError. Set and map values
// come out in canonical order (see Canonicalize).
func EncodeTerm(t *Type, term Term, receiver string, r Resolver) ([]byte, error) {
	if !wellFormed(t) {
		return nil, valueErrf("Invalid type %s for %s", safeTypeName(t), receiver)
	}
	if r == nil {
		r = NoResolver{}
	}
	return encodeTerm(t, term, receiver, r)
}

func encodeTerm(t *Type, term Term, recv string, r Resolver) ([]byte, error) {
	switch x := term.(type) {
	case *Literal:
		return encodeLiteral(t, x, recv, r)
	case *BindMarker:
		b, unset, err := r.Bind(x, t)
		if err != nil {
			return nil, err
		}
		if unset {
			return nil, ErrUnset
		}
		if b == nil {
			if t.Kind == KindCounter {
				return nil, valueErrf("Invalid null value for counter increment/decrement")
			}
			return nil, nil
		}
		return Canonicalize(t, b)
	case *CollectionLit:
		return encodeCollection(t, x, recv, r)
	case *UDTLit:
		return encodeUDT(t, x, recv, r)
	case *TupleLit:
		if len(x.Elems) == 1 && t.Kind != KindTuple {
			return encodeTerm(t, x.Elems[0], recv, r) // (x): a parenthesized term
		}
		return encodeTuple(t, x, recv, r)
	case *FuncCall:
		return encodeCall(t, x, recv, r)
	case *Operation, *Negation:
		return encodeOperation(t, x, recv, r)
	case *Cast:
		if !wellFormed(x.Type) || !assignable(x.Type, x.Term) {
			return nil, valueErrf("Cannot cast value %s to type %s", termText(x.Term), safeTypeName(x.Type))
		}
		if !valueCompatible(t, x.Type) {
			return nil, valueErrf("Cannot assign value %s to %s of type %s", termText(x), recv, t)
		}
		return encodeTerm(t, x.Term, recv, r)
	case nil:
		return nil, valueErrf("Missing value for %s", recv)
	}
	return nil, valueErrf("Unsupported term %T for %s", term, recv)
}

// literalTypeName is Cassandra's Constants.Type name for messages.
func literalTypeName(k LitKind) string {
	switch k {
	case LitString:
		return "STRING"
	case LitInteger:
		return "INTEGER"
	case LitFloat:
		return "FLOAT"
	case LitBool:
		return "BOOLEAN"
	case LitUUID:
		return "UUID"
	case LitBlob:
		return "HEX"
	case LitDuration:
		return "DURATION"
	}
	return "NULL"
}

// literalAssignable is Constants.Literal.testAssignment.
func literalAssignable(k LitKind, t *Type) bool {
	if k == LitNull {
		return t.Kind != KindCounter
	}
	switch t.Kind {
	case KindList, KindSet, KindMap, KindTuple, KindUDT, KindVector:
		return false
	}
	switch k {
	case LitString:
		switch t.Kind {
		case KindAscii, KindText, KindInet, KindDate, KindTime, KindTimestamp:
			return true
		}
	case LitInteger:
		switch t.Kind {
		case KindBigint, KindCounter, KindDate, KindDecimal, KindDouble, KindDuration, KindFloat,
			KindInt, KindSmallint, KindTime, KindTimestamp, KindTinyint, KindVarint:
			return true
		}
	case LitUUID:
		return t.Kind == KindUUID || t.Kind == KindTimeuuid
	case LitFloat:
		return t.Kind == KindDecimal || t.Kind == KindDouble || t.Kind == KindFloat
	case LitBool:
		return t.Kind == KindBoolean
	case LitBlob:
		// tinyint is Cassandra's "preferred type" for hex constants (an
		// exact match), so 0x01 is accepted for a tinyint.
		return t.Kind == KindBlob || t.Kind == KindTinyint
	case LitDuration:
		return t.Kind == KindDuration
	}
	return false
}

func encodeLiteral(t *Type, lit *Literal, recv string, r Resolver) ([]byte, error) {
	if lit.Kind == LitNull {
		if t.Kind == KindCounter {
			return nil, valueErrf("Invalid null value for counter increment/decrement")
		}
		return nil, nil
	}
	if !literalAssignable(lit.Kind, t) {
		return nil, valueErrf("Invalid %s constant (%s) for \"%s\" of type %s", literalTypeName(lit.Kind), lit.Text, recv, t)
	}
	if lit.Kind == LitBlob {
		hex := lit.Text
		if len(hex) >= 2 && (hex[:2] == "0x" || hex[:2] == "0X") {
			hex = hex[2:]
		}
		b, err := scalarFromString(KindBlob, hex, r)
		if err != nil {
			return nil, err
		}
		if err := Validate(t, b); err != nil {
			return nil, err
		}
		return b, nil
	}
	return scalarFromString(t.Kind, lit.Text, r)
}

// ---- collections ----

// elemSpec names nested receivers the way Cassandra does in messages.
func valueSpec(recv string) string { return "value(" + recv + ")" }
func keySpec(recv string) string   { return "key(" + recv + ")" }

// effectiveKind resolves the `{}` ambiguity: an empty brace literal is
// Cassandra's empty set literal.
func effectiveKind(c *CollectionLit) CollectionKind {
	if c.Kind == CollMap && len(c.Values) == 0 && len(c.Keys) == 0 {
		return CollSet
	}
	return c.Kind
}

func encodeCollection(t *Type, c *CollectionLit, recv string, r Resolver) ([]byte, error) {
	kind := effectiveKind(c)
	switch kind {
	case CollList:
		if t.Kind == KindVector {
			return encodeVector(t, c, recv, r)
		}
		if t.Kind != KindList {
			return nil, valueErrf("Unexpected receiver type '%s'; only list and vector are expected", t)
		}
		for _, e := range c.Values {
			if !assignable(t.Elems[0], e) {
				return nil, valueErrf("Invalid list literal for %s: value %s is not of type %s", recv, termText(e), t.Elems[0])
			}
		}
		items, err := encodeElems(t.Elems[0], c.Values, valueSpec(recv), r)
		if err != nil {
			return nil, err
		}
		return buildCollection(len(items), items), nil
	case CollSet:
		if t.Kind == KindMap && len(c.Values) == 0 {
			return buildCollection(0, nil), nil
		}
		if t.Kind != KindSet {
			return nil, valueErrf("Invalid set literal for %s of type %s", recv, t)
		}
		for _, e := range c.Values {
			if !assignable(t.Elems[0], e) {
				return nil, valueErrf("Invalid set literal for %s: value %s is not of type %s", recv, termText(e), t.Elems[0])
			}
		}
		items, err := encodeElems(t.Elems[0], c.Values, valueSpec(recv), r)
		if err != nil {
			return nil, err
		}
		items = sortUnique(t.Elems[0], items, 1)
		return buildCollection(len(items), items), nil
	default:
		if t.Kind != KindMap {
			return nil, valueErrf("Invalid map literal for %s of type %s", recv, t)
		}
		if len(c.Keys) != len(c.Values) {
			return nil, valueErrf("Invalid map literal for %s: keys and values do not pair up", recv)
		}
		for i := range c.Keys {
			if !assignable(t.Elems[0], c.Keys[i]) {
				return nil, valueErrf("Invalid map literal for %s: key %s is not of type %s", recv, termText(c.Keys[i]), t.Elems[0])
			}
			if !assignable(t.Elems[1], c.Values[i]) {
				return nil, valueErrf("Invalid map literal for %s: value %s is not of type %s", recv, termText(c.Values[i]), t.Elems[1])
			}
		}
		return encodeMapEntries(t, c.Keys, c.Values, recv, r)
	}
}

func encodeMapEntries(t *Type, keys, vals []Term, recv string, r Resolver) ([]byte, error) {
	ks, err := encodeElems(t.Elems[0], keys, keySpec(recv), r)
	if err != nil {
		return nil, err
	}
	vs, err := encodeElems(t.Elems[1], vals, valueSpec(recv), r)
	if err != nil {
		return nil, err
	}
	items := make([][]byte, 0, 2*len(ks))
	for i := range ks {
		items = append(items, ks[i], vs[i])
	}
	items = sortUnique(t.Elems[0], items, 2)
	return buildCollection(len(items)/2, items), nil
}

// encodeElems encodes collection elements, which may not be null. An unset
// element makes the whole collection unset, as in Cassandra.
func encodeElems(et *Type, terms []Term, recv string, r Resolver) ([][]byte, error) {
	out := make([][]byte, 0, len(terms))
	for _, e := range terms {
		b, err := encodeTerm(et, e, recv, r)
		if err != nil {
			return nil, err
		}
		if b == nil {
			return nil, valueErrf("null is not supported inside collections")
		}
		out = append(out, b)
	}
	return out, nil
}

func encodeTuple(t *Type, tl *TupleLit, recv string, r Resolver) ([]byte, error) {
	if t.Kind != KindTuple {
		return nil, valueErrf("Invalid tuple type literal for %s of type %s", recv, t)
	}
	if len(tl.Elems) > len(t.Elems) {
		return nil, valueErrf("Invalid tuple literal for %s: too many elements. Type %s expects %d but got %d",
			recv, t, len(t.Elems), len(tl.Elems))
	}
	for i, e := range tl.Elems {
		if !assignable(t.Elems[i], e) {
			return nil, valueErrf("Invalid tuple literal for %s: component %d is not of type %s", recv, i, t.Elems[i])
		}
	}
	// Missing trailing components are written as nulls so every stored tuple
	// has the type's arity.
	items := make([][]byte, len(t.Elems))
	for i, e := range tl.Elems {
		b, err := encodeTerm(t.Elems[i], e, fmt.Sprintf("%s[%d]", recv, i), r)
		if errors.Is(err, ErrUnset) {
			return nil, valueErrf("Invalid unset value for tuple field number %d", i)
		}
		if err != nil {
			return nil, err
		}
		items[i] = b
	}
	return buildTuple(items), nil
}

func encodeUDT(t *Type, u *UDTLit, recv string, r Resolver) ([]byte, error) {
	if len(u.Fields) != len(u.Values) {
		return nil, valueErrf("Invalid user type literal for %s: fields and values do not pair up", recv)
	}
	if t.Kind == KindMap && (t.Elems[0].Kind == KindText || t.Elems[0].Kind == KindAscii) {
		// {a: 1} for a map with text keys: the identifiers are the keys.
		keys := make([]Term, len(u.Fields))
		for i, f := range u.Fields {
			keys[i] = &Literal{Kind: LitString, Text: f}
		}
		for i := range u.Values {
			if !assignable(t.Elems[1], u.Values[i]) {
				return nil, valueErrf("Invalid map literal for %s: value %s is not of type %s", recv, termText(u.Values[i]), t.Elems[1])
			}
		}
		return encodeMapEntries(t, keys, u.Values, recv, r)
	}
	if t.Kind != KindUDT {
		return nil, valueErrf("Invalid user type literal for %s of type %s", recv, t)
	}
	byField := make(map[string]int, len(u.Fields))
	for i, f := range u.Fields {
		idx := fieldIndex(t, f)
		if idx < 0 {
			return nil, valueErrf("Unknown field '%s' in value of user defined type %s", f, t.Name)
		}
		if !assignable(t.Elems[idx], u.Values[i]) {
			return nil, valueErrf("Invalid user type literal for %s: field %s is not of type %s", recv, f, t.Elems[idx])
		}
		byField[f] = i
	}
	items := make([][]byte, len(t.Elems))
	for idx := range t.Elems {
		if idx >= len(t.Fields) {
			break
		}
		i, ok := byField[t.Fields[idx]]
		if !ok {
			continue
		}
		b, err := encodeTerm(t.Elems[idx], u.Values[i], recv+"."+t.Fields[idx], r)
		if errors.Is(err, ErrUnset) {
			return nil, valueErrf("Invalid unset value for field '%s' of user defined type %s", t.Fields[idx], t.Name)
		}
		if err != nil {
			return nil, err
		}
		items[idx] = b
	}
	return buildTuple(items), nil
}

func fieldIndex(t *Type, name string) int {
	for i, f := range t.Fields {
		if f == name && i < len(t.Elems) {
			return i
		}
	}
	return -1
}

// ---- functions ----

// blobConversion recognises blobAs<type> and <type>AsBlob.
func blobConversion(name string) (k Kind, toBlob, ok bool) {
	name = strings.TrimPrefix(strings.ToLower(name), "system.")
	if rest, found := strings.CutPrefix(name, "blobas"); found {
		k, ok = KindByName(rest)
		return k, false, ok && k != KindBlob
	}
	if rest, found := strings.CutSuffix(name, "asblob"); found {
		k, ok = KindByName(rest)
		return k, true, ok && k != KindBlob
	}
	return 0, false, false
}

func encodeCall(t *Type, fn *FuncCall, recv string, r Resolver) ([]byte, error) {
	k, toBlob, ok := blobConversion(fn.Name)
	if !ok {
		return r.Call(fn, t)
	}
	name := "system." + strings.TrimPrefix(strings.ToLower(fn.Name), "system.")
	argType, retType := Scalar(KindBlob), Scalar(k)
	if toBlob {
		argType, retType = retType, argType
	}
	if len(fn.Args) != 1 {
		return nil, valueErrf("Invalid number of arguments in call to function %s: 1 required but %d provided", name, len(fn.Args))
	}
	if !valueCompatible(t, retType) {
		return nil, valueErrf("Type error: cannot assign result of function %s (type %s) to %s (type %s)", name, retType, recv, t)
	}
	if !assignable(argType, fn.Args[0]) {
		return nil, valueErrf("Type error: %s cannot be passed as argument 0 of function %s of type %s", termText(fn.Args[0]), name, argType)
	}
	b, err := encodeTerm(argType, fn.Args[0], "arg0", r)
	if err != nil || b == nil || toBlob {
		return b, err
	}
	if err := Validate(retType, b); err != nil {
		return nil, valueErrf("In call to function %s, value 0x%x is not a valid binary representation for type %s", name, b, retType)
	}
	return b, nil
}

// ---- assignment tests ----

// Assignable reports whether term may be a value of type t, as Cassandra's
// testAssignment decides before a statement runs (function arguments,
// receivers): literals are checked by kind, markers and function calls
// always pass (their values are checked when bound or computed).
func Assignable(t *Type, term Term) bool { return assignable(t, term) }

// assignable is Cassandra's testAssignment: can term be a value of type t?
// Markers and function calls are assumed assignable (their values are
// checked when bound or computed).
func assignable(t *Type, term Term) bool {
	switch x := term.(type) {
	case *Literal:
		return literalAssignable(x.Kind, t)
	case *CollectionLit:
		switch effectiveKind(x) {
		case CollList:
			if t.Kind == KindVector && len(x.Values) != t.Dim {
				return false // Cassandra's vector literals match their dimension only
			}
			return (t.Kind == KindList || t.Kind == KindVector) && allAssignable(t.Elems[0], x.Values)
		case CollSet:
			if t.Kind == KindMap && len(x.Values) == 0 {
				return true
			}
			return t.Kind == KindSet && allAssignable(t.Elems[0], x.Values)
		default:
			return t.Kind == KindMap && len(x.Keys) == len(x.Values) &&
				allAssignable(t.Elems[0], x.Keys) && allAssignable(t.Elems[1], x.Values)
		}
	case *TupleLit:
		if len(x.Elems) == 1 && t.Kind != KindTuple {
			return assignable(t, x.Elems[0])
		}
		if t.Kind != KindTuple || len(x.Elems) > len(t.Elems) {
			return false
		}
		for i, e := range x.Elems {
			if !assignable(t.Elems[i], e) {
				return false
			}
		}
		return true
	case *UDTLit:
		if t.Kind == KindMap && (t.Elems[0].Kind == KindText || t.Elems[0].Kind == KindAscii) {
			return allAssignable(t.Elems[1], x.Values)
		}
		if t.Kind != KindUDT || len(x.Fields) != len(x.Values) {
			return false
		}
		for i, f := range x.Fields {
			idx := fieldIndex(t, f)
			if idx >= 0 && !assignable(t.Elems[idx], x.Values[i]) {
				return false
			}
		}
		return true
	case *Cast:
		return x.Type != nil && valueCompatible(t, x.Type)
	case *BindMarker, *FuncCall:
		return true
	case *Operation, *Negation:
		_, err := ResolveOperation(t, x)
		return err == nil
	}
	return false
}

func allAssignable(t *Type, terms []Term) bool {
	for _, e := range terms {
		if !assignable(t, e) {
			return false
		}
	}
	return true
}

// valueCompatible reports whether values of type from are valid values of
// receiver type to (Cassandra's isValueCompatibleWith, simplified to the
// native cases).
func valueCompatible(to, from *Type) bool {
	if sameType(to, from) || to.Kind == KindBlob {
		return true
	}
	switch to.Kind {
	case KindText:
		return from.Kind == KindAscii
	case KindVarint:
		return from.Kind == KindInt || from.Kind == KindBigint
	case KindBigint:
		return from.Kind == KindTimestamp
	case KindTimestamp:
		return from.Kind == KindBigint
	case KindUUID:
		return from.Kind == KindTimeuuid
	}
	return false
}

// sameType compares types ignoring frozenness at the top level.
func sameType(a, b *Type) bool {
	if a.Kind != b.Kind || len(a.Elems) != len(b.Elems) || a.Name != b.Name || a.Dim != b.Dim {
		return false
	}
	for i := range a.Elems {
		if !a.Elems[i].Equal(b.Elems[i]) {
			return false
		}
	}
	return true
}

// termText renders a term as Cassandra's getText does, for messages.
func termText(term Term) string {
	switch x := term.(type) {
	case *Literal:
		switch x.Kind {
		case LitString:
			return "'" + x.Text + "'"
		case LitNull:
			return "NULL"
		}
		return x.Text
	case *BindMarker:
		if x.Name != "" {
			return ":" + x.Name
		}
		return "?"
	case *CollectionLit:
		var sb strings.Builder
		open, end := "{", "}"
		if x.Kind == CollList {
			open, end = "[", "]"
		}
		sb.WriteString(open)
		for i, v := range x.Values {
			if i > 0 {
				sb.WriteString(", ")
			}
			if x.Kind == CollMap && i < len(x.Keys) {
				sb.WriteString(termText(x.Keys[i]))
				sb.WriteString(": ")
			}
			sb.WriteString(termText(v))
		}
		sb.WriteString(end)
		return sb.String()
	case *TupleLit:
		return "(" + joinTerms(x.Elems) + ")"
	case *UDTLit:
		var sb strings.Builder
		sb.WriteByte('{')
		for i, v := range x.Values {
			if i > 0 {
				sb.WriteString(", ")
			}
			if i < len(x.Fields) {
				sb.WriteString(QuoteIdent(x.Fields[i]))
			}
			sb.WriteString(": ")
			sb.WriteString(termText(v))
		}
		sb.WriteByte('}')
		return sb.String()
	case *FuncCall:
		return x.Name + "(" + joinTerms(x.Args) + ")"
	case *Cast:
		return "(" + safeTypeName(x.Type) + ")" + termText(x.Term)
	case *Operation, *Negation:
		return OperandText(x)
	}
	return fmt.Sprintf("%v", term)
}

func joinTerms(ts []Term) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = termText(t)
	}
	return strings.Join(parts, ", ")
}
