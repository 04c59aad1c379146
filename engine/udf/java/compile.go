package java

import (
	"fmt"
	"strings"

	"github.com/dohyo/dohyo/cql"
)

// Param is one parameter of a function.
type Param struct {
	Name string
	Type *cql.Type
}

// Func is a compiled function body.
type Func struct {
	name      string // ks.name : (types) -> type, for budget errors
	params    []Param
	ret       *cql.Type
	body      *blockStmt
	slots     int
	primitive bool // the return type is a Java primitive (RETURNS NULL ON NULL INPUT)
	// Steps is the step budget of one call.
	Steps int64
}

// Compile parses and checks a function body. name is the function's
// qualified name (for messages); calledOnNull is CALLED ON NULL INPUT
// (otherwise Cassandra declares numbers and booleans as Java primitives,
// which cannot be null).
func Compile(name string, params []Param, ret *cql.Type, body string, calledOnNull bool) (f *Func, err error) {
	for _, p := range params {
		if !supportedType(p.Type) {
			return nil, unsupportedErr(1, fmt.Sprintf("an argument of type %s (%s)", p.Type, javaClass(p.Type)))
		}
	}
	if !supportedType(ret) {
		return nil, unsupportedErr(1, fmt.Sprintf("a return type %s (%s)", ret, javaClass(ret)))
	}
	toks, lerr := lex(body)
	if lerr != nil {
		return nil, lerr
	}
	p := &parser{toks: toks}
	p.push()
	for _, pa := range params {
		t := jtype{k: kAny, ref: true}
		if k, ok := classNames[javaClass(pa.Type)]; ok {
			t.k = k
		}
		p.declareT(pa.Name, 1, t)
	}
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(parseBail)
			if !ok {
				panic(r)
			}
			f, err = nil, b.err
		}
	}()
	blk := &blockStmt{}
	for p.tok().kind != tEOF {
		if p.isOp("}") {
			p.syntax("Syntax error on token \"}\", delete this token")
		}
		blk.list = append(blk.list, p.statement())
	}
	retClass := javaClass(ret)
	if prim := primitiveName(retClass); prim != "" && !calledOnNull {
		if cerr := checkNullReturns(blk, prim); cerr != nil {
			return nil, cerr
		}
		retClass = prim
	}
	if canComplete(blk) {
		return nil, compileErrf(1, "This method must return a result of type %s", retClass)
	}
	argTypes := make([]string, len(params))
	for i, pa := range params {
		argTypes[i] = pa.Type.String()
	}
	return &Func{
		name:   fmt.Sprintf("%s : (%s) -> %s", name, strings.Join(argTypes, ", "), ret),
		params: params, ret: ret, body: blk, slots: p.slots, Steps: defaultSteps,
		primitive: primitiveName(javaClass(ret)) != "" && !calledOnNull,
	}, nil
}

// Call runs the function on serialized arguments (nil: null) and returns
// the serialized result.
func (f *Func) Call(args [][]byte) (out []byte, err error) {
	defer func() {
		// A bug of the interpreter fails the call, never the process.
		if r := recover(); r != nil {
			out, err = nil, &ExecError{Msg: fmt.Sprintf("internal error running %s: %v", f.name, r)}
		}
	}()
	m := &machine{frame: make([]any, f.slots), budget: f.Steps, fn: f}
	for i, p := range f.params {
		var b []byte
		if i < len(args) {
			b = args[i]
		}
		v, err := toJava(p.Type, b)
		if err != nil {
			return nil, err
		}
		m.frame[i] = v
	}
	c, v, err := f.body.exec(m)
	if err != nil {
		return nil, err
	}
	if c != ctlReturn {
		return nil, &ExecError{Msg: "java.lang.IllegalStateException: function " + f.name + " completed without returning a value"}
	}
	if v == nil && f.primitive {
		return nil, npe("unboxing the return value")
	}
	return fromJava(f.ret, v)
}

// contextCall runs a udfContext method.
func (f *Func) contextCall(name string, args []any) (any, error) {
	var t *cql.Type
	switch name {
	case "newReturnTupleValue", "newReturnUDTValue":
		if len(args) != 0 {
			return nil, wrongMethod("udfContext", name, args)
		}
		t = f.ret
	default:
		if len(args) != 1 {
			return nil, wrongMethod("udfContext", name, args)
		}
		if s, ok := args[0].(string); ok {
			for _, p := range f.params {
				if p.Name == s {
					t = p.Type
				}
			}
			if t == nil {
				return nil, jexc("IllegalArgumentException", "Function does not define an argument named %s", s)
			}
		} else {
			i, err := intArg(args[0])
			if err != nil {
				return nil, err
			}
			if i < 0 || i >= len(f.params) {
				return nil, jexc("IllegalArgumentException", "Function does not define an argument with index %d", i)
			}
			t = f.params[i].Type
		}
	}
	want := cql.KindTuple
	if strings.Contains(name, "UDT") {
		want = cql.KindUDT
	}
	if t.Kind != want {
		return nil, jexc("IllegalStateException", "%s: type %s is not a %s", name, t, strings.ToLower(want.String()))
	}
	return newTuple(t), nil
}
