package cql

import (
	"math"
	"math/big"
	"strings"
)

// Arithmetic operators in terms (INSERT and UPDATE values, WHERE terms,
// conditions, collection elements): Cassandra 5.0 parses `1 + 2`, `-?`,
// `(int) ? * 2` as calls of its operation functions (_add, _substract,
// _multiply, _divide, _modulo, _negate) and picks the overload with its
// FunctionResolver, guided by the receiver's type. ResolveOperation is
// that choice; computing the result is the Resolver's (Operator).

// Operation is L op R in a term; Op is '+', '-', '*', '/' or '%'.
type Operation struct {
	Op   byte
	L, R Term
}

// Negation is -X in a term (a negative number literal is a Literal).
type Negation struct{ X Term }

func (*Operation) term() {}
func (*Negation) term()  {}

// OpSig is the operation function an Operation or Negation resolves to:
// its argument types (R nil for a negation) and its return type.
type OpSig struct {
	L, R, Ret *Type
}

// Operator is implemented by Resolvers that compute operations: op
// ('+', '-', '*', '/', '%', or 'n' for a negation) of the serialized
// arguments l and r (r nil for a negation), typed as sig says; a nil
// argument is null.
type Operator interface {
	Operate(op byte, sig OpSig, l, r []byte) ([]byte, error)
}

// opFuncNames are the operation functions' names (sic: _substract), as Cassandra's messages
// and bind variable names spell them.
var opFuncNames = map[byte]string{'+': "_add", '-': "_substract", '*': "_multiply", '/': "_divide", '%': "_modulo", 'n': "_negate"}

// OpArgName is the name Cassandra gives the receiver of argument i of an
// operation (a bind marker's name in prepared metadata): arg0(system._add).
func OpArgName(op byte, i int) string {
	return "arg" + string(rune('0'+i)) + "(system." + opFuncNames[op] + ")"
}

// numericKinds are Cassandra's OperationFcts numeric types.
var numericKinds = []Kind{KindTinyint, KindSmallint, KindInt, KindBigint, KindFloat, KindDouble, KindDecimal, KindVarint, KindCounter}

// numericSize is OperationFcts' size of a number type (0: unbounded).
func numericSize(k Kind) (int, bool) {
	switch k {
	case KindTinyint:
		return 1, true
	case KindSmallint:
		return 2, true
	case KindInt, KindFloat:
		return 4, true
	case KindBigint, KindCounter, KindDouble:
		return 8, true
	case KindVarint, KindDecimal:
		return 0, true
	}
	return 0, false
}

// IsNumeric reports whether k is one of the operations' number types.
func IsNumeric(k Kind) bool {
	_, ok := numericSize(k)
	return ok
}

// OpResultKind is OperationFcts.returnType of two numbers: the wider,
// floating point if either is, decimal or varint when a size is unbounded.
func OpResultKind(l, r Kind) Kind {
	size := func(k Kind) int {
		if s, _ := numericSize(k); s > 0 {
			return s
		}
		return math.MaxInt
	}
	floating := func(k Kind) bool { return k == KindFloat || k == KindDouble || k == KindDecimal }
	s := max(size(l), size(r))
	if floating(l) || floating(r) {
		switch s {
		case 4:
			return KindFloat
		case 8:
			return KindDouble
		}
		return KindDecimal
	}
	switch s {
	case 1:
		return KindTinyint
	case 2:
		return KindSmallint
	case 4:
		return KindInt
	case 8:
		return KindBigint
	}
	return KindVarint
}

// NegateSignatures is Cassandra 5.0.9's list of _negate's signatures, in
// one of the orders its message gives them (a hash map's: it changes
// between server starts).
func NegateSignatures() string {
	var sigs []string
	for _, t := range []string{"tinyint", "float", "varint", "counter", "decimal", "bigint", "smallint", "int", "double"} {
		sigs = append(sigs, `system."_negate" : (`+t+") -> "+t)
	}
	return strings.Join(sigs, ", ")
}

// opCandidates are the overloads of each binary operation, and
// negateCandidates _negate's: Cassandra's OperationFcts.
var opCandidates, negateCandidates = operationFunctions()

func operationFunctions() (map[byte][]OpSig, []OpSig) {
	ops := map[byte][]OpSig{}
	var neg []OpSig
	for _, l := range numericKinds {
		neg = append(neg, OpSig{L: Scalar(l), Ret: Scalar(l)})
		for _, r := range numericKinds {
			for _, op := range []byte{'+', '-', '*', '/', '%'} {
				ops[op] = append(ops[op], OpSig{L: Scalar(l), R: Scalar(r), Ret: Scalar(OpResultKind(l, r))})
			}
		}
	}
	for _, k := range []Kind{KindTimestamp, KindDate} {
		for _, op := range []byte{'+', '-'} {
			ops[op] = append(ops[op], OpSig{L: Scalar(k), R: Scalar(KindDuration), Ret: Scalar(k)})
		}
	}
	for _, l := range []Kind{KindAscii, KindText} {
		for _, r := range []Kind{KindAscii, KindText} {
			ret := KindText
			if l == KindAscii && r == KindAscii {
				ret = KindAscii
			}
			ops['+'] = append(ops['+'], OpSig{L: Scalar(l), R: Scalar(r), Ret: Scalar(ret)})
		}
	}
	return ops, neg
}

// assignment is Cassandra's AssignmentTestable.TestResult.
type assignment int

const (
	notAssignable assignment = iota
	weaklyAssignable
	exactMatch
)

// typeAssignment is AbstractType.testAssignment: a value of type from
// for a receiver of type to.
func typeAssignment(to, from *Type) assignment {
	switch {
	case sameType(to, from):
		return exactMatch
	case valueCompatible(to, from):
		return weaklyAssignable
	}
	return notAssignable
}

// PreferredType is the type Cassandra 5.0 prefers for a literal (an exact
// match in function resolution): an integer is an int, bigint or varint by
// size, a float a double, a string ascii when all ASCII, else text. nil
// for NULL.
func PreferredType(l *Literal) *Type {
	switch l.Kind {
	case LitInteger:
		if n, ok := new(big.Int).SetString(l.Text, 10); ok {
			switch {
			case n.IsInt64() && n.Int64() >= math.MinInt32 && n.Int64() <= math.MaxInt32:
				return Scalar(KindInt)
			case n.IsInt64():
				return Scalar(KindBigint)
			}
		}
		return Scalar(KindVarint)
	case LitFloat:
		return Scalar(KindDouble)
	case LitString:
		for i := 0; i < len(l.Text); i++ {
			if l.Text[i] >= 0x80 {
				return Scalar(KindText)
			}
		}
		return Scalar(KindAscii)
	case LitBool:
		return Scalar(KindBoolean)
	case LitUUID:
		return Scalar(KindUUID)
	case LitBlob:
		return Scalar(KindBlob)
	case LitDuration:
		return Scalar(KindDuration)
	}
	return nil
}

// argAssignment is Term.Raw.testAssignment of an operation's argument
// for a receiver of type t.
func argAssignment(t *Type, term Term, memo opMemo) assignment {
	switch x := term.(type) {
	case *Literal:
		if !literalAssignable(x.Kind, t) {
			return notAssignable
		}
		if p := PreferredType(x); p != nil && sameType(t, p) {
			return exactMatch
		}
		return weaklyAssignable
	case *BindMarker:
		return weaklyAssignable
	case *Cast:
		if x.Type == nil {
			return notAssignable
		}
		return typeAssignment(t, x.Type)
	case *FuncCall:
		return weaklyAssignable // its return type is the executor's to check
	case *Operation, *Negation:
		key := opMemoKey{x, t.Kind}
		r, ok := memo[key]
		if !ok {
			r.sig, r.err = resolveOperation(t, x, memo)
			memo[key] = r
		}
		sig, err := r.sig, r.err
		if err != nil {
			return weaklyAssignable // as Cassandra: the call fails later, with its own message
		}
		return typeAssignment(t, sig.Ret)
	case *TupleLit:
		if len(x.Elems) == 1 && t.Kind != KindTuple {
			return argAssignment(t, x.Elems[0], memo) // (x): a parenthesized term
		}
	}
	return notAssignable
}

// ResolveOperation picks the operation function of x (an *Operation or a
// *Negation) for a receiver of type t, as Cassandra's FunctionResolver
// does: among the overloads whose return type the receiver accepts, one
// whose arguments all match exactly, else the only one they are
// assignable to, else (several, no bind marker among the arguments) the
// one whose argument types are the receiver's; failures carry
// Cassandra's messages.
func ResolveOperation(t *Type, x Term) (OpSig, error) {
	return resolveOperation(t, x, opMemo{})
}

// opMemo keeps the resolutions of nested operations for the scalar
// receivers they were tried for: each is tried for every overload of the
// operation around it, which without it costs exponentially in the depth.
type opMemo map[opMemoKey]opResolution

type opMemoKey struct {
	x Term
	k Kind
}

type opResolution struct {
	sig OpSig
	err error
}

func resolveOperation(t *Type, x Term, memo opMemo) (OpSig, error) {
	var cands []OpSig
	var args []Term
	switch o := x.(type) {
	case *Operation:
		cands, args = opCandidates[o.Op], []Term{o.L, o.R}
	case *Negation:
		cands, args = negateCandidates, []Term{o.X}
	default:
		return OpSig{}, valueErrf("not an operation: %T", x)
	}
	if cands == nil {
		return OpSig{}, valueErrf("unknown operator %q", x.(*Operation).Op)
	}
	// Several overloads may match exactly ((1 + 2) * 3 for an int:
	// (smallint, int), (int, int), ...); Cassandra takes the first in its
	// functions' hash order, which changes between its starts. dohyo
	// tries the receiver's own types first.
	var compatible []OpSig
	for pass := 0; pass < 2; pass++ {
		for _, c := range cands {
			own := t != nil && sameType(t, c.L) && (c.R == nil || sameType(t, c.R))
			if own != (pass == 0) || (t != nil && typeAssignment(t, c.Ret) == notAssignable) {
				continue
			}
			res := argAssignment(c.L, args[0], memo)
			if len(args) == 2 && res != notAssignable {
				res = min(res, argAssignment(c.R, args[1], memo))
			}
			switch res {
			case exactMatch:
				return c, nil
			case weaklyAssignable:
				compatible = append(compatible, c)
			}
		}
	}
	if _, isNeg := x.(*Negation); isNeg {
		switch len(compatible) {
		case 0:
			return OpSig{}, valueErrf("Invalid call to function system._negate, none of its type signatures match (known type signatures: %s)", NegateSignatures())
		case 1:
			return compatible[0], nil
		}
		return OpSig{}, valueErrf("Ambiguous negation: use type casts to disambiguate")
	}
	o := x.(*Operation)
	switch len(compatible) {
	case 0:
		return OpSig{}, valueErrf("the '%c' operation is not supported between %s and %s", o.Op, OperandText(o.L), OperandText(o.R))
	case 1:
		return compatible[0], nil
	}
	if t != nil && !isMarker(o.L) && !isMarker(o.R) {
		for _, c := range compatible {
			if sameType(t, c.L) && sameType(t, c.R) {
				return c, nil
			}
		}
	}
	return OpSig{}, valueErrf("Ambiguous '%c' operation with args %s and %s: use type hint to disambiguate, example '(int) ?'",
		o.Op, OperandText(o.L), OperandText(o.R))
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

func isMarker(t Term) bool {
	_, ok := t.(*BindMarker)
	return ok
}

// OperandText renders an operation's argument as Cassandra's messages
// do: markers as ?, casts as (int)?, operations as system."_add"(1, 2).
func OperandText(t Term) string {
	switch x := t.(type) {
	case *BindMarker:
		return "?"
	case *Cast:
		return "(" + safeTypeName(x.Type) + ")" + OperandText(x.Term)
	case *Operation:
		return `system."` + opFuncNames[x.Op] + `"(` + OperandText(x.L) + ", " + OperandText(x.R) + ")"
	case *Negation:
		return `system."_negate"(` + OperandText(x.X) + ")"
	case *TupleLit:
		parts := make([]string, len(x.Elems))
		for i, e := range x.Elems {
			parts[i] = OperandText(e)
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	return termText(t)
}

// encodeOperation resolves and computes an operation for a receiver of
// type t: its arguments encoded for the overload's types, the result
// computed by r (an Operator).
func encodeOperation(t *Type, x Term, recv string, r Resolver) ([]byte, error) {
	sig, err := ResolveOperation(t, x)
	if err != nil {
		return nil, err
	}
	o, ok := r.(Operator)
	if !ok {
		return nil, valueErrf("Operations are not supported for %s", recv)
	}
	var op byte
	var args []Term
	switch v := x.(type) {
	case *Operation:
		op, args = v.Op, []Term{v.L, v.R}
	case *Negation:
		op, args = 'n', []Term{v.X}
	}
	vals := make([][]byte, 2)
	for i, a := range args {
		at := sig.L
		if i == 1 {
			at = sig.R
		}
		if tl, ok := a.(*TupleLit); ok && len(tl.Elems) == 1 {
			a = tl.Elems[0]
		}
		if vals[i], err = encodeTerm(at, a, OpArgName(op, i), r); err != nil {
			return nil, err
		}
	}
	return o.Operate(op, sig, vals[0], vals[1])
}
