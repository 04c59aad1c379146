package cql

import (
	"encoding/binary"
	"strings"
)

// Values of Cassandra's CompositeType and DynamicCompositeType custom
// types are opaque bytes to dohyo, written as blobs or bound values, or as
// text the way Cassandra's AbstractCompositeType.fromString reads it:
// components separated by ':' ('\:' escapes one), each in its type's text
// form; a dynamic composite's components are "alias@value" or
// "ClassName@value"; a last component "!" or "^" sets the final
// end-of-component byte to 1 or -1.

// compositeParams returns the component types of a CompositeType class
// name, or the aliases of a DynamicCompositeType's.
func compositeParams(class string) (dynamic bool, types []*Type, aliases map[byte]*Type, ok bool) {
	name, args, _ := strings.Cut(class, "(")
	args = strings.TrimSuffix(args, ")")
	dynamic = strings.TrimPrefix(name, marshalPackage) == "DynamicCompositeType"
	aliases = map[byte]*Type{}
	for _, p := range splitClassArgs(args) {
		if dynamic {
			a, cls, _ := strings.Cut(p, "=>")
			t, _ := customClassType(cls)
			if t == nil || len(a) != 1 {
				return false, nil, nil, false
			}
			aliases[a[0]] = t
			continue
		}
		t, _ := customClassType(p)
		if t == nil {
			return false, nil, nil, false
		}
		types = append(types, t)
	}
	return dynamic, types, aliases, true
}

// compositeFromString converts text to a value of the composite custom
// type t, as Cassandra's fromString does.
func compositeFromString(t *Type, text string, r Resolver) ([]byte, error) {
	dynamic, types, aliases, ok := compositeParams(t.Custom)
	if !ok {
		return nil, valueErrf("Invalid composite type %s", t.Custom)
	}
	var out []byte
	var last byte
	for i, part := range splitComponents(text) {
		if part == "!" || part == "^" {
			last = map[string]byte{"!": 1, "^": 0xff}[part]
			break
		}
		var ct *Type
		var header []byte
		if dynamic {
			name, value, found := strings.Cut(part, "@")
			if !found || strings.Contains(value, "@") {
				return nil, valueErrf("Invalid component representation: %s", part)
			}
			if len(name) == 1 && aliases[name[0]] != nil {
				ct, header = aliases[name[0]], []byte{0x80, name[0]}
			} else {
				if ct, _ = customClassType(name); ct == nil {
					return nil, valueErrf("Invalid component representation: %s", part)
				}
				header = binary.BigEndian.AppendUint16(nil, uint16(len(name)))
				header = append(header, name...)
			}
			part = value
		} else {
			if i >= len(types) {
				return nil, valueErrf("Invalid component representation: %s (the type has %d components)", part, len(types))
			}
			ct = types[i]
		}
		v, err := componentFromString(ct, strings.ReplaceAll(part, `\:`, ":"), r)
		if err != nil {
			return nil, err
		}
		if len(v) > 0xffff {
			return nil, valueErrf("Composite component of %d bytes is too long", len(v))
		}
		out = append(out, header...)
		out = binary.BigEndian.AppendUint16(out, uint16(len(v)))
		out = append(append(out, v...), 0)
	}
	if last != 0 && len(out) > 0 {
		out[len(out)-1] = last
	}
	if out == nil {
		out = []byte{}
	}
	return out, nil
}

// componentFromString is one component's fromString.
func componentFromString(t *Type, s string, r Resolver) ([]byte, error) {
	switch {
	case IsCompositeClass(t):
		return compositeFromString(t, s, r)
	case t.Custom != "" || t.Kind == KindBlob:
		return scalarFromString(KindBlob, s, r)
	case len(t.Elems) > 0:
		return nil, valueErrf("Cannot convert '%s' to type %s", s, t)
	}
	return scalarFromString(t.Kind, s, r)
}

// splitComponents splits composite text at the ':' not escaped by '\'.
func splitComponents(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == ':' && (i == 0 || s[i-1] != '\\') {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// validateComposite checks a bound value of a composite custom type as
// Cassandra's AbstractCompositeType.validate does (a literal is not
// checked): each component's length, value and end-of-component byte, a
// dynamic composite's comparator header.
func validateComposite(t *Type, b []byte) error {
	dynamic, types, aliases, ok := compositeParams(t.Custom)
	if !ok {
		return nil
	}
	off := 0
	if !dynamic && len(b) >= 2 && b[0] == 0xff && b[1] == 0xff {
		off = 2 // the static marker
	}
	for i := 0; off < len(b); i++ {
		var ct *Type
		if dynamic {
			if len(b)-off < 2 {
				return valueErrf("Not enough bytes to read comparator header of component %d", i)
			}
			h := binary.BigEndian.Uint16(b[off:])
			off += 2
			if h&0x8000 != 0 {
				ct = aliases[byte(h)]
				if ct == nil {
					return valueErrf("Cannot find comparator for alias '%c' of component %d", byte(h), i)
				}
			} else {
				if len(b)-off < int(h) {
					return valueErrf("Not enough bytes to read comparator name of component %d", i)
				}
				ct, _ = customClassType(string(b[off : off+int(h)]))
				if ct == nil {
					return valueErrf("Invalid comparator name of component %d", i)
				}
				off += int(h)
			}
		} else if i < len(types) {
			ct = types[i]
		}
		if len(b)-off < 2 {
			return valueErrf("Not enough bytes to read value size of component %d", i)
		}
		n := int(binary.BigEndian.Uint16(b[off:]))
		off += 2
		if len(b)-off < n {
			return valueErrf("Not enough bytes to read value of component %d", i)
		}
		if ct != nil && ct.Custom == "" && len(ct.Elems) == 0 {
			if err := validate(ct, b[off:off+n]); err != nil {
				return err
			}
		}
		off += n
		if off == len(b) {
			return valueErrf("Not enough bytes to read the end-of-component byte of component%d", i)
		}
		if eoc := b[off]; eoc != 0 && off+1 < len(b) {
			return valueErrf("Invalid bytes remaining after an end-of-component at component%d", i)
		}
		off++
	}
	return nil
}
