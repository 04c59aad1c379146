package engine

// Time and uuid functions, toJson, collection functions and masking
// functions of Cassandra 5.0, on serialized values.

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"hash"
	"math/big"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

func scalars(ks ...cql.Kind) []*cql.Type {
	out := make([]*cql.Type, len(ks))
	for i, k := range ks {
		out[i] = cql.Scalar(k)
	}
	return out
}

// resolveTime resolves the time and uuid functions.
func resolveTime(name string, args []*cql.Type) (*fnCall, error) {
	full := "system." + name
	nullary := func(ret cql.Kind, f func(env *fnEnv) []byte) (*fnCall, error) {
		if err := argCount(full, args, 0); err != nil {
			return nil, err
		}
		return &fnCall{name: full, ret: cql.Scalar(ret), impl: func(env *fnEnv, _ [][]byte) ([]byte, error) { return f(env), nil }}, nil
	}
	switch name {
	case "now", "currenttimeuuid":
		return nullary(cql.KindTimeuuid, func(env *fnEnv) []byte { u := env.uuids.Next(); return u[:] })
	case "uuid":
		return nullary(cql.KindUUID, func(*fnEnv) []byte { u := cql.RandomUUID(); return u[:] })
	case "currenttimestamp":
		return nullary(cql.KindTimestamp, func(env *fnEnv) []byte { return be64(env.now.UnixMilli()) })
	case "currentdate":
		return nullary(cql.KindDate, func(env *fnEnv) []byte { return dateBytes(env.now) })
	case "currenttime":
		return nullary(cql.KindTime, func(env *fnEnv) []byte {
			y, mo, d := env.now.UTC().Date()
			return be64(int64(env.now.Sub(time.Date(y, mo, d, 0, 0, 0, 0, time.UTC))))
		})
	}
	var from []cql.Kind
	var ret cql.Kind
	switch name {
	case "totimestamp":
		from, ret = []cql.Kind{cql.KindTimeuuid, cql.KindDate}, cql.KindTimestamp
	case "todate":
		from, ret = []cql.Kind{cql.KindTimeuuid, cql.KindTimestamp}, cql.KindDate
	case "tounixtimestamp":
		from, ret = []cql.Kind{cql.KindTimeuuid, cql.KindTimestamp, cql.KindDate}, cql.KindBigint
	default: // mintimeuuid, maxtimeuuid
		from, ret = []cql.Kind{cql.KindTimestamp}, cql.KindTimeuuid
	}
	sigs := make([]signature, len(from))
	for i, k := range from {
		sigs[i] = signature{params: scalars(k), ret: cql.Scalar(ret)}
	}
	sig, err := pickSignature(name, sigs, args)
	if err != nil {
		return nil, err
	}
	pt := sig.params[0]
	return &fnCall{name: full, params: sig.params, ret: sig.ret, impl: func(_ *fnEnv, a [][]byte) ([]byte, error) {
		if len(a[0]) == 0 {
			return nil, nil
		}
		tm, err := timeOf(pt, a[0], name)
		if err != nil {
			return nil, err
		}
		switch ret {
		case cql.KindTimestamp:
			return be64(tm.UnixMilli()), nil
		case cql.KindBigint:
			return be64(tm.UnixMilli()), nil
		case cql.KindDate:
			return dateBytes(tm), nil
		}
		u := cql.MinTimeUUID(tm)
		if name == "maxtimeuuid" {
			u = cql.MaxTimeUUID(tm)
		}
		return u[:], nil
	}}, nil
}

// resolveToJSON is toJson(x) -> text; toJson(null) is the text "null".
func resolveToJSON(name string, args []*cql.Type) (*fnCall, error) {
	if err := argCount("system.tojson", args, 1); err != nil {
		return nil, err
	}
	if args[0] == nil {
		return nil, invalidf("Cannot infer type of argument ? in call to function system.tojson: use type casts to disambiguate")
	}
	t := args[0]
	return &fnCall{name: "system." + name, params: args, ret: cql.Scalar(cql.KindText), nullable: true,
		impl: func(_ *fnEnv, a [][]byte) ([]byte, error) {
			if a[0] == nil {
				return []byte("null"), nil
			}
			return []byte(toJSON(t, a[0])), nil
		}}, nil
}

// resolveCollection resolves map_keys, map_values and collection_*.
func resolveCollection(name string, args []*cql.Type) (*fnCall, error) {
	full := "system." + name
	if err := argCount(full, args, 1); err != nil {
		return nil, err
	}
	t := args[0]
	if t == nil {
		return nil, invalidf("Cannot infer type of argument ? in call to function %s: use type casts to disambiguate", full)
	}
	bad := func() (*fnCall, error) {
		return nil, invalidf("Function %s requires an argument of type %s, but found argument %s of type %s", full, wantColl(name), "?", t)
	}
	switch name {
	case "map_keys", "map_values":
		if t.Kind != cql.KindMap {
			return bad()
		}
		ret, idx := cql.SetOf(t.Elems[0]), 0
		if name == "map_values" {
			ret, idx = cql.ListOf(t.Elems[1]), 1
		}
		return &fnCall{name: full, params: args, ret: ret, impl: func(_ *fnEnv, a [][]byte) ([]byte, error) {
			items, err := splitCollection(a[0], 2)
			if err != nil {
				return nil, err
			}
			out := make([][]byte, 0, len(items)/2)
			for i := idx; i < len(items); i += 2 {
				out = append(out, items[i])
			}
			b := buildCollection(len(out), out)
			if ret.Kind == cql.KindSet {
				return cql.Canonicalize(ret, b)
			}
			return b, nil
		}}, nil
	case "collection_count":
		if !t.IsCollection() {
			return bad()
		}
		return &fnCall{name: full, params: args, ret: cql.Scalar(cql.KindInt), impl: func(_ *fnEnv, a [][]byte) ([]byte, error) {
			if len(a[0]) < 4 {
				return nil, errBadValue
			}
			return a[0][:4:4], nil
		}}, nil
	}
	if t.Kind != cql.KindList && t.Kind != cql.KindSet {
		return bad()
	}
	et := t.Elems[0]
	if (name == "collection_sum" || name == "collection_avg") && !isNumeric(et.Kind) {
		return bad()
	}
	return &fnCall{name: full, params: args, ret: et, impl: func(_ *fnEnv, a [][]byte) ([]byte, error) {
		items, err := splitCollection(a[0], 1)
		if err != nil {
			return nil, err
		}
		if len(items) == 0 && (name == "collection_min" || name == "collection_max") {
			return nil, nil // Cassandra: null; the sum and average of nothing are 0
		}
		switch name {
		case "collection_min", "collection_max":
			best := items[0]
			for _, it := range items[1:] {
				c := cql.Compare(et, it, best)
				if (name == "collection_min" && c < 0) || (name == "collection_max" && c > 0) {
					best = it
				}
			}
			return best, nil
		}
		if bigNumberKind(et.Kind) {
			return collectionBigSum(et.Kind, items, name == "collection_avg")
		}
		return collectionSum(et.Kind, items, name == "collection_avg")
	}}, nil
}

func wantColl(name string) string {
	switch name {
	case "map_keys", "map_values":
		return "map"
	case "collection_count":
		return "collection"
	}
	return "set or list"
}

// collectionSum adds numeric elements in their own type (integers wrap
// as in Java); the average divides the sum by the count.
func collectionSum(k cql.Kind, items [][]byte, avg bool) ([]byte, error) {
	var isum int64
	var fsum float64
	bsum := new(big.Int)
	for _, it := range items {
		n, err := decodeNum(k, it)
		if err != nil {
			return nil, err
		}
		switch {
		case n.isInt():
			isum += n.i
		case k == cql.KindVarint:
			bsum.Add(bsum, n.bi)
		default:
			fsum += n.f
			if k == cql.KindFloat {
				fsum = float64(float32(fsum))
			}
		}
	}
	cnt := int64(len(items))
	if avg && cnt > 0 {
		isum /= cnt
		fsum /= float64(cnt)
		bsum.Quo(bsum, big.NewInt(cnt))
	}
	return number{kind: k, i: isum, f: fsum, bi: bsum}.encodeAs(k)
}

// timeuuidAsBlob is the result type Cassandra 5.0 gives the masks and
// min/max of a value of type t: a timeuuid's is blob (the bytes are the
// timeuuid's), except for a DESC clustering column (reversed), whose
// reversed type keeps timeuuid.
func timeuuidAsBlob(t *cql.Type, reversed bool) *cql.Type {
	if t.Kind == cql.KindTimeuuid && !reversed {
		return cql.Scalar(cql.KindBlob)
	}
	return t
}

// resolveMask resolves the masking functions of Cassandra 5.0 (dynamic
// data masking).
func resolveMask(name string, args []*cql.Type) (*fnCall, error) {
	full := "system." + name
	if len(args) == 0 || args[0] == nil {
		if len(args) == 0 {
			return nil, invalidf("Invalid number of arguments for function %s: 0", full)
		}
		return nil, invalidf("Cannot infer type of argument ? in call to function %s: use type casts to disambiguate", full)
	}
	t := args[0]
	ret := timeuuidAsBlob(t, false) // a DESC column's: compileCallExpr
	switch name {
	case "mask_null":
		if err := argCount(full, args, 1); err != nil {
			return nil, err
		}
		return &fnCall{name: full, params: args, ret: ret, nullable: true, impl: func(*fnEnv, [][]byte) ([]byte, error) { return nil, nil }}, nil
	case "mask_default":
		if err := argCount(full, args, 1); err != nil {
			return nil, err
		}
		def, err := maskDefault(t)
		if err != nil {
			return nil, err
		}
		return &fnCall{name: full, params: args, ret: ret, nullable: true, impl: func(*fnEnv, [][]byte) ([]byte, error) { return def, nil }}, nil
	case "mask_replace":
		if err := argCount(full, args, 2); err != nil {
			return nil, err
		}
		return &fnCall{name: full, params: []*cql.Type{t, t}, ret: ret, nullable: true,
			impl: func(_ *fnEnv, a [][]byte) ([]byte, error) { return a[1], nil }}, nil
	case "mask_inner", "mask_outer":
		if len(args) != 3 && len(args) != 4 {
			return nil, invalidf("Invalid number of arguments for function %s: %d", full, len(args))
		}
		if t.Kind != cql.KindText && t.Kind != cql.KindAscii {
			return nil, invalidf("Function %s requires an argument of type text, but found argument of type %s", full, t)
		}
		params := []*cql.Type{t, cql.Scalar(cql.KindInt), cql.Scalar(cql.KindInt)}
		if len(args) == 4 {
			params = append(params, cql.Scalar(cql.KindText))
		}
		return &fnCall{name: full, params: params, ret: t, nullable: true, impl: func(_ *fnEnv, a [][]byte) ([]byte, error) {
			if a[0] == nil {
				return nil, nil
			}
			pad := "*"
			if len(a) == 4 && a[3] != nil {
				pad = string(a[3])
			}
			return []byte(maskPartial(string(a[0]), maskInt(a[1]), maskInt(a[2]), pad, name == "mask_outer")), nil
		}}, nil
	case "mask_hash":
		if len(args) != 1 && len(args) != 2 {
			return nil, invalidf("Invalid number of arguments for function %s: %d", full, len(args))
		}
		params := []*cql.Type{t}
		if len(args) == 2 {
			params = append(params, cql.Scalar(cql.KindText))
		}
		return &fnCall{name: full, params: params, ret: cql.Scalar(cql.KindBlob), nullable: true,
			impl: func(_ *fnEnv, a [][]byte) ([]byte, error) {
				if a[0] == nil {
					return nil, nil
				}
				alg := "SHA-256"
				if len(a) == 2 && a[1] != nil {
					alg = string(a[1])
				}
				h := hashByName(alg)
				if h == nil {
					return nil, invalidf("Hash algorithm not found: %s", alg)
				}
				h.Write(a[0])
				return h.Sum(nil), nil
			}}, nil
	}
	return nil, invalidf("Unknown function '%s'", name)
}

func maskInt(b []byte) int {
	if len(b) != 4 {
		return 0
	}
	return max(int(int32(binary.BigEndian.Uint32(b))), 0)
}

// maskPartial replaces the inner part (mask_inner: all but the first
// begin and last end characters) or the outer parts (mask_outer) of s.
func maskPartial(s string, begin, end int, pad string, outer bool) string {
	rs := []rune(s)
	n := len(rs)
	begin, end = min(begin, n), min(end, n)
	out := make([]rune, 0, n)
	pr := []rune(pad)
	if len(pr) == 0 {
		pr = []rune{'*'}
	}
	for i, r := range rs {
		inner := i >= begin && i < n-end
		if inner != outer {
			out = append(out, pr[0])
		} else {
			out = append(out, r)
		}
	}
	if !utf8.ValidString(string(out)) {
		return s
	}
	return string(out)
}

func hashByName(alg string) hash.Hash {
	switch strings.ToUpper(alg) {
	case "MD5":
		return md5.New()
	case "SHA-1", "SHA1", "SHA":
		return sha1.New()
	case "SHA-224":
		return sha256.New224()
	case "SHA-256":
		return sha256.New()
	case "SHA-384":
		return sha512.New384()
	case "SHA-512":
		return sha512.New()
	case "SHA-512/224":
		return sha512.New512_224()
	case "SHA-512/256":
		return sha512.New512_256()
	}
	return nil
}

// maskDefault is the value mask_default gives for a type.
func maskDefault(t *cql.Type) ([]byte, error) {
	switch t.Kind {
	case cql.KindText, cql.KindAscii:
		return []byte("****"), nil
	case cql.KindBlob:
		return []byte{}, nil
	case cql.KindBoolean:
		return []byte{0}, nil
	case cql.KindTimestamp, cql.KindTime:
		return be64(0), nil
	case cql.KindDate:
		return dateBytes(time.Unix(0, 0)), nil
	case cql.KindUUID:
		return make([]byte, 16), nil
	case cql.KindTimeuuid:
		u := cql.MinTimeUUID(time.UnixMilli(0))
		return u[:], nil
	case cql.KindInet:
		return []byte{0, 0, 0, 0}, nil
	case cql.KindDuration:
		return []byte{0, 0, 0}, nil
	case cql.KindList, cql.KindSet, cql.KindMap:
		return buildCollection(0, nil), nil
	}
	if isNumeric(t.Kind) {
		return number{kind: cql.KindInt}.encodeAs(t.Kind)
	}
	return nil, bindings.Unsupported("mask_default() of %s is not supported by dohyo's wide-column engine", t)
}
