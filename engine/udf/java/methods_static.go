package java

import (
	"math"
	"strconv"
	"strings"
	"unicode"
)

var staticMethods = map[string]map[string][]int{
	"Math": {"abs": {1}, "max": {2}, "min": {2}, "pow": {2}, "sqrt": {1}, "cbrt": {1}, "floor": {1}, "ceil": {1},
		"round": {1}, "rint": {1}, "log": {1}, "log10": {1}, "exp": {1}, "signum": {1}, "sin": {1}, "cos": {1},
		"tan": {1}, "atan": {1}, "atan2": {2}, "hypot": {2}, "toRadians": {1}, "toDegrees": {1},
		"floorDiv": {2}, "floorMod": {2}, "addExact": {2}, "subtractExact": {2}, "multiplyExact": {2}},
	"Integer":   {"valueOf": {1}, "parseInt": {1}, "toString": {1}, "compare": {2}, "max": {2}, "min": {2}, "sum": {2}, "signum": {1}, "bitCount": {1}, "hashCode": {1}},
	"Long":      {"valueOf": {1}, "parseLong": {1}, "toString": {1}, "compare": {2}, "max": {2}, "min": {2}, "sum": {2}, "signum": {1}, "hashCode": {1}},
	"Short":     {"valueOf": {1}, "parseShort": {1}, "toString": {1}, "compare": {2}},
	"Byte":      {"valueOf": {1}, "parseByte": {1}, "toString": {1}, "compare": {2}},
	"Double":    {"valueOf": {1}, "parseDouble": {1}, "toString": {1}, "compare": {2}, "isNaN": {1}, "isInfinite": {1}, "max": {2}, "min": {2}, "sum": {2}, "hashCode": {1}},
	"Float":     {"valueOf": {1}, "parseFloat": {1}, "toString": {1}, "compare": {2}, "isNaN": {1}, "isInfinite": {1}, "max": {2}, "min": {2}, "sum": {2}},
	"Boolean":   {"valueOf": {1}, "parseBoolean": {1}, "toString": {1}, "compare": {2}, "logicalAnd": {2}, "logicalOr": {2}, "logicalXor": {2}},
	"Character": {"isDigit": {1}, "isLetter": {1}, "isLetterOrDigit": {1}, "isUpperCase": {1}, "isLowerCase": {1}, "isWhitespace": {1}, "toUpperCase": {1}, "toLowerCase": {1}, "valueOf": {1}, "toString": {1}, "getNumericValue": {1}},
	"String":    {"valueOf": {1}, "join": {2}},
}

func init() { staticMethods["StrictMath"] = staticMethods["Math"] }

func staticMethodKnown(class, name string, n int) bool {
	for _, a := range staticMethods[class][name] {
		if a == n {
			return true
		}
	}
	return false
}

func staticField(class, name string) (any, bool) {
	switch class + "." + name {
	case "Integer.MAX_VALUE":
		return int32(math.MaxInt32), true
	case "Integer.MIN_VALUE":
		return int32(math.MinInt32), true
	case "Long.MAX_VALUE":
		return int64(math.MaxInt64), true
	case "Long.MIN_VALUE":
		return int64(math.MinInt64), true
	case "Short.MAX_VALUE":
		return int16(math.MaxInt16), true
	case "Short.MIN_VALUE":
		return int16(math.MinInt16), true
	case "Byte.MAX_VALUE":
		return int8(math.MaxInt8), true
	case "Byte.MIN_VALUE":
		return int8(math.MinInt8), true
	case "Double.MAX_VALUE":
		return math.MaxFloat64, true
	case "Double.MIN_VALUE":
		return math.SmallestNonzeroFloat64, true
	case "Double.POSITIVE_INFINITY":
		return math.Inf(1), true
	case "Double.NEGATIVE_INFINITY":
		return math.Inf(-1), true
	case "Double.NaN":
		return math.NaN(), true
	case "Float.MAX_VALUE":
		return float32(math.MaxFloat32), true
	case "Float.MIN_VALUE":
		return float32(math.SmallestNonzeroFloat32), true
	case "Float.NaN":
		return float32(math.NaN()), true
	case "Math.PI", "StrictMath.PI":
		return math.Pi, true
	case "Math.E", "StrictMath.E":
		return math.E, true
	case "Boolean.TRUE":
		return true, true
	case "Boolean.FALSE":
		return false, true
	}
	return nil, false
}

func nfe(s string) error {
	return jexc("NumberFormatException", "For input string: \"%s\"", s)
}

func argString(v any, what string) (string, error) {
	s, ok := v.(string)
	if !ok {
		if v == nil {
			return "", npe(what)
		}
		return "", jexc("ClassCastException", "%s is not a String", runtimeClass(v))
	}
	return s, nil
}

func parseIntegral(s string, bits int, k jkind) (any, error) {
	t := strings.TrimPrefix(s, "+")
	if t != s && strings.HasPrefix(t, "-") {
		return nil, nfe(s)
	}
	n, err := strconv.ParseInt(t, 10, bits)
	if err != nil {
		return nil, nfe(s)
	}
	return castNumber(k, n)
}

// callStatic runs Class.method(args).
func callStatic(m *machine, class, name string, a []any) (any, error) {
	if v, ok, err := callMore(m, class, name, a); ok {
		return v, err
	}
	if class == "Math" || class == "StrictMath" {
		return callMath(name, a)
	}
	if class == "String" {
		if name == "join" {
			return stringJoin(m, a)
		}
		return javaString(a[0]), nil
	}
	if class == "Character" {
		return callCharacter(name, a[0])
	}
	k := classNames[class]
	switch name {
	case "valueOf", "parseInt", "parseLong", "parseShort", "parseByte", "parseDouble", "parseFloat", "parseBoolean":
		if s, ok := a[0].(string); ok {
			switch k {
			case kInt:
				return parseIntegral(s, 32, kInt)
			case kLong:
				return parseIntegral(s, 64, kLong)
			case kShort:
				return parseIntegral(s, 16, kShort)
			case kByte:
				return parseIntegral(s, 8, kByte)
			case kBoolean:
				return strings.EqualFold(s, "true"), nil
			}
			f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimRight(s, "dDfF")), 64)
			if err != nil && !strings.Contains(err.Error(), "range") {
				return nil, nfe(s)
			}
			return castNumber(k, f)
		}
		if k == kBoolean {
			if b, ok := a[0].(bool); ok {
				return b, nil
			}
		}
		if strings.HasPrefix(name, "parse") {
			return nil, jexc("ClassCastException", "%s.%s takes a String", class, name)
		}
		return castNumber(k, a[0])
	case "toString":
		return javaString(a[0]), nil
	case "hashCode":
		return javaHash(a[0]), nil
	case "isNaN", "isInfinite":
		f := toF64(a[0])
		if name == "isNaN" {
			return math.IsNaN(f), nil
		}
		return math.IsInf(f, 0), nil
	case "compare":
		return compareValues(a[0], a[1])
	case "logicalAnd", "logicalOr", "logicalXor":
		x, ok1 := a[0].(bool)
		y, ok2 := a[1].(bool)
		if !ok1 || !ok2 {
			return nil, npe("Boolean")
		}
		return map[string]bool{"logicalAnd": x && y, "logicalOr": x || y, "logicalXor": x != y}[name], nil
	case "bitCount":
		x, err := castNumber(kInt, a[0])
		if err != nil {
			return nil, err
		}
		n := int32(0)
		for u := uint32(x.(int32)); u != 0; u &= u - 1 {
			n++
		}
		return n, nil
	}
	for i := range a {
		v, err := castNumber(k, a[i])
		if err != nil {
			return nil, err
		}
		a[i] = v
	}
	switch name {
	case "sum":
		return binaryOp(m, "+", a[0], a[1])
	case "signum":
		r, _ := compareNum(a[0], int32(0))
		return castNumber(k, int32(r))
	}
	return callMath(name, a)
}

func stringJoin(m *machine, a []any) (any, error) {
	sep, err := argString(a[0], "String.join")
	if err != nil {
		return nil, err
	}
	var items []any
	switch c := a[1].(type) {
	case *jList:
		items = c.elems
	case *jSet:
		items = c.elems
	default:
		return nil, jexc("ClassCastException", "String.join takes an Iterable")
	}
	if err := m.charge(int64(len(items))); err != nil {
		return nil, err
	}
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = javaString(it)
	}
	s := strings.Join(parts, sep)
	return s, m.allocate(int64(len(s)))
}

func callCharacter(name string, v any) (any, error) {
	c, ok := v.(jchar)
	if !ok {
		if v == nil {
			return nil, npe("Character")
		}
		return nil, jexc("ClassCastException", "Character.%s takes a char", name)
	}
	r := rune(c)
	switch name {
	case "isDigit":
		return unicode.IsDigit(r), nil
	case "isLetter":
		return unicode.IsLetter(r), nil
	case "isLetterOrDigit":
		return unicode.IsLetter(r) || unicode.IsDigit(r), nil
	case "isUpperCase":
		return unicode.IsUpper(r), nil
	case "isLowerCase":
		return unicode.IsLower(r), nil
	case "isWhitespace":
		return unicode.IsSpace(r), nil
	case "toUpperCase":
		return jchar(unicode.ToUpper(r)), nil
	case "toLowerCase":
		return jchar(unicode.ToLower(r)), nil
	case "getNumericValue":
		if r >= '0' && r <= '9' {
			return int32(r - '0'), nil
		}
		if unicode.IsLetter(r) && r < 128 {
			return int32(unicode.ToLower(r)-'a') + 10, nil
		}
		return int32(-1), nil
	case "toString":
		return string(r), nil
	}
	return c, nil
}

func callMath(name string, a []any) (any, error) {
	for _, v := range a {
		if v == nil {
			return nil, npe("unboxing")
		}
		if !isNumber(v) {
			return nil, jexc("ClassCastException", "Math.%s takes numbers, not %s", name, runtimeClass(v))
		}
	}
	switch name {
	case "abs":
		switch k := promote1(a[0]); k {
		case kInt, kLong:
			x, _ := integral(a[0])
			if x < 0 {
				x = -x
			}
			return castNumber(k, x)
		default:
			return castNumber(k, math.Abs(toF64(a[0])))
		}
	case "max", "min":
		k := promote2(a[0], a[1])
		if k == kDouble || k == kFloat {
			f := math.Max(toF64(a[0]), toF64(a[1]))
			if name == "min" {
				f = math.Min(toF64(a[0]), toF64(a[1]))
			}
			return castNumber(k, f)
		}
		r, _ := compareNum(a[0], a[1])
		if (r > 0) == (name == "max") {
			return castNumber(k, a[0])
		}
		return castNumber(k, a[1])
	case "round":
		if _, ok := a[0].(float32); ok {
			return int32(f2i(math.Floor(toF64(a[0])+0.5), math.MinInt32, math.MaxInt32)), nil
		}
		return f2i(math.Floor(toF64(a[0])+0.5), math.MinInt64, math.MaxInt64), nil
	case "floorDiv", "floorMod", "addExact", "subtractExact", "multiplyExact":
		return exactMath(name, a)
	}
	x := toF64(a[0])
	var y float64
	if len(a) > 1 {
		y = toF64(a[1])
	}
	f := map[string]func() float64{
		"pow": func() float64 { return math.Pow(x, y) }, "sqrt": func() float64 { return math.Sqrt(x) },
		"cbrt": func() float64 { return math.Cbrt(x) }, "floor": func() float64 { return math.Floor(x) },
		"ceil": func() float64 { return math.Ceil(x) }, "rint": func() float64 { return math.RoundToEven(x) },
		"log": func() float64 { return math.Log(x) }, "log10": func() float64 { return math.Log10(x) },
		"exp": func() float64 { return math.Exp(x) }, "sin": func() float64 { return math.Sin(x) },
		"cos": func() float64 { return math.Cos(x) }, "tan": func() float64 { return math.Tan(x) },
		"atan": func() float64 { return math.Atan(x) }, "atan2": func() float64 { return math.Atan2(x, y) },
		"hypot": func() float64 { return math.Hypot(x, y) }, "toRadians": func() float64 { return x / 180 * math.Pi },
		"toDegrees": func() float64 { return x * 180 / math.Pi },
		"signum": func() float64 {
			if x == 0 || math.IsNaN(x) {
				return x
			}
			return math.Copysign(1, x)
		},
	}[name]
	if f == nil {
		return nil, jexc("UnsupportedOperationException", "Math.%s", name)
	}
	if name == "signum" {
		if _, ok := a[0].(float32); ok {
			return float32(f()), nil
		}
	}
	return f(), nil
}

func exactMath(name string, a []any) (any, error) {
	k := promote2(a[0], a[1])
	if k != kInt && k != kLong {
		return nil, jexc("ClassCastException", "Math.%s takes integers", name)
	}
	x, _ := integral(a[0])
	y, _ := integral(a[1])
	var r int64
	switch name {
	case "floorDiv", "floorMod":
		if y == 0 {
			return nil, jexc("ArithmeticException", "/ by zero")
		}
		q := x / y
		if (x%y != 0) && ((x < 0) != (y < 0)) {
			q--
		}
		r = q
		if name == "floorMod" {
			r = x - q*y
		}
	case "addExact":
		r = x + y
		if k == kLong && ((x > 0 && y > 0 && r < 0) || (x < 0 && y < 0 && r >= 0)) {
			return nil, jexc("ArithmeticException", "long overflow")
		}
	case "subtractExact":
		r = x - y
		if k == kLong && ((x >= 0 && y < 0 && r < 0) || (x < 0 && y > 0 && r >= 0)) {
			return nil, jexc("ArithmeticException", "long overflow")
		}
	case "multiplyExact":
		r = x * y
		if k == kLong && x != 0 && (r/x != y || (x == -1 && y == math.MinInt64)) {
			return nil, jexc("ArithmeticException", "long overflow")
		}
	}
	if k == kInt {
		if r != int64(int32(r)) {
			return nil, jexc("ArithmeticException", "integer overflow")
		}
		return int32(r), nil
	}
	return r, nil
}

// compareValues is Comparable.compareTo / Integer.compare.
func compareValues(a, b any) (any, error) {
	if a == nil || b == nil {
		return nil, npe("compareTo")
	}
	if isNumber(a) && isNumber(b) {
		r, nan := compareNum(a, b)
		if nan {
			fa, fb := toF64(a), toF64(b)
			switch {
			case math.IsNaN(fa) && math.IsNaN(fb):
				r = 0
			case math.IsNaN(fa):
				r = 1
			default:
				r = -1
			}
		}
		return int32(r), nil
	}
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		if !ok {
			break
		}
		return int32(compareUTF16(x, y)), nil
	case bool:
		y, ok := b.(bool)
		if !ok {
			break
		}
		switch {
		case x == y:
			return int32(0), nil
		case x:
			return int32(1), nil
		}
		return int32(-1), nil
	}
	return nil, jexc("ClassCastException", "class %s cannot be compared with class %s", runtimeClass(a), runtimeClass(b))
}
