package engine

// Arithmetic operators in selections (a + 1, -a, (a + b) * c, d / 3,
// t + 'x'), as Cassandra 5.0's OperationFcts: the result type of two
// numbers is the wider of the two (floating point if either is; decimal
// or varint when a size is unbounded), integers wrap as in Java, decimals
// follow BigDecimal (internal/bigdec), + of two strings concatenates. A
// literal operand takes its preferred type (an integer int, bigint or
// varint by size, a float double); a bind marker or NULL needs a type hint.

import (
	"cmp"
	"encoding/binary"
	"errors"
	"math"
	"math/big"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/internal/bigdec"
)

// opExpr is a binary operation over two operands of kinds lk and rk with
// a result of kind ret.
type opExpr struct {
	op          byte
	lk, rk, ret cql.Kind
	l, r        expr
	// sig is "int / int", the operation Cassandra names on failure.
	sig string
}

// negExpr is -x of a number of kind k.
type negExpr struct {
	k cql.Kind
	x expr
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func stringKind(k cql.Kind) bool { return k == cql.KindText || k == cql.KindAscii }

// compileOp compiles a SelOp or SelNeg selector.
func (b *planner) compileOp(ti *tableInfo, sl *cql.Selector) (expr, *cql.Type, string, []int, error) {
	if sl.Kind == cql.SelNeg {
		if len(sl.Args) != 1 || sl.Args[0] == nil {
			return nil, nil, "", nil, invalidf("Invalid negation")
		}
		x, t, name, refs, err := b.compileOperand(ti, sl.Args[0], nil)
		if err != nil {
			return nil, nil, "", nil, err
		}
		if t == nil || len(t.Elems) > 0 {
			return nil, nil, "", nil, invalidf("Cannot infer type for term %s in selection clause (try using a cast to force a type)", name)
		}
		if !cql.IsNumeric(t.Kind) {
			if t.Kind == cql.KindTimestamp { // weakly a bigint: several match
				return nil, nil, "", nil, invalidf("Ambiguous negation: use type casts to disambiguate")
			}
			return nil, nil, "", nil, invalidf("Invalid call to function system._negate, none of its type signatures match (known type signatures: %s)", cql.NegateSignatures())
		}
		return negExpr{k: t.Kind, x: x}, t, parenName(sl, "-"+name), refs, nil
	}
	if len(sl.Args) != 2 || sl.Args[0] == nil || sl.Args[1] == nil {
		return nil, nil, "", nil, invalidf("Invalid operation")
	}
	ls, rs := sl.Args[0], sl.Args[1]
	// A term on one side is typed after the other side.
	var l, r expr
	var lt, rt *cql.Type
	var ln, rn string
	var refs []int
	var err error
	if ls.Kind != cql.SelTerm {
		if l, lt, ln, refs, err = b.compileOperand(ti, ls, nil); err != nil {
			return nil, nil, "", nil, err
		}
	}
	var rrefs []int
	if r, rt, rn, rrefs, err = b.compileOperand(ti, rs, lt); err != nil {
		return nil, nil, "", nil, err
	}
	refs = append(refs, rrefs...)
	if ls.Kind == cql.SelTerm {
		if l, lt, ln, _, err = b.compileOperand(ti, ls, rt); err != nil {
			return nil, nil, "", nil, err
		}
	}
	op := string(sl.Op)
	// FunctionResolver's message names (int) whatever the operands.
	ambiguous := invalidf("Ambiguous '%s' operation with args %s and %s: use type hint to disambiguate, example '(int) ?'", op, ln, rn)
	if lt == nil || rt == nil {
		// Ambiguous when several operations take the typed side (a
		// number, a timestamp, a string for +), else not supported.
		if t := cmp.Or(lt, rt); t != nil {
			num := cql.IsNumeric(t.Kind)
			if !num && t.Kind != cql.KindTimestamp && (sl.Op != '+' || !stringKind(t.Kind)) {
				return nil, nil, "", nil, invalidf("the '%s' operation is not supported between %s and %s", op, ln, rn)
			}
		}
		return nil, nil, "", nil, ambiguous
	}
	name := parenName(sl, ln+" "+op+" "+rn)
	lnum, rnum := cql.IsNumeric(lt.Kind), cql.IsNumeric(rt.Kind)
	switch {
	case lt.Kind == cql.KindTimestamp && (rnum || rt.Kind == cql.KindTimestamp), rt.Kind == cql.KindTimestamp && lnum:
		// A timestamp is weakly assignable to bigint in Cassandra's
		// function resolution, so several numeric operations match.
		return nil, nil, "", nil, ambiguous
	case len(lt.Elems) > 0 || len(rt.Elems) > 0:
	case lnum && rnum:
		ret := cql.OpResultKind(lt.Kind, rt.Kind)
		return opExpr{op: sl.Op, lk: lt.Kind, rk: rt.Kind, ret: ret, l: l, r: r, sig: lt.String() + " " + op + " " + rt.String()},
			cql.Scalar(ret), name, refs, nil
	case sl.Op == '+' && stringKind(lt.Kind) && stringKind(rt.Kind):
		ret := cql.KindText
		if lt.Kind == cql.KindAscii && rt.Kind == cql.KindAscii {
			ret = cql.KindAscii
		}
		return opExpr{op: '+', lk: lt.Kind, rk: rt.Kind, ret: ret, l: l, r: r}, cql.Scalar(ret), name, refs, nil
	case (sl.Op == '+' || sl.Op == '-') && (lt.Kind == cql.KindTimestamp || lt.Kind == cql.KindDate) && rt.Kind == cql.KindDuration:
		return temporalExpr{op: sl.Op, k: lt.Kind, l: l, r: r, sig: lt.String() + " " + op + " duration"},
			cql.Scalar(lt.Kind), name, refs, nil
	}
	return nil, nil, "", nil, invalidf("the '%s' operation is not supported between %s and %s", op, ln, rn)
}

// parenName is a selector's result name, in parentheses when written so.
func parenName(sl *cql.Selector, name string) string {
	if sl.Paren {
		return "(" + name + ")"
	}
	return name
}

// compileOperand compiles one side of an operation: a term takes its
// type hint, else its preferred type; other is the other side's type
// (nil when unknown), which a bind marker or NULL would need.
func (b *planner) compileOperand(ti *tableInfo, sl *cql.Selector, other *cql.Type) (expr, *cql.Type, string, []int, error) {
	if sl.Kind != cql.SelTerm {
		e, t, name, refs, err := b.compileExpr(ti, sl)
		if sl.Kind != cql.SelOp && sl.Kind != cql.SelNeg { // those name their parentheses
			name = parenName(sl, name)
		}
		return e, t, name, refs, err
	}
	name := termString(sl.Term)
	var t *cql.Type
	term := sl.Term
	switch x := term.(type) {
	case *cql.Cast:
		t, term = x.Type, x.Term
		name = "(" + x.Type.String() + ")" + termString(x.Term)
	case *cql.Literal:
		if x.Kind != cql.LitNull {
			t = preferredLiteralType(x)
		}
		if x.Kind == cql.LitString && isASCII(x.Text) {
			// Constants.Type.STRING.getPreferedTypeFor: an all-ASCII
			// string is an ascii (a + 'ab' of an ascii a is ascii).
			t = cql.Scalar(cql.KindAscii)
		}
	}
	if t == nil {
		return nil, nil, name, nil, nil
	}
	if !cql.Assignable(t, term) {
		return nil, nil, "", nil, invalidf("Cannot assign value %s to %s", name, t)
	}
	recv := "[selection]"
	b.walkTerm(term, t, recv, ti)
	return termExpr{term: term, t: t, name: recv}, t, parenName(sl, name), nil, nil
}

// Operate implements cql.Operator: the operations of values (INSERT and
// UPDATE values, WHERE terms, conditions), computed as in selections.
func (x *execCtx) Operate(op byte, sig cql.OpSig, l, r []byte) ([]byte, error) {
	switch {
	case op == 'n':
		return negate(sig.L.Kind, l)
	case sig.R.Kind == cql.KindDuration:
		return temporalArith(op, sig.L.Kind, sig.L.String()+" "+string(op)+" duration", l, r)
	}
	return binaryArith(op, sig.L.Kind, sig.R.Kind, sig.Ret.Kind, sig.L.String()+" "+string(op)+" "+sig.R.String(), l, r)
}

var _ cql.Operator = (*execCtx)(nil)

func (e negExpr) eval(c *rowCtx) ([]byte, error) {
	v, err := e.x.eval(c)
	if err != nil {
		return nil, err
	}
	return negate(e.k, v)
}

// negate is -v of a number of kind k; null for null.
func negate(k cql.Kind, v []byte) ([]byte, error) {
	if len(v) == 0 {
		return nil, nil
	}
	switch k {
	case cql.KindDecimal:
		d, err := decodeDec(v)
		if err != nil {
			return nil, err
		}
		return decBytes(d.Neg())
	case cql.KindVarint:
		n, err := decodeNum(k, v)
		if err != nil {
			return nil, err
		}
		return cql.EncodeGo(cql.Scalar(cql.KindVarint), new(big.Int).Neg(n.bi))
	case cql.KindFloat, cql.KindDouble:
		n, err := decodeNum(k, v)
		if err != nil {
			return nil, err
		}
		return number{kind: k, f: -n.f}.encodeAs(k)
	}
	n, err := decodeNum(k, v)
	if err != nil {
		return nil, err
	}
	return number{kind: k, i: -n.i}.encodeAs(k)
}

func (e opExpr) eval(c *rowCtx) ([]byte, error) {
	lv, err := e.l.eval(c)
	if err != nil {
		return nil, err
	}
	rv, err := e.r.eval(c)
	if err != nil {
		return nil, err
	}
	return binaryArith(e.op, e.lk, e.rk, e.ret, e.sig, lv, rv)
}

// binaryArith is lv op rv of kinds lk and rk with a result of kind ret:
// numbers, or + of two strings; null when either is (for numbers, also
// an empty value). sig names the operation in failures.
func binaryArith(op byte, lk, rk, ret cql.Kind, sig string, lv, rv []byte) ([]byte, error) {
	if stringKind(ret) {
		// '' is a value (only a number's empty value is null).
		if lv == nil || rv == nil {
			return nil, nil
		}
		out := make([]byte, 0, len(lv)+len(rv))
		return append(append(out, lv...), rv...), nil
	}
	if len(lv) == 0 || len(rv) == 0 {
		return nil, nil
	}
	ln, err := decodeNum(lk, lv)
	if err != nil {
		return nil, err
	}
	rn, err := decodeNum(rk, rv)
	if err != nil {
		return nil, err
	}
	out, err := arith(op, ret, ln, rn)
	if err != nil {
		return nil, bindings.Errorf(bindings.CodeFunctionFail, "the operation '%s' failed: %v", sig, err)
	}
	return out, nil
}

// floatArith is Java's float or double arithmetic: IEEE results, % the
// truncating remainder as javaMod (fmod is exact, so float32 through
// float64 is too). A NaN the operation makes (∞ - ∞, x % 0) is the x86
// default NaN Cassandra returns, on every platform; a NaN operand
// passes through.
func floatArith[F float32 | float64](op byte, a, b F) F {
	var v F
	switch op {
	case '+':
		v = a + b
	case '-':
		v = a - b
	case '*':
		v = a * b
	case '/':
		v = a / b
	default:
		v = F(javaMod(float64(a), float64(b)))
	}
	if v != v && a == a && b == b {
		return defaultNaN[F]()
	}
	return v
}

// defaultNaN is x86's default NaN (sign bit set) as a float or double.
func defaultNaN[F float32 | float64]() F {
	var z F
	if _, ok := any(z).(float32); ok {
		return F(math.Float32frombits(0xffc00000))
	}
	return F(math.Float64frombits(0xfff8000000000000))
}

// arith computes l op r in the result kind k, converting each operand as
// Cassandra's NumberType does (intValue(), floatValue(), doubleValue(),
// BigInteger, BigDecimal).
func arith(op byte, k cql.Kind, l, r number) ([]byte, error) {
	switch k {
	case cql.KindFloat:
		v := floatArith(op, float32(l.float64()), float32(r.float64()))
		return binary.BigEndian.AppendUint32(nil, math.Float32bits(v)), nil
	case cql.KindDouble:
		v := floatArith(op, l.float64(), r.float64())
		return binary.BigEndian.AppendUint64(nil, math.Float64bits(v)), nil
	case cql.KindVarint:
		a, b := l.bigInt(), r.bigInt()
		v := new(big.Int)
		switch op {
		case '+':
			v.Add(a, b)
		case '-':
			v.Sub(a, b)
		case '*':
			v.Mul(a, b)
		default:
			if b.Sign() == 0 {
				return nil, bigdec.ErrBigDivByZero
			}
			if op == '/' {
				v.Quo(a, b)
			} else {
				v.Rem(a, b)
			}
		}
		return cql.EncodeGo(cql.Scalar(cql.KindVarint), v)
	case cql.KindDecimal:
		return decimalArith(op, l, r)
	}
	// Integers: the operands fit the result kind, so the exact 64-bit
	// result wraps to it as Java's int, long, (byte) and (short) do.
	a, b := l.i, r.i
	var v int64
	switch op {
	case '+':
		v = a + b
	case '-':
		v = a - b
	case '*':
		v = a * b
	default:
		if b == 0 {
			return nil, bigdec.ErrDivByZero
		}
		if op == '/' {
			v = a / b
		} else {
			v = a % b
		}
	}
	return number{kind: k, i: v}.encodeAs(k)
}

// javaMod is Java's % of doubles (the C library's fmod on the JVM): a
// NaN operand comes back as it is, and x % 0 or ∞ % y is the x86
// default NaN (sign bit set, 0xfff8000000000000), not math.Mod's NaN
// (0x7ff8000000000001): Cassandra returns those bits, and a float
// result keeps them as 0xffc00000.
func javaMod(a, b float64) float64 {
	switch {
	case math.IsNaN(a):
		return a
	case math.IsNaN(b):
		return b
	case b == 0 || math.IsInf(a, 0):
		return math.Float64frombits(0xfff8000000000000)
	}
	return math.Mod(a, b)
}

// toDec is DecimalType.toBigDecimal(Number): decimals and varints
// exactly, other numbers through doubleValue() and Double.toString.
func toDec(n number) (bigdec.Dec, error) {
	switch n.kind {
	case cql.KindDecimal:
		return decOf(n.dec), nil
	case cql.KindVarint:
		return bigdec.New(n.bi, 0), nil
	}
	f := n.float64()
	switch {
	case math.IsNaN(f):
		return bigdec.Dec{}, errors.New("A NaN cannot be converted into a decimal")
	case math.IsInf(f, 0):
		return bigdec.Dec{}, errors.New("An infinite number cannot be converted into a decimal")
	}
	return bigdec.Parse(cql.JavaFloatString(f, 64))
}

// decimalArith is DecimalType's add/substract/multiply (to 10,000
// digits, half-up), divide (to at least 32 significant digits and
// fraction digits, half-up, trailing zeros stripped) and mod.
func decimalArith(op byte, l, r number) ([]byte, error) {
	a, err := toDec(l)
	if err != nil {
		return nil, err
	}
	b, err := toDec(r)
	if err != nil {
		return nil, err
	}
	var v bigdec.Dec
	switch op {
	case '+':
		v, err = bigdec.Round(bigdec.Add(a, b), maxDecimalDigits, bigdec.HalfUp)
	case '-':
		v, err = bigdec.Round(bigdec.Sub(a, b), maxDecimalDigits, bigdec.HalfUp)
	case '*':
		if v, err = bigdec.Mul(a, b); err == nil {
			v, err = bigdec.Round(v, maxDecimalDigits, bigdec.HalfUp)
		}
	case '/':
		first := (int64(a.Precision()) - int64(a.Scale)) - (int64(b.Precision()) - int64(b.Scale))
		scale := max(minDecimalDigits-first, int64(a.Scale), int64(b.Scale), minDecimalDigits)
		scale = min(scale, 1000)
		if v, err = bigdec.DivScale(a, b, int32(scale), bigdec.HalfUp); err == nil {
			v = bigdec.StripTrailingZeros(v)
		}
	default:
		v, err = bigdec.Rem(a, b)
	}
	if err != nil {
		return nil, err
	}
	return decBytes(v)
}
