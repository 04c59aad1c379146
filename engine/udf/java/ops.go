package java

import "math"

func (e *litExpr) eval(*machine) (any, error)     { return e.v, nil }
func (e *localExpr) eval(m *machine) (any, error) { return m.frame[e.slot], nil }

func (e *assignExpr) eval(m *machine) (any, error) {
	r, err := e.rhs.eval(m)
	if err != nil {
		return nil, err
	}
	if e.op != "=" {
		if r, err = binaryOp(m, e.op, m.frame[e.slot], r); err != nil {
			return nil, err
		}
		if e.t.k != kAny && e.t.k != kString && r != nil && isNumber(r) {
			if r, err = castNumber(e.t.k, r); err != nil { // compound assignment narrows
				return nil, err
			}
		}
	}
	v, err := coerce(e.t, r, e.line)
	if err != nil {
		return nil, err
	}
	m.frame[e.slot] = v
	return v, nil
}

func (e *incDecExpr) eval(m *machine) (any, error) {
	old := m.frame[e.slot]
	n, err := binaryOp(m, "+", old, int32(e.delta))
	if err != nil {
		return nil, err
	}
	k := e.t.k
	if k == kAny {
		k = numKind(old)
	}
	if n, err = castNumber(k, n); err != nil {
		return nil, err
	}
	m.frame[e.slot] = n
	if e.prefix {
		return n, nil
	}
	return old, nil
}

// numKind is the kind of a numeric runtime value.
func numKind(v any) jkind {
	switch v.(type) {
	case int8:
		return kByte
	case int16:
		return kShort
	case jchar:
		return kChar
	case int64:
		return kLong
	case float32:
		return kFloat
	case float64:
		return kDouble
	}
	return kInt
}

func (e *unaryExpr) eval(m *machine) (any, error) {
	v, err := e.x.eval(m)
	if err != nil {
		return nil, err
	}
	if e.op == "!" {
		b, ok := v.(bool)
		if !ok {
			return nil, badOperand("!", v)
		}
		return !b, nil
	}
	if v == nil {
		return nil, npe("unboxing")
	}
	if !isNumber(v) {
		return nil, badOperand(e.op, v)
	}
	k := promote1(v)
	switch e.op {
	case "+":
		return castNumber(k, v)
	case "-":
		switch k {
		case kInt:
			x, _ := castNumber(kInt, v)
			return -x.(int32), nil
		case kLong:
			return -v.(int64), nil
		case kFloat:
			return -v.(float32), nil
		}
		return -v.(float64), nil
	}
	// "~"
	switch k {
	case kInt:
		x, _ := castNumber(kInt, v)
		return ^x.(int32), nil
	case kLong:
		return ^v.(int64), nil
	}
	return nil, badOperand("~", v)
}

func badOperand(op string, v any) error {
	return jexc("ClassCastException", "the operator %s is undefined for %s", op, runtimeClass(v))
}

// promote1 is unary numeric promotion.
func promote1(v any) jkind {
	switch v.(type) {
	case int64:
		return kLong
	case float32:
		return kFloat
	case float64:
		return kDouble
	}
	return kInt
}

// promote2 is binary numeric promotion.
func promote2(a, b any) jkind {
	ka, kb := promote1(a), promote1(b)
	return max(ka, kb)
}

func (e *logicalExpr) eval(m *machine) (any, error) {
	a, err := condition(m, e.x)
	if err != nil {
		return nil, err
	}
	if a != e.and {
		return a, nil
	}
	return condition(m, e.y)
}

func (e *condExpr) eval(m *machine) (any, error) {
	c, err := condition(m, e.c)
	if err != nil {
		return nil, err
	}
	if c {
		return e.a.eval(m)
	}
	return e.b.eval(m)
}

func (e *castExpr) eval(m *machine) (any, error) {
	v, err := e.x.eval(m)
	if err != nil {
		return nil, err
	}
	if e.t.ref && v == nil {
		return nil, nil
	}
	if e.t.k >= kByte && e.t.k <= kDouble && !e.t.ref {
		return castNumber(e.t.k, v)
	}
	return coerceRef(e.t, v, e.line)
}

// coerceRef is a reference cast: the value must be of the class.
func coerceRef(t jtype, v any, line int) (any, error) {
	if t.k >= kByte && t.k <= kDouble && isNumber(v) && numKind(v) != t.k {
		return nil, jexc("ClassCastException", "class %s cannot be cast (line %d)", runtimeClass(v), line)
	}
	return coerce(t, v, line)
}

func (e *binaryExpr) eval(m *machine) (any, error) {
	a, err := e.x.eval(m)
	if err != nil {
		return nil, err
	}
	b, err := e.y.eval(m)
	if err != nil {
		return nil, err
	}
	return binaryOp(m, e.op, a, b)
}

func binaryOp(m *machine, op string, a, b any) (any, error) {
	_, as := a.(string)
	_, bs := b.(string)
	if op == "+" && (as || bs) {
		s := javaString(a) + javaString(b)
		if len(s) > maxStringChars {
			return nil, jexc("OutOfMemoryError", "string of %d characters exceeds dohyo's bound", len(s))
		}
		if err := m.allocate(int64(len(s))); err != nil {
			return nil, err
		}
		return s, nil
	}
	switch op {
	case "==", "!=":
		eq := false
		if isNumber(a) && isNumber(b) {
			r, _ := compareNum(a, b)
			eq = r == 0
		} else {
			eq = javaEquals(a, b)
		}
		return eq == (op == "=="), nil
	}
	if ab, ok := a.(bool); ok {
		if bb, ok := b.(bool); ok {
			switch op {
			case "&":
				return ab && bb, nil
			case "|":
				return ab || bb, nil
			case "^":
				return ab != bb, nil
			}
		}
	}
	if a == nil || b == nil {
		return nil, npe("unboxing")
	}
	if !isNumber(a) || !isNumber(b) {
		return nil, jexc("ClassCastException", "the operator %s is undefined for %s, %s", op, runtimeClass(a), runtimeClass(b))
	}
	switch op {
	case "<", ">", "<=", ">=":
		r, nan := compareNum(a, b)
		if nan {
			return false, nil
		}
		return (op == "<" && r < 0) || (op == ">" && r > 0) || (op == "<=" && r <= 0) || (op == ">=" && r >= 0), nil
	case "<<", ">>", ">>>":
		return shift(op, a, b)
	}
	switch k := promote2(a, b); k {
	case kInt, kLong:
		x, _ := integral(a)
		y, _ := integral(b)
		r, err := intOp(op, x, y, k == kInt)
		if err != nil {
			return nil, err
		}
		if k == kLong {
			return r, nil
		}
		return int32(r), nil
	case kFloat:
		r, err := floatOp(op, toF64(a), toF64(b))
		return float32(r), err
	default:
		return floatOp(op, toF64(a), toF64(b))
	}
}

func compareNum(a, b any) (int, bool) {
	if k := promote2(a, b); k == kInt || k == kLong {
		x, _ := integral(a)
		y, _ := integral(b)
		switch {
		case x < y:
			return -1, false
		case x > y:
			return 1, false
		}
		return 0, false
	}
	x, y := toF64(a), toF64(b)
	if math.IsNaN(x) || math.IsNaN(y) {
		return 2, true
	}
	switch {
	case x < y:
		return -1, false
	case x > y:
		return 1, false
	}
	return 0, false
}

func intOp(op string, x, y int64, is32 bool) (int64, error) {
	switch op {
	case "+":
		return x + y, nil
	case "-":
		return x - y, nil
	case "*":
		return x * y, nil
	case "/", "%":
		if y == 0 {
			return 0, jexc("ArithmeticException", "/ by zero")
		}
		if is32 {
			if op == "/" {
				return int64(int32(x) / int32(y)), nil
			}
			return int64(int32(x) % int32(y)), nil
		}
		if y == -1 { // MinInt64 / -1 wraps in Java
			if op == "/" {
				return -x, nil
			}
			return 0, nil
		}
		if op == "/" {
			return x / y, nil
		}
		return x % y, nil
	case "&":
		return x & y, nil
	case "|":
		return x | y, nil
	case "^":
		return x ^ y, nil
	}
	return 0, jexc("ClassCastException", "the operator %s is undefined for numbers", op)
}

func floatOp(op string, x, y float64) (float64, error) {
	switch op {
	case "+":
		return x + y, nil
	case "-":
		return x - y, nil
	case "*":
		return x * y, nil
	case "/":
		return x / y, nil
	case "%":
		return math.Mod(x, y), nil
	}
	return 0, jexc("ClassCastException", "the operator %s is undefined for floating-point numbers", op)
}

func shift(op string, a, b any) (any, error) {
	k := promote1(a)
	if k != kInt && k != kLong || promote1(b) > kLong {
		return nil, jexc("ClassCastException", "the operator %s is undefined for %s", op, runtimeClass(a))
	}
	n, _ := integral(b)
	x, _ := integral(a)
	if k == kInt {
		v, s := int32(x), uint(n&31)
		switch op {
		case "<<":
			return v << s, nil
		case ">>":
			return v >> s, nil
		}
		return int32(uint32(v) >> s), nil
	}
	s := uint(n & 63)
	switch op {
	case "<<":
		return x << s, nil
	case ">>":
		return x >> s, nil
	}
	return int64(uint64(x) >> s), nil
}
