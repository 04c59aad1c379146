package java

import (
	"strings"

	"github.com/dohyo/dohyo/cql"
)

// accessorKinds maps TupleValue/UDTValue getter and setter suffixes to
// the CQL kinds they accept.
var accessorKinds = map[string][]cql.Kind{
	"Int": {cql.KindInt}, "Long": {cql.KindBigint, cql.KindCounter}, "Double": {cql.KindDouble},
	"Float": {cql.KindFloat}, "Short": {cql.KindSmallint}, "Byte": {cql.KindTinyint}, "Bool": {cql.KindBoolean},
	"String": {cql.KindText, cql.KindAscii}, "List": {cql.KindList}, "Set": {cql.KindSet}, "Map": {cql.KindMap},
	"TupleValue": {cql.KindTuple}, "UDTValue": {cql.KindUDT},
}

var accessorZero = map[string]any{
	"Int": int32(0), "Long": int64(0), "Double": float64(0), "Float": float32(0), "Short": int16(0),
	"Byte": int8(0), "Bool": false,
}

// component resolves a tuple index or UDT field name.
func (t *jTuple) component(v any) (int, error) {
	if s, ok := v.(string); ok && t.t.Kind == cql.KindUDT {
		name := strings.ToLower(s)
		if len(s) > 1 && s[0] == '"' && s[len(s)-1] == '"' {
			name = s[1 : len(s)-1]
		}
		for i, f := range t.t.Fields {
			if f == name {
				return i, nil
			}
		}
		return 0, &ExecError{Msg: "java.lang.IllegalArgumentException: " + s + " is not a field defined in this UDT"}
	}
	i, err := intArg(v)
	if err != nil {
		return 0, err
	}
	if i < 0 || i >= len(t.vals) {
		return 0, listIndexErr(i, len(t.vals))
	}
	return i, nil
}

func invalidType(t *cql.Type, want string) error {
	return &ExecError{Msg: "com.datastax.driver.core.exceptions.InvalidTypeException: Value is of type " + t.String() + ", not " + want}
}

func tupleMethod(m *machine, t *jTuple, name string, args []any) (any, error) {
	switch {
	case name == "isNull" && len(args) == 1:
		i, err := t.component(args[0])
		if err != nil {
			return nil, err
		}
		return t.vals[i] == nil, nil
	case name == "setToNull" && len(args) == 1:
		i, err := t.component(args[0])
		if err != nil {
			return nil, err
		}
		t.vals[i] = nil
		return t, nil
	case name == "getObject" && len(args) == 1:
		i, err := t.component(args[0])
		if err != nil {
			return nil, err
		}
		return t.vals[i], nil
	case strings.HasPrefix(name, "get") && len(args) >= 1:
		suffix := name[3:]
		kinds, ok := accessorKinds[suffix]
		if !ok {
			break
		}
		i, err := t.component(args[0])
		if err != nil {
			return nil, err
		}
		ct := t.t.Elems[i]
		if !kindIn(ct.Kind, kinds) {
			return nil, invalidType(ct, strings.ToLower(suffix))
		}
		if t.vals[i] == nil {
			return accessorZero[suffix], nil
		}
		return t.vals[i], nil
	case strings.HasPrefix(name, "set") && len(args) == 2:
		suffix := name[3:]
		kinds, ok := accessorKinds[suffix]
		if !ok {
			break
		}
		i, err := t.component(args[0])
		if err != nil {
			return nil, err
		}
		ct := t.t.Elems[i]
		if !kindIn(ct.Kind, kinds) {
			return nil, invalidType(ct, strings.ToLower(suffix))
		}
		if _, err := javaToGo(ct, args[1]); err != nil {
			return nil, err
		}
		v := args[1]
		if isNumber(v) {
			g, _ := numberTo(ct, v)
			v = goToJava(ct, g)
		}
		t.vals[i] = v
		return t, nil
	}
	return nil, wrongMethod(t, name, args)
}

func kindIn(k cql.Kind, ks []cql.Kind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}
