package java

import "unicode/utf16"

// jBuilder is a java.lang.StringBuilder (or StringBuffer): UTF-16 code
// units, so that length, charAt and indexes are Java's.
type jBuilder struct {
	u []uint16
}

func (b *jBuilder) String() string { return fromUTF16(b.u) }

// newBuilder is new StringBuilder(), (capacity) or (CharSequence).
func newBuilder(m *machine, src any) (any, error) {
	b := &jBuilder{}
	switch s := src.(type) {
	case nil, int32:
	case string:
		b.u = utf16Of(s)
	case *jBuilder:
		b.u = append([]uint16(nil), s.u...)
	default:
		return nil, jexc("ClassCastException", "%s is not a CharSequence", runtimeClass(src))
	}
	return b, m.allocate(int64(2 * len(b.u)))
}

func builderIndex(i any, n int, inclusive bool) (int, error) {
	x, ok := i.(int32)
	if !ok {
		v, err := castNumber(kInt, i)
		if err != nil {
			return 0, err
		}
		x = v.(int32)
	}
	if x < 0 || int(x) > n || (!inclusive && int(x) == n) {
		return 0, jexc("StringIndexOutOfBoundsException", "index %d,length %d", x, n)
	}
	return int(x), nil
}

// grow adds units to the builder within the string and allocation bounds.
func (b *jBuilder) grow(m *machine, at int, add []uint16) error {
	if len(b.u)+len(add) > maxStringChars {
		return jexc("OutOfMemoryError", "string of %d characters exceeds dohyo's bound", len(b.u)+len(add))
	}
	if err := m.allocate(int64(2 * len(add))); err != nil {
		return err
	}
	b.u = append(b.u[:at], append(add, b.u[at:]...)...)
	return nil
}

// builderText is the text append and insert add for a value.
func builderText(v any) []uint16 {
	if c, ok := v.(jchar); ok {
		return []uint16{uint16(c)}
	}
	return utf16Of(javaString(v))
}

func builderMethod(m *machine, b *jBuilder, name string, args []any) (any, error) {
	if err := m.charge(int64(len(b.u)/16 + 1)); err != nil {
		return nil, err
	}
	switch {
	case name == "append" && len(args) == 1:
		return b, b.grow(m, len(b.u), builderText(args[0]))
	case name == "insert" && len(args) == 2:
		i, err := builderIndex(args[0], len(b.u), true)
		if err != nil {
			return nil, err
		}
		return b, b.grow(m, i, builderText(args[1]))
	case name == "length" && len(args) == 0:
		return int32(len(b.u)), nil
	case name == "isEmpty" && len(args) == 0:
		return len(b.u) == 0, nil
	case name == "charAt" && len(args) == 1:
		i, err := builderIndex(args[0], len(b.u), false)
		if err != nil {
			return nil, err
		}
		return jchar(b.u[i]), nil
	case name == "setCharAt" && len(args) == 2:
		i, err := builderIndex(args[0], len(b.u), false)
		if err != nil {
			return nil, err
		}
		c, ok := args[1].(jchar)
		if !ok {
			return nil, jexc("ClassCastException", "setCharAt takes a char")
		}
		b.u[i] = uint16(c)
		return nil, nil
	case name == "reverse" && len(args) == 0:
		reverseUTF16(b.u)
		return b, nil
	case name == "setLength" && len(args) == 1:
		n, err := builderIndex(args[0], maxStringChars, true)
		if err != nil {
			return nil, err
		}
		if n > len(b.u) {
			return nil, b.grow(m, len(b.u), make([]uint16, n-len(b.u)))
		}
		b.u = b.u[:n]
		return nil, nil
	case name == "deleteCharAt" && len(args) == 1:
		i, err := builderIndex(args[0], len(b.u), false)
		if err != nil {
			return nil, err
		}
		b.u = append(b.u[:i], b.u[i+1:]...)
		return b, nil
	case name == "delete" && len(args) == 2:
		start, err := builderIndex(args[0], len(b.u), true)
		if err != nil {
			return nil, err
		}
		end, err := castNumber(kInt, args[1])
		if err != nil {
			return nil, err
		}
		e := min(int(end.(int32)), len(b.u))
		if e < start {
			return nil, jexc("StringIndexOutOfBoundsException", "start %d, end %d, length %d", start, e, len(b.u))
		}
		b.u = append(b.u[:start], b.u[e:]...)
		return b, nil
	case name == "indexOf" || name == "lastIndexOf" || name == "substring":
		return stringMethod(m, b.String(), name, args)
	}
	return nil, wrongMethod(b, name, args)
}

// reverseUTF16 reverses code units as StringBuilder.reverse does: a
// surrogate pair stays in its order.
func reverseUTF16(u []uint16) {
	for i, j := 0, len(u)-1; i < j; i, j = i+1, j-1 {
		u[i], u[j] = u[j], u[i]
	}
	for i := 0; i+1 < len(u); i++ {
		if utf16.IsSurrogate(rune(u[i])) && u[i] >= 0xDC00 && u[i+1] >= 0xD800 && u[i+1] < 0xDC00 {
			u[i], u[i+1] = u[i+1], u[i]
			i++
		}
	}
}
