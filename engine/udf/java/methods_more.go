package java

import (
	"math/bits"
	"math/rand/v2"
	"strconv"
	"time"
)

// Everyday calls of UDF bodies copied from tutorials and driver test
// suites: the boxed types' constructors (deprecated, still compiled by
// Cassandra), System.currentTimeMillis() and nanoTime(), Math.random(),
// java.util.Objects, and Integer's and Long's bit and radix helpers.

func init() {
	staticMethods["System"] = map[string][]int{"currentTimeMillis": {0}, "nanoTime": {0}}
	staticMethods["Objects"] = map[string][]int{"equals": {2}, "hashCode": {1}, "toString": {1, 2},
		"isNull": {1}, "nonNull": {1}, "requireNonNull": {1, 2}, "requireNonNullElse": {2},
		"hash": {1, 2, 3, 4, 5, 6, 7, 8}}
	staticMethods["Math"]["random"] = []int{0}
	for _, class := range []string{"Integer", "Long"} {
		for _, name := range []string{"toHexString", "toBinaryString", "toOctalString", "reverse", "reverseBytes",
			"numberOfLeadingZeros", "numberOfTrailingZeros", "highestOneBit", "lowestOneBit"} {
			staticMethods[class][name] = []int{1}
		}
		staticMethods[class]["rotateLeft"] = []int{2}
		staticMethods[class]["rotateRight"] = []int{2}
		staticMethods[class]["toString"] = []int{1, 2} // (value) or (value, radix)
	}
	staticMethods["Long"]["bitCount"] = []int{1}
}

// boxExpr is new Integer(x), new Double(x), ... (valueOf of x) or new
// String(s) (arg nil: new String()).
type boxExpr struct {
	class string
	arg   expr
}

func (e *boxExpr) eval(m *machine) (any, error) {
	if err := m.charge(1); err != nil {
		return nil, err
	}
	if e.arg == nil {
		return "", nil
	}
	v, err := e.arg.eval(m)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, npe("new " + e.class + "()")
	}
	switch e.class {
	case "String":
		if b, ok := v.(*jBuilder); ok {
			return b.String(), nil
		}
		return argString(v, "new String()")
	case "Character":
		if _, ok := v.(jchar); !ok {
			return nil, jexc("ClassCastException", "new Character() takes a char, not %s", runtimeClass(v))
		}
		return v, nil
	}
	return callStatic(m, e.class, "valueOf", []any{v})
}

// callMore runs the static methods of this file; ok is false for others.
func callMore(m *machine, class, name string, a []any) (v any, ok bool, err error) {
	switch class {
	case "System":
		if name == "nanoTime" {
			return time.Now().UnixNano(), true, nil
		}
		return time.Now().UnixMilli(), true, nil
	case "Objects":
		v, err := callObjects(m, name, a)
		return v, true, err
	case "Math", "StrictMath":
		if name == "random" {
			return rand.Float64(), true, nil
		}
		return nil, false, nil
	case "Integer", "Long":
		return callBits(class, name, a)
	}
	return nil, false, nil
}

func callObjects(m *machine, name string, a []any) (any, error) {
	switch name {
	case "equals":
		return a[0] == nil && a[1] == nil || a[0] != nil && javaEquals(a[0], a[1]), nil
	case "hashCode":
		return javaHash(a[0]), nil
	case "toString":
		if a[0] == nil && len(a) == 2 {
			return argString(a[1], "Objects.toString")
		}
		return javaString(a[0]), nil
	case "isNull":
		return a[0] == nil, nil
	case "nonNull":
		return a[0] != nil, nil
	case "requireNonNull":
		if a[0] == nil {
			msg := ""
			if len(a) == 2 {
				msg = javaString(a[1])
			}
			return nil, jexc("NullPointerException", "%s", msg)
		}
		return a[0], nil
	case "requireNonNullElse":
		if a[0] != nil {
			return a[0], nil
		}
		if a[1] == nil {
			return nil, jexc("NullPointerException", "defaultObj")
		}
		return a[1], nil
	}
	// hash: Arrays.hashCode of the arguments.
	h := int32(1)
	for _, v := range a {
		h = 31*h + javaHash(v)
	}
	return h, m.charge(int64(len(a)))
}

// callBits runs Integer's and Long's bit and radix methods; ok is false
// for the other methods of those classes.
func callBits(class, name string, a []any) (any, bool, error) {
	k, width := kInt, 32
	if class == "Long" {
		k, width = kLong, 64
	}
	var u uint64
	switch name {
	case "toHexString", "toBinaryString", "toOctalString", "reverse", "reverseBytes", "numberOfLeadingZeros",
		"numberOfTrailingZeros", "highestOneBit", "lowestOneBit", "rotateLeft", "rotateRight", "bitCount":
		x, err := castNumber(k, a[0])
		if err != nil {
			return nil, true, err
		}
		if k == kInt {
			u = uint64(uint32(x.(int32)))
		} else {
			u = uint64(x.(int64))
		}
	case "toString":
		if len(a) != 2 {
			return nil, false, nil
		}
		x, err := castNumber(kLong, a[0])
		if err != nil {
			return nil, true, err
		}
		r, err := castNumber(kInt, a[1])
		if err != nil {
			return nil, true, err
		}
		radix := int(r.(int32))
		if radix < 2 || radix > 36 {
			radix = 10 // as Java does
		}
		return strconv.FormatInt(x.(int64), radix), true, nil
	default:
		return nil, false, nil
	}
	result := func(v uint64) (any, bool, error) {
		if k == kInt {
			return int32(uint32(v)), true, nil
		}
		return int64(v), true, nil
	}
	switch name {
	case "toHexString":
		return strconv.FormatUint(u, 16), true, nil
	case "toBinaryString":
		return strconv.FormatUint(u, 2), true, nil
	case "toOctalString":
		return strconv.FormatUint(u, 8), true, nil
	case "bitCount":
		return int32(bits.OnesCount64(u)), true, nil
	case "numberOfLeadingZeros":
		return int32(bits.LeadingZeros64(u) - (64 - width)), true, nil
	case "numberOfTrailingZeros":
		if u == 0 {
			return int32(width), true, nil
		}
		return int32(bits.TrailingZeros64(u)), true, nil
	case "highestOneBit":
		if u == 0 {
			return result(0)
		}
		return result(1 << (63 - bits.LeadingZeros64(u)))
	case "lowestOneBit":
		return result(u & -u)
	case "reverse":
		if k == kInt {
			return result(uint64(bits.Reverse32(uint32(u))))
		}
		return result(bits.Reverse64(u))
	case "reverseBytes":
		if k == kInt {
			return result(uint64(bits.ReverseBytes32(uint32(u))))
		}
		return result(bits.ReverseBytes64(u))
	}
	d, err := castNumber(kInt, a[1])
	if err != nil {
		return nil, true, err
	}
	n := int(d.(int32))
	if name == "rotateRight" {
		n = -n
	}
	if k == kInt {
		return result(uint64(bits.RotateLeft32(uint32(u), n)))
	}
	return result(bits.RotateLeft64(u, n))
}
