package java

import "math"

// maxElements bounds a collection's size.
const maxElements = 1 << 16

func listIndexErr(i, n int) error {
	return &ExecError{Msg: "java.lang.IndexOutOfBoundsException: Index " + javaString(int32(i)) + " out of bounds for length " + javaString(int32(n))}
}

func (m *machine) grow(n int) error {
	if n > maxElements {
		return jexc("OutOfMemoryError", "collection of more than %d elements exceeds dohyo's bound", maxElements)
	}
	return m.allocate(16)
}

func elemsOf(v any) ([]any, bool) {
	switch c := v.(type) {
	case *jList:
		return c.elems, true
	case *jSet:
		return c.elems, true
	}
	return nil, false
}

func (e *newExpr) eval(m *machine) (any, error) {
	if err := m.charge(1); err != nil {
		return nil, err
	}
	var src any
	if len(e.args) == 1 {
		v, err := e.args[0].eval(m)
		if err != nil {
			return nil, err
		}
		src = v
	}
	if _, isInt := src.(int32); isInt {
		src = nil // an initial capacity
	}
	switch e.k {
	case kBuilder:
		return newBuilder(m, src)
	case kList, kSet:
		var elems []any
		if src != nil {
			items, ok := elemsOf(src)
			if !ok {
				return nil, jexc("ClassCastException", "%s is not a Collection", runtimeClass(src))
			}
			elems = items
		}
		if e.k == kList {
			return &jList{elems: append([]any(nil), elems...)}, m.charge(int64(len(elems)))
		}
		s := &jSet{}
		for _, x := range elems {
			if s.index(x) < 0 {
				s.elems = append(s.elems, x)
			}
		}
		return s, m.charge(int64(len(elems) * len(elems) / 16))
	}
	mp := &jMap{}
	if src != nil {
		o, ok := src.(*jMap)
		if !ok {
			return nil, jexc("ClassCastException", "%s is not a Map", runtimeClass(src))
		}
		mp.keys, mp.vals = append([]any(nil), o.keys...), append([]any(nil), o.vals...)
	}
	return mp, nil
}

func collectionMethod(m *machine, recv any, name string, args []any) (any, error) {
	switch c := recv.(type) {
	case *jEntry:
		switch name {
		case "getKey":
			return c.k, nil
		case "getValue":
			return c.v, nil
		}
	case *jList:
		return listMethod(m, c, name, args)
	case *jSet:
		return setMethod(m, c, name, args)
	case *jMap:
		return mapMethod(m, c, name, args)
	}
	return nil, wrongMethod(recv, name, args)
}

func listMethod(m *machine, l *jList, name string, args []any) (any, error) {
	if err := m.charge(int64(len(l.elems)/16 + 1)); err != nil {
		return nil, err
	}
	n := len(l.elems)
	switch {
	case name == "size" && len(args) == 0:
		return int32(n), nil
	case name == "isEmpty" && len(args) == 0:
		return n == 0, nil
	case name == "clear" && len(args) == 0:
		l.elems = nil
		return nil, nil
	case name == "get" && len(args) == 1:
		i, err := intArg(args[0])
		if err != nil {
			return nil, err
		}
		if i < 0 || i >= n {
			return nil, listIndexErr(i, n)
		}
		return l.elems[i], nil
	case name == "set" && len(args) == 2:
		i, err := intArg(args[0])
		if err != nil {
			return nil, err
		}
		if i < 0 || i >= n {
			return nil, listIndexErr(i, n)
		}
		old := l.elems[i]
		l.elems[i] = args[1]
		return old, nil
	case name == "add" && len(args) == 1:
		if err := m.grow(n + 1); err != nil {
			return nil, err
		}
		l.elems = append(l.elems, args[0])
		return true, nil
	case name == "add" && len(args) == 2:
		i, err := intArg(args[0])
		if err != nil {
			return nil, err
		}
		if i < 0 || i > n {
			return nil, listIndexErr(i, n)
		}
		if err := m.grow(n + 1); err != nil {
			return nil, err
		}
		l.elems = append(l.elems[:i], append([]any{args[1]}, l.elems[i:]...)...)
		return nil, nil
	case name == "addAll" && len(args) == 1:
		items, ok := elemsOf(args[0])
		if !ok {
			return nil, npe("addAll")
		}
		if err := m.grow(n + len(items)); err != nil {
			return nil, err
		}
		l.elems = append(l.elems, items...)
		return len(items) > 0, nil
	case name == "remove" && len(args) == 1:
		if i, err := intArg(args[0]); err == nil {
			if i < 0 || i >= n {
				return nil, listIndexErr(i, n)
			}
			old := l.elems[i]
			l.elems = append(l.elems[:i:i], l.elems[i+1:]...)
			return old, nil
		}
		for i, e := range l.elems {
			if javaEquals(e, args[0]) {
				l.elems = append(l.elems[:i:i], l.elems[i+1:]...)
				return true, nil
			}
		}
		return false, nil
	case (name == "contains" || name == "indexOf" || name == "lastIndexOf") && len(args) == 1:
		idx := -1
		for i, e := range l.elems {
			if javaEquals(e, args[0]) {
				idx = i
				if name != "lastIndexOf" {
					break
				}
			}
		}
		if name == "contains" {
			return idx >= 0, nil
		}
		return int32(idx), nil
	case name == "containsAll" && len(args) == 1:
		return containsAll(l.elems, args[0])
	}
	return nil, wrongMethod(l, name, args)
}

func containsAll(elems []any, other any) (any, error) {
	items, ok := elemsOf(other)
	if !ok {
		return nil, npe("containsAll")
	}
	for _, x := range items {
		found := false
		for _, e := range elems {
			if javaEquals(e, x) {
				found = true
				break
			}
		}
		if !found {
			return false, nil
		}
	}
	return true, nil
}

func setMethod(m *machine, s *jSet, name string, args []any) (any, error) {
	if err := m.charge(int64(len(s.elems)/16 + 1)); err != nil {
		return nil, err
	}
	switch {
	case name == "size" && len(args) == 0:
		return int32(len(s.elems)), nil
	case name == "isEmpty" && len(args) == 0:
		return len(s.elems) == 0, nil
	case name == "clear" && len(args) == 0:
		s.elems = nil
		return nil, nil
	case name == "contains" && len(args) == 1:
		return s.index(args[0]) >= 0, nil
	case name == "containsAll" && len(args) == 1:
		return containsAll(s.elems, args[0])
	case name == "add" && len(args) == 1:
		if s.index(args[0]) >= 0 {
			return false, nil
		}
		if err := m.grow(len(s.elems) + 1); err != nil {
			return nil, err
		}
		s.elems = append(s.elems, args[0])
		return true, nil
	case name == "addAll" && len(args) == 1:
		items, ok := elemsOf(args[0])
		if !ok {
			return nil, npe("addAll")
		}
		changed := false
		for _, x := range items {
			r, err := setMethod(m, s, "add", []any{x})
			if err != nil {
				return nil, err
			}
			changed = changed || r.(bool)
		}
		return changed, nil
	case name == "remove" && len(args) == 1:
		i := s.index(args[0])
		if i < 0 {
			return false, nil
		}
		s.elems = append(s.elems[:i:i], s.elems[i+1:]...)
		return true, nil
	}
	return nil, wrongMethod(s, name, args)
}

func mapMethod(m *machine, mp *jMap, name string, args []any) (any, error) {
	if err := m.charge(int64(len(mp.keys)/16 + 1)); err != nil {
		return nil, err
	}
	switch {
	case name == "size" && len(args) == 0:
		return int32(len(mp.keys)), nil
	case name == "isEmpty" && len(args) == 0:
		return len(mp.keys) == 0, nil
	case name == "clear" && len(args) == 0:
		mp.keys, mp.vals = nil, nil
		return nil, nil
	case (name == "get" && len(args) == 1) || (name == "getOrDefault" && len(args) == 2):
		if i := mp.index(args[0]); i >= 0 {
			return mp.vals[i], nil
		}
		if len(args) == 2 {
			return args[1], nil
		}
		return nil, nil
	case name == "containsKey" && len(args) == 1:
		return mp.index(args[0]) >= 0, nil
	case name == "containsValue" && len(args) == 1:
		for _, v := range mp.vals {
			if javaEquals(v, args[0]) {
				return true, nil
			}
		}
		return false, nil
	case (name == "put" || name == "putIfAbsent") && len(args) == 2:
		i := mp.index(args[0])
		if i >= 0 && name == "putIfAbsent" && mp.vals[i] != nil {
			return mp.vals[i], nil
		}
		if i < 0 {
			if err := m.grow(len(mp.keys) + 1); err != nil {
				return nil, err
			}
		}
		return mp.put(args[0], args[1]), nil
	case name == "putAll" && len(args) == 1:
		o, ok := args[0].(*jMap)
		if !ok {
			return nil, npe("putAll")
		}
		for i := range o.keys {
			if _, err := mapMethod(m, mp, "put", []any{o.keys[i], o.vals[i]}); err != nil {
				return nil, err
			}
		}
		return nil, nil
	case name == "remove" && len(args) == 1:
		i := mp.index(args[0])
		if i < 0 {
			return nil, nil
		}
		old := mp.vals[i]
		mp.keys = append(mp.keys[:i:i], mp.keys[i+1:]...)
		mp.vals = append(mp.vals[:i:i], mp.vals[i+1:]...)
		return old, nil
	case name == "keySet" && len(args) == 0:
		return &jSet{elems: append([]any(nil), mp.keys...)}, m.charge(int64(len(mp.keys)))
	case name == "values" && len(args) == 0:
		return &jList{elems: append([]any(nil), mp.vals...)}, m.charge(int64(len(mp.keys)))
	case name == "entrySet" && len(args) == 0:
		s := &jSet{elems: make([]any, len(mp.keys))}
		for i := range mp.keys {
			s.elems[i] = &jEntry{k: mp.keys[i], v: mp.vals[i]}
		}
		return s, m.charge(int64(len(mp.keys)))
	}
	return nil, wrongMethod(mp, name, args)
}

var _ = math.MaxInt32
