package java

import (
	"fmt"
	"math"
)

// machine is one call's state: the frame of local slots and the budgets.
type machine struct {
	frame  []any
	steps  int64
	budget int64
	alloc  int64
	fn     *Func
}

// Limits of one call.
const (
	defaultSteps   = 2_000_000 // statements, loop iterations and element operations
	maxAlloc       = 32 << 20  // bytes of strings and collection slots created
	maxStringChars = 1 << 20
)

type budgetError struct{}

func (m *machine) charge(n int64) error {
	m.steps += n
	if m.steps > m.budget {
		return &ExecError{Msg: fmt.Sprintf("User defined function %s ran longer than dohyo's budget of %d steps", m.fn.name, m.budget)}
	}
	return nil
}

func (m *machine) allocate(n int64) error {
	m.alloc += n
	if m.alloc > maxAlloc {
		return &ExecError{Msg: fmt.Sprintf("User defined function %s allocated more than dohyo's bound of %d bytes", m.fn.name, maxAlloc)}
	}
	return nil
}

func npe(what string) error {
	return jexc("NullPointerException", "Cannot invoke \"%s\" because value is null", what)
}

// ---- statements ----

func (s *blockStmt) exec(m *machine) (ctl, any, error) {
	for _, st := range s.list {
		c, v, err := st.exec(m)
		if err != nil || c != ctlNormal {
			return c, v, err
		}
	}
	return ctlNormal, nil, nil
}

func (s *declStmt) exec(m *machine) (ctl, any, error) {
	if err := m.charge(1); err != nil {
		return 0, nil, err
	}
	for i, slot := range s.slots {
		var v any
		if s.inits[i] != nil {
			x, err := s.inits[i].eval(m)
			if err != nil {
				return 0, nil, err
			}
			if v, err = coerce(s.t, x, s.line); err != nil {
				return 0, nil, err
			}
		} else {
			v = zeroValue(s.t)
		}
		m.frame[slot] = v
	}
	return ctlNormal, nil, nil
}

func zeroValue(t jtype) any {
	if t.ref {
		return nil
	}
	v, _ := castNumber(t.k, int32(0))
	if t.k == kBoolean {
		return false
	}
	return v
}

func (s *exprStmt) exec(m *machine) (ctl, any, error) {
	if err := m.charge(1); err != nil {
		return 0, nil, err
	}
	_, err := s.e.eval(m)
	return ctlNormal, nil, err
}

func condition(m *machine, e expr) (bool, error) {
	v, err := e.eval(m)
	if err != nil {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		if v == nil {
			return false, npe("java.lang.Boolean.booleanValue()")
		}
		return false, jexc("ClassCastException", "%s cannot be cast to java.lang.Boolean", runtimeClass(v))
	}
	return b, nil
}

func (s *ifStmt) exec(m *machine) (ctl, any, error) {
	if err := m.charge(1); err != nil {
		return 0, nil, err
	}
	b, err := condition(m, s.cond)
	if err != nil {
		return 0, nil, err
	}
	if b {
		return s.then.exec(m)
	}
	if s.els != nil {
		return s.els.exec(m)
	}
	return ctlNormal, nil, nil
}

func (s *whileStmt) exec(m *machine) (ctl, any, error) {
	for first := true; ; first = false {
		if err := m.charge(1); err != nil {
			return 0, nil, err
		}
		if !(s.do && first) {
			b, err := condition(m, s.cond)
			if err != nil || !b {
				return ctlNormal, nil, err
			}
		}
		c, v, err := s.body.exec(m)
		if err != nil || c == ctlReturn {
			return c, v, err
		}
		if c == ctlBreak {
			return ctlNormal, nil, nil
		}
	}
}

func (s *forStmt) exec(m *machine) (ctl, any, error) {
	for _, st := range s.init {
		if _, _, err := st.exec(m); err != nil {
			return 0, nil, err
		}
	}
	for {
		if err := m.charge(1); err != nil {
			return 0, nil, err
		}
		if s.cond != nil {
			b, err := condition(m, s.cond)
			if err != nil || !b {
				return ctlNormal, nil, err
			}
		}
		c, v, err := s.body.exec(m)
		if err != nil || c == ctlReturn {
			return c, v, err
		}
		if c == ctlBreak {
			return ctlNormal, nil, nil
		}
		for _, u := range s.update {
			if _, err := u.eval(m); err != nil {
				return 0, nil, err
			}
		}
	}
}

func (s *forEachStmt) exec(m *machine) (ctl, any, error) {
	cv, err := s.coll.eval(m)
	if err != nil {
		return 0, nil, err
	}
	var items []any
	switch c := cv.(type) {
	case *jList:
		items = append([]any(nil), c.elems...)
	case *jSet:
		items = append([]any(nil), c.elems...)
	case nil:
		return 0, nil, npe("java.lang.Iterable.iterator()")
	default:
		return 0, nil, jexc("ClassCastException", "%s is not Iterable", runtimeClass(cv))
	}
	for _, it := range items {
		if err := m.charge(1); err != nil {
			return 0, nil, err
		}
		v, err := coerce(s.t, it, s.line)
		if err != nil {
			return 0, nil, err
		}
		m.frame[s.slot] = v
		c, rv, err := s.body.exec(m)
		if err != nil || c == ctlReturn {
			return c, rv, err
		}
		if c == ctlBreak {
			break
		}
	}
	return ctlNormal, nil, nil
}

func (breakStmt) exec(*machine) (ctl, any, error)    { return ctlBreak, nil, nil }
func (continueStmt) exec(*machine) (ctl, any, error) { return ctlContinue, nil, nil }

func (s *returnStmt) exec(m *machine) (ctl, any, error) {
	if s.e == nil {
		return ctlReturn, nil, nil
	}
	v, err := s.e.eval(m)
	return ctlReturn, v, err
}

// ---- conversions ----

// coerce converts a value assigned to a variable of type t (Java's
// assignment conversions, and the implicit narrowing of compound
// assignment).
func coerce(t jtype, v any, line int) (any, error) {
	if t.k == kAny {
		return v, nil
	}
	if v == nil {
		if t.primitive() {
			return nil, npe("unboxing")
		}
		return nil, nil
	}
	switch t.k {
	case kBoolean:
		if _, ok := v.(bool); ok {
			return v, nil
		}
	case kByte, kShort, kChar, kInt, kLong, kFloat, kDouble:
		if isNumber(v) {
			return castNumber(t.k, v)
		}
	case kString:
		if _, ok := v.(string); ok {
			return v, nil
		}
	case kList:
		if _, ok := v.(*jList); ok {
			return v, nil
		}
	case kSet:
		if _, ok := v.(*jSet); ok {
			return v, nil
		}
	case kMap:
		if _, ok := v.(*jMap); ok {
			return v, nil
		}
	case kEntry:
		if _, ok := v.(*jEntry); ok {
			return v, nil
		}
	case kTuple, kUDT:
		if _, ok := v.(*jTuple); ok {
			return v, nil
		}
	case kBuilder:
		if _, ok := v.(*jBuilder); ok {
			return v, nil
		}
	}
	return nil, jexc("ClassCastException", "class %s cannot be cast (line %d)", runtimeClass(v), line)
}

func isNumber(v any) bool {
	switch v.(type) {
	case int8, int16, jchar, int32, int64, float32, float64:
		return true
	}
	return false
}

func toF64(v any) float64 {
	switch x := v.(type) {
	case float32:
		return float64(x)
	case float64:
		return x
	}
	i, _ := integral(v)
	return float64(i)
}

// castNumber is a Java numeric cast.
func castNumber(k jkind, v any) (any, error) {
	if v == nil {
		return nil, npe("unboxing")
	}
	if !isNumber(v) {
		return nil, jexc("ClassCastException", "class %s cannot be cast to a number", runtimeClass(v))
	}
	_, isF32 := v.(float32)
	_, isF64 := v.(float64)
	var i int64
	if isF32 || isF64 {
		f := toF64(v)
		switch k {
		case kFloat:
			return float32(f), nil
		case kDouble:
			return f, nil
		case kLong:
			return f2i(f, math.MinInt64, math.MaxInt64), nil
		}
		i = f2i(f, math.MinInt32, math.MaxInt32)
	} else {
		i, _ = integral(v)
	}
	switch k {
	case kByte:
		return int8(i), nil
	case kShort:
		return int16(i), nil
	case kChar:
		return jchar(uint16(i)), nil
	case kInt:
		return int32(i), nil
	case kLong:
		return i, nil
	case kFloat:
		return float32(i), nil
	case kDouble:
		return float64(i), nil
	}
	return nil, jexc("ClassCastException", "bad cast")
}

// f2i is Java's saturating float-to-integer conversion.
func f2i(f float64, lo, hi int64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f <= float64(lo):
		return lo
	case f >= float64(hi):
		return hi
	}
	return int64(f)
}
