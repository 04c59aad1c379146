package engine

// Cassandra 5.0's native scalar functions on serialized values: the
// registry (resolution of a call against its argument types, as
// Cassandra's FunctionResolver does) and the shared evaluation
// environment. The functions themselves are in fn_math.go (math, cast),
// fn_misc.go (blob conversions, time, JSON, collections, masking).

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// fnEnv is what a function may read from its execution.
type fnEnv struct {
	now time.Time
	// uuids makes now()'s time UUIDs (a pointer, not the method value
	// uuids.Next, which would be an allocation per environment).
	uuids *cql.TimeUUIDGenerator
}

// fnImpl evaluates a resolved function on serialized arguments (nil:
// null).
type fnImpl func(env *fnEnv, args [][]byte) ([]byte, error)

// fnCall is a resolved call: the parameter types (untyped arguments —
// literals, bind markers — are encoded with them), the result type and
// the implementation. nullable: the function runs on null arguments
// (otherwise a null argument gives null, as for most native functions).
type fnCall struct {
	name     string // system.<name>, as in result column names and errors
	params   []*cql.Type
	ret      *cql.Type
	impl     fnImpl
	nullable bool
}

// call evaluates the function.
func (f *fnCall) call(env *fnEnv, args [][]byte) ([]byte, error) {
	if !f.nullable {
		for _, a := range args {
			if a == nil {
				return nil, nil
			}
		}
	}
	return f.impl(env, args)
}

// fnResolver picks a function's overload for its argument types (nil: an
// untyped literal or bind marker).
type fnResolver func(name string, args []*cql.Type) (*fnCall, error)

// nativeFunctions maps canonical names to their resolvers.
var nativeFunctions = map[string]fnResolver{}

func init() {
	for _, n := range []string{"abs", "exp", "log", "log10", "round"} {
		nativeFunctions[n] = resolveMath
	}
	for _, n := range []string{"now", "currenttimeuuid", "currenttimestamp", "currentdate", "currenttime", "uuid",
		"totimestamp", "tounixtimestamp", "todate", "mintimeuuid", "maxtimeuuid"} {
		nativeFunctions[n] = resolveTime
	}
	nativeFunctions["tojson"] = resolveToJSON
	for _, n := range []string{"map_keys", "map_values", "collection_count", "collection_min", "collection_max",
		"collection_sum", "collection_avg"} {
		nativeFunctions[n] = resolveCollection
	}
	for _, n := range []string{"mask_null", "mask_default", "mask_replace", "mask_inner", "mask_outer", "mask_hash"} {
		nativeFunctions[n] = resolveMask
	}
}

// resolveFunction resolves a call of a native function by name (any case,
// with or without "system.").
func resolveFunction(name string, args []*cql.Type) (*fnCall, error) {
	n := canonicalFunc(name)
	if k, toBlob, ok := blobConversionKind(n); ok {
		return resolveBlobConversion(n, k, toBlob, args)
	}
	if r := nativeFunctions[n]; r != nil {
		return r(n, args)
	}
	if !knownFunction(n) || n == "dateof" || n == "unixtimestampof" {
		// Cassandra 5.0 removed dateOf and unixTimestampOf.
		return nil, invalidf("Unknown function '%s'", n)
	}
	return nil, bindings.Unsupported("function %s() is not supported by dohyo's wide-column engine", n)
}

// signature is one overload of a function with a fixed signature.
type signature struct {
	params []*cql.Type
	ret    *cql.Type
}

func (s signature) String(name string) string {
	ps := make([]string, len(s.params))
	for i, p := range s.params {
		ps[i] = p.String()
	}
	return fmt.Sprintf("system.%s : (%s) -> %s", name, strings.Join(ps, ", "), s.ret)
}

// pickSignature is Cassandra's resolution among fixed overloads: the one
// whose parameters match the typed arguments exactly, else the only one
// they are compatible with; untyped arguments match any parameter.
func pickSignature(name string, sigs []signature, args []*cql.Type) (signature, error) {
	var exact, weak []signature
	for _, s := range sigs {
		if len(s.params) != len(args) {
			continue
		}
		isExact, ok := true, true
		for i, a := range args {
			switch {
			case a == nil:
			case sameType(a, s.params[i]):
			case valueCompatible(s.params[i], a):
				isExact = false
			default:
				ok = false
			}
		}
		if !ok {
			continue
		}
		if isExact {
			exact = append(exact, s)
		} else {
			weak = append(weak, s)
		}
	}
	switch {
	case len(exact) == 1:
		return exact[0], nil
	case len(exact) == 0 && len(weak) == 1:
		return weak[0], nil
	case len(exact)+len(weak) > 1:
		known := make([]string, 0, len(exact)+len(weak))
		for _, s := range append(exact, weak...) {
			known = append(known, s.String(name))
		}
		return signature{}, invalidf("Ambiguous call to function %s (can be matched by following signatures: %s): use type casts to disambiguate",
			name, strings.Join(known, ", "))
	}
	if len(sigs) == 1 && len(sigs[0].params) == len(args) {
		for i, a := range args {
			if a != nil && !valueCompatible(sigs[0].params[i], a) {
				return signature{}, &argTypeError{arg: i, fname: "system." + name, param: sigs[0].params[i]}
			}
		}
	}
	known := make([]string, len(sigs))
	for i, s := range sigs {
		known[i] = s.String(name)
	}
	return signature{}, invalidf("Invalid call to function %s, none of its type signatures match (known type signatures: %s)",
		name, strings.Join(known, ", "))
}

// sameType compares types structurally (frozenness aside).
func sameType(a, b *cql.Type) bool {
	if a.Kind != b.Kind || len(a.Elems) != len(b.Elems) || a.Dim != b.Dim {
		return false
	}
	if a.Kind == cql.KindUDT && (a.Keyspace != b.Keyspace || a.Name != b.Name) {
		return false
	}
	for i := range a.Elems {
		if !sameType(a.Elems[i], b.Elems[i]) {
			return false
		}
	}
	return true
}

// valueCompatible reports that values of type from are valid values of
// type to (ascii is text; a timeuuid is a uuid; bytes are blobs only).
func valueCompatible(to, from *cql.Type) bool {
	if sameType(to, from) {
		return true
	}
	switch to.Kind {
	case cql.KindBlob:
		// Every value is a valid blob (BytesType accepts any bytes).
		return true
	case cql.KindText:
		return from.Kind == cql.KindAscii
	case cql.KindUUID:
		return from.Kind == cql.KindTimeuuid
	case cql.KindBigint:
		return from.Kind == cql.KindCounter
	case cql.KindVarint:
		return from.Kind == cql.KindInt || from.Kind == cql.KindBigint || from.Kind == cql.KindSmallint ||
			from.Kind == cql.KindTinyint
	}
	return false
}

// argCount checks the number of arguments of a fixed-arity function.
func argCount(name string, args []*cql.Type, n int) error {
	if len(args) != n {
		return invalidf("Invalid number of arguments in call to function %s: %d required but %d provided", name, n, len(args))
	}
	return nil
}

// numericKinds are the numeric types in Cassandra's order of overloads.
var numericKinds = []cql.Kind{cql.KindTinyint, cql.KindSmallint, cql.KindInt, cql.KindBigint,
	cql.KindFloat, cql.KindDouble, cql.KindVarint, cql.KindDecimal, cql.KindCounter}

func isNumeric(k cql.Kind) bool {
	for _, n := range numericKinds {
		if n == k {
			return true
		}
	}
	return false
}

func blobConversionKind(name string) (k cql.Kind, toBlob, ok bool) {
	if rest, found := strings.CutPrefix(name, "blobas"); found {
		k, ok = cql.KindByName(rest)
		return k, false, ok && k != cql.KindBlob
	}
	if rest, found := strings.CutSuffix(name, "asblob"); found {
		k, ok = cql.KindByName(rest)
		return k, true, ok && k != cql.KindBlob
	}
	return 0, false, false
}

// resolveBlobConversion is typeAsBlob(type) -> blob and blobAsType(blob)
// -> type: the bytes are unchanged (checked for the target type).
func resolveBlobConversion(name string, k cql.Kind, toBlob bool, args []*cql.Type) (*fnCall, error) {
	full := "system." + name
	if err := argCount(full, args, 1); err != nil {
		return nil, err
	}
	from, to := cql.Scalar(cql.KindBlob), cql.Scalar(k)
	if toBlob {
		from, to = to, from
	}
	if args[0] != nil && !valueCompatible(from, args[0]) {
		return nil, &argTypeError{arg: 0, fname: full, param: from}
	}
	ret := to
	if k == cql.KindTimeuuid && !toBlob {
		// Cassandra 5.0 types blobAsTimeuuid's result as blob (as it
		// does min/max of a timeuuid); the bytes are checked as a timeuuid.
		ret = cql.Scalar(cql.KindBlob)
	}
	return &fnCall{name: full, params: []*cql.Type{from}, ret: ret, impl: func(_ *fnEnv, a [][]byte) ([]byte, error) {
		if !toBlob {
			if err := cql.Validate(to, a[0]); err != nil {
				return nil, invalidf("In call to function %s, value 0x%x is not a valid binary representation for type %s", full, a[0], to)
			}
		}
		return a[0], nil
	}}, nil
}

// argTypeError is Cassandra's answer to a typed argument that does not
// fit a function with one signature; the caller knows the argument's text.
type argTypeError struct {
	arg   int
	fname string
	param *cql.Type
}

func (e *argTypeError) Error() string {
	return fmt.Sprintf("Type error: argument %d cannot be passed to function %s of type %s", e.arg, e.fname, e.param)
}

// withArgNames turns an argTypeError into Cassandra's message naming the
// argument as written.
func withArgNames(err error, names []string) error {
	var vae *vectorArgError
	if errors.As(err, &vae) {
		n := "?"
		if vae.arg < len(names) && names[vae.arg] != "" {
			n = names[vae.arg]
		}
		return invalidf("Function %s requires a float vector argument, but found argument %s of type %s", vae.fname, n, vae.typ)
	}
	var ate *argTypeError
	if !errors.As(err, &ate) {
		return err
	}
	n := "?"
	if ate.arg < len(names) && names[ate.arg] != "" {
		n = names[ate.arg]
	}
	return invalidf("Type error: %s cannot be passed as argument %d of function %s of type %s", n, ate.arg, ate.fname, ate.param)
}
