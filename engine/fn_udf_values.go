package engine

import (
	"strconv"
	"strings"

	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

// callUDF evaluates a user-defined function call in a value position
// (INSERT/UPDATE values, WHERE terms): keyspace-qualified, or unqualified
// and defined in the statement's keyspace (which Cassandra looks in before
// the native functions); ok is false for other names.
func (x *execCtx) callUDF(fn *cql.FuncCall) (*cql.Type, []byte, bool, error) {
	name := strings.ToLower(fn.Name)
	ks, fname := x.fnKs, name
	if i := strings.IndexByte(name, '.'); i >= 0 {
		if name[:i] == "system" {
			return nil, nil, false, nil
		}
		ks, fname = name[:i], name[i+1:]
	}
	var fs []*schema.Function
	if k := x.e.st.Load().cat.Keyspace(ks); k != nil {
		for _, f := range k.Functions {
			if f.Name == fname {
				fs = append(fs, f)
			}
		}
	}
	if len(fs) == 0 {
		if !strings.Contains(name, ".") {
			return nil, nil, false, nil
		}
		return nil, nil, true, invalidf("Unknown function %s called", name)
	}
	name = ks + "." + fname
	types := make([]*cql.Type, len(fn.Args))
	vals := make([][]byte, len(fn.Args))
	names := make([]string, len(fn.Args))
	for i, a := range fn.Args {
		names[i] = termString(a)
		if c, ok := a.(*cql.FuncCall); ok {
			t, v, err := x.callFunc(canonicalFunc(c.Name), c)
			if err != nil {
				return nil, nil, true, err
			}
			types[i], vals[i] = t, v
		}
	}
	f, err := pickUDF(ks, fname, fs, fnParams, fnRet, types, names, func(i int) cql.Term {
		if types[i] == nil {
			return fn.Args[i]
		}
		return nil
	})
	if err != nil {
		return nil, nil, true, err
	}
	for i, a := range fn.Args {
		if types[i] != nil {
			continue
		}
		v, err := cql.EncodeTerm(f.ArgTypes[i], a, "arg"+strconv.Itoa(i)+"("+name+")", x)
		if err != nil {
			return nil, nil, true, err
		}
		vals[i] = v
	}
	fc, err := udfCall(f)
	if err != nil {
		return nil, nil, true, err
	}
	v, err := fc.call(&fnEnv{now: x.now, uuids: x.e.uuids}, vals)
	return f.ReturnType, v, true, err
}
