package java

import (
	"strings"
	"unicode/utf16"
)

var instanceMethods = map[string]bool{}

func init() {
	for _, n := range strings.Fields(
		// Object, boxed numbers
		"equals hashCode toString compareTo intValue longValue doubleValue floatValue shortValue byteValue " +
			"booleanValue charValue isNaN isInfinite " +
			// String
			"length charAt substring indexOf lastIndexOf toUpperCase toLowerCase trim strip isEmpty isBlank " +
			"contains startsWith endsWith replace equalsIgnoreCase concat compareToIgnoreCase repeat intern " +
			// collections
			"size get getOrDefault containsKey containsValue add addAll put putAll putIfAbsent remove set clear " +
			"keySet values entrySet getKey getValue containsAll " +
			// TupleValue, UDTValue
			"getInt getLong getDouble getFloat getShort getByte getBool getString getList getSet getMap " +
			"getTupleValue getUDTValue getObject isNull setInt setLong setDouble setFloat setShort setByte " +
			"setBool setString setList setSet setMap setTupleValue setUDTValue setToNull " +
			// StringBuilder, StringBuffer
			"append insert reverse setLength deleteCharAt delete setCharAt") {
		instanceMethods[n] = true
	}
}

var contextMethods = map[string]bool{
	"newReturnTupleValue": true, "newArgTupleValue": true, "newReturnUDTValue": true, "newArgUDTValue": true,
}

func utf16Of(s string) []uint16 { return utf16.Encode([]rune(s)) }

func fromUTF16(u []uint16) string { return string(utf16.Decode(u)) }

func compareUTF16(a, b string) int {
	x, y := utf16Of(a), utf16Of(b)
	for i := 0; i < len(x) && i < len(y); i++ {
		if x[i] != y[i] {
			return int(x[i]) - int(y[i])
		}
	}
	return len(x) - len(y)
}

func (e *callExpr) eval(m *machine) (any, error) {
	if err := m.charge(1); err != nil {
		return nil, err
	}
	var recv any
	if e.recv != nil {
		r, err := e.recv.eval(m)
		if err != nil {
			return nil, err
		}
		recv = r
	}
	args := make([]any, len(e.args))
	for i, a := range e.args {
		v, err := a.eval(m)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	switch {
	case e.ctxFun:
		return m.fn.contextCall(e.name, args)
	case e.recv == nil:
		return callStatic(m, e.class, e.name, args)
	}
	if recv == nil {
		return nil, npe(e.name + "()")
	}
	return callMethod(m, recv, e.name, args)
}

func wrongMethod(recv any, name string, args []any) error {
	return jexc("NoSuchMethodError", "%s.%s with %d argument(s) is not in dohyo's Java subset", runtimeClass(recv), name, len(args))
}

func callMethod(m *machine, recv any, name string, args []any) (any, error) {
	switch name {
	case "equals":
		if len(args) == 1 {
			return javaEquals(recv, args[0]), nil
		}
	case "hashCode":
		return javaHash(recv), nil
	case "toString":
		return javaString(recv), nil
	}
	switch r := recv.(type) {
	case string:
		return stringMethod(m, r, name, args)
	case *jList, *jSet, *jMap, *jEntry:
		return collectionMethod(m, recv, name, args)
	case *jTuple:
		return tupleMethod(m, r, name, args)
	case *jBuilder:
		return builderMethod(m, r, name, args)
	}
	if len(args) == 0 {
		switch name {
		case "intValue":
			return castNumber(kInt, recv)
		case "longValue":
			return castNumber(kLong, recv)
		case "doubleValue":
			return castNumber(kDouble, recv)
		case "floatValue":
			return castNumber(kFloat, recv)
		case "shortValue":
			return castNumber(kShort, recv)
		case "byteValue":
			return castNumber(kByte, recv)
		case "isNaN", "isInfinite":
			return callStatic(m, "Double", name, []any{recv})
		case "booleanValue":
			if b, ok := recv.(bool); ok {
				return b, nil
			}
		case "charValue":
			if c, ok := recv.(jchar); ok {
				return c, nil
			}
		}
	}
	if name == "compareTo" && len(args) == 1 {
		return compareValues(recv, args[0])
	}
	return nil, wrongMethod(recv, name, args)
}

func indexErr(i, n int) error {
	return jexc("StringIndexOutOfBoundsException", "index %d, length %d", i, n)
}

func intArg(v any) (int, error) {
	switch v.(type) {
	case int8, int16, jchar, int32:
		i, _ := integral(v)
		return int(i), nil
	case nil:
		return 0, npe("intValue()")
	}
	return 0, jexc("ClassCastException", "%s is not an int", runtimeClass(v))
}

// charSeq is a String or char argument as UTF-16 units.
func charSeq(v any) ([]uint16, bool) {
	switch x := v.(type) {
	case string:
		return utf16Of(x), true
	case jchar:
		return []uint16{uint16(x)}, true
	}
	return nil, false
}

func stringMethod(m *machine, s string, name string, args []any) (any, error) {
	if err := m.charge(int64(len(s)/64 + 1)); err != nil {
		return nil, err
	}
	u := utf16Of(s)
	switch name {
	case "length":
		return int32(len(u)), nil
	case "isEmpty":
		return len(u) == 0, nil
	case "isBlank":
		return strings.TrimSpace(s) == "", nil
	case "charAt":
		if len(args) == 1 {
			i, err := intArg(args[0])
			if err != nil {
				return nil, err
			}
			if i < 0 || i >= len(u) {
				return nil, indexErr(i, len(u))
			}
			return jchar(u[i]), nil
		}
	case "substring":
		if len(args) == 1 || len(args) == 2 {
			b, err := intArg(args[0])
			if err != nil {
				return nil, err
			}
			e := len(u)
			if len(args) == 2 {
				if e, err = intArg(args[1]); err != nil {
					return nil, err
				}
			}
			if b < 0 || e > len(u) || b > e {
				return nil, jexc("StringIndexOutOfBoundsException", "begin %d, end %d, length %d", b, e, len(u))
			}
			return fromUTF16(u[b:e]), nil
		}
	case "toUpperCase":
		return strings.ToUpper(s), nil
	case "toLowerCase":
		return strings.ToLower(s), nil
	case "trim":
		return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' }), nil
	case "strip":
		return strings.TrimSpace(s), nil
	case "intern":
		return s, nil
	case "indexOf", "lastIndexOf", "contains", "startsWith", "endsWith":
		return searchMethod(u, name, args)
	}
	return stringMethod2(m, s, name, args)
}

// stringMethod2 has String's methods that take arguments and build strings.
func stringMethod2(m *machine, s string, name string, args []any) (any, error) {
	switch name {
	case "replace":
		if len(args) == 2 {
			from, ok1 := charSeq(args[0])
			to, ok2 := charSeq(args[1])
			if !ok1 || !ok2 {
				return nil, npe("replace")
			}
			f, t := fromUTF16(from), fromUTF16(to)
			if n := strings.Count(s, f); int64(len(s))+int64(n)*int64(len(t)-len(f)) > maxStringChars {
				return nil, jexc("OutOfMemoryError", "string too long")
			}
			r := strings.ReplaceAll(s, f, t)
			return r, m.allocate(int64(len(r)))
		}
	case "equalsIgnoreCase":
		if len(args) == 1 {
			o, ok := args[0].(string)
			return ok && strings.EqualFold(o, s), nil
		}
	case "compareToIgnoreCase":
		if len(args) == 1 {
			o, err := argString(args[0], "compareToIgnoreCase")
			if err != nil {
				return nil, err
			}
			return int32(compareUTF16(strings.ToLower(strings.ToUpper(s)), strings.ToLower(strings.ToUpper(o)))), nil
		}
	case "concat":
		if len(args) == 1 {
			o, err := argString(args[0], "concat")
			if err != nil {
				return nil, err
			}
			return binaryOp(m, "+", s, o)
		}
	case "repeat":
		if len(args) == 1 {
			n, err := intArg(args[0])
			if err != nil {
				return nil, err
			}
			if n < 0 {
				return nil, jexc("IllegalArgumentException", "count is negative: %d", n)
			}
			if int64(len(s))*int64(n) > maxStringChars {
				return nil, jexc("OutOfMemoryError", "string too long")
			}
			r := strings.Repeat(s, n)
			return r, m.allocate(int64(len(r)))
		}
	case "compareTo":
		if len(args) == 1 {
			return compareValues(s, args[0])
		}
	}
	return nil, wrongMethod(s, name, args)
}

func searchMethod(u []uint16, name string, args []any) (any, error) {
	if len(args) < 1 || len(args) > 2 {
		return nil, wrongMethod("", name, args)
	}
	sub, ok := charSeq(args[0])
	if !ok {
		if args[0] == nil {
			return nil, npe(name)
		}
		return nil, wrongMethod("", name, args)
	}
	from := 0
	if len(args) == 2 {
		f, err := intArg(args[1])
		if err != nil {
			return nil, err
		}
		from = f
	}
	match := func(i int) bool {
		if i < 0 || i+len(sub) > len(u) {
			return false
		}
		for j := range sub {
			if u[i+j] != sub[j] {
				return false
			}
		}
		return true
	}
	switch name {
	case "startsWith":
		return match(from), nil
	case "endsWith":
		return match(len(u) - len(sub)), nil
	case "lastIndexOf":
		start := len(u) - len(sub)
		if len(args) == 2 && from < start {
			start = from
		}
		for i := start; i >= 0; i-- {
			if match(i) {
				return int32(i), nil
			}
		}
		return int32(-1), nil
	}
	from = max(from, 0)
	for i := from; i+len(sub) <= len(u); i++ {
		if match(i) {
			if name == "contains" {
				return true, nil
			}
			return int32(i), nil
		}
	}
	if name == "contains" {
		return false, nil
	}
	return int32(-1), nil
}
