package engine

// Math functions (abs, exp, log, log10, round) and CAST between native
// types, with Java's arithmetic: narrowing conversions wrap for integers
// and saturate from floating point, as Cassandra's NumberType does.

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// number is a decoded numeric value: exactly one of i (integer kinds),
// f (float, double), bi (varint), dec (decimal) is meaningful.
type number struct {
	kind cql.Kind
	i    int64
	f    float64
	bi   *big.Int
	dec  cql.Decimal
}

func decodeNum(k cql.Kind, b []byte) (number, error) {
	v, err := cql.DecodeGo(cql.Scalar(k), b)
	if err != nil {
		return number{}, err
	}
	n := number{kind: k}
	switch x := v.(type) {
	case int8:
		n.i = int64(x)
	case int16:
		n.i = int64(x)
	case int32:
		n.i = int64(x)
	case int64:
		n.i = x
	case float32:
		n.f = float64(x)
	case float64:
		n.f = x
	case *big.Int:
		n.bi = x
	case cql.Decimal:
		n.dec = x
	default:
		return number{}, errBadValue
	}
	return n, nil
}

func (n number) isInt() bool {
	switch n.kind {
	case cql.KindTinyint, cql.KindSmallint, cql.KindInt, cql.KindBigint, cql.KindCounter:
		return true
	}
	return false
}

// float64 is Java's doubleValue().
func (n number) float64() float64 {
	switch {
	case n.isInt():
		return float64(n.i)
	case n.kind == cql.KindVarint:
		f, _ := new(big.Float).SetInt(n.bi).Float64()
		return f
	case n.kind == cql.KindDecimal:
		f, _ := strconv.ParseFloat(n.dec.String(), 64)
		return f
	}
	return n.f
}

// int64 is Java's longValue(): integer bits wrap, floating point saturates.
func (n number) int64() int64 {
	switch {
	case n.isInt():
		return n.i
	case n.kind == cql.KindVarint:
		return truncBig(n.bi)
	case n.kind == cql.KindDecimal:
		return truncBig(decimalInt(n.dec))
	}
	return javaLong(n.f)
}

// bigInt is the value as a BigInteger (truncated toward zero).
func (n number) bigInt() *big.Int {
	switch {
	case n.isInt():
		return big.NewInt(n.i)
	case n.kind == cql.KindVarint:
		return n.bi
	case n.kind == cql.KindDecimal:
		return decimalInt(n.dec)
	}
	if math.IsNaN(n.f) || math.IsInf(n.f, 0) {
		return new(big.Int)
	}
	d, err := cql.ParseDecimal(strconv.FormatFloat(n.f, 'e', -1, 64))
	if err != nil {
		return new(big.Int)
	}
	return decimalInt(d)
}

// truncBig is BigInteger.longValue(): the low 64 bits.
func truncBig(b *big.Int) int64 {
	m := new(big.Int).And(b, new(big.Int).SetUint64(math.MaxUint64))
	return int64(m.Uint64())
}

// decimalInt is BigDecimal.toBigInteger(): truncation toward zero.
func decimalInt(d cql.Decimal) *big.Int {
	u := new(big.Int).Set(d.Unscaled)
	if d.Scale <= 0 {
		return u.Mul(u, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-d.Scale)), nil))
	}
	return u.Quo(u, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Scale)), nil))
}

// javaLong is Java's (long) of a double: NaN is 0, out of range saturates.
func javaLong(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// javaInt is Java's (int) of a double.
func javaInt(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt32:
		return math.MaxInt32
	case f <= math.MinInt32:
		return math.MinInt32
	}
	return int64(int32(f))
}

// encodeAs serializes n in kind k with Java's conversions
// (Number.byteValue(), intValue(), ...).
func (n number) encodeAs(k cql.Kind) ([]byte, error) {
	fromFloat := n.kind == cql.KindFloat || n.kind == cql.KindDouble
	switch k {
	case cql.KindTinyint, cql.KindSmallint, cql.KindInt:
		var v int64
		if fromFloat {
			v = javaInt(n.f)
		} else {
			v = n.int64()
		}
		switch k {
		case cql.KindTinyint:
			return []byte{byte(int8(v))}, nil
		case cql.KindSmallint:
			return binary.BigEndian.AppendUint16(nil, uint16(int16(v))), nil
		}
		return binary.BigEndian.AppendUint32(nil, uint32(int32(v))), nil
	case cql.KindBigint, cql.KindCounter:
		return be64(n.int64()), nil
	case cql.KindFloat:
		return binary.BigEndian.AppendUint32(nil, math.Float32bits(float32(n.float64()))), nil
	case cql.KindDouble:
		return binary.BigEndian.AppendUint64(nil, math.Float64bits(n.float64())), nil
	case cql.KindVarint:
		return cql.EncodeGo(cql.Scalar(cql.KindVarint), n.bigInt())
	case cql.KindDecimal:
		var d cql.Decimal
		switch {
		case n.kind == cql.KindDecimal:
			d = n.dec
		case n.kind == cql.KindVarint:
			d = cql.Decimal{Unscaled: n.bi}
		case n.isInt():
			d = cql.Decimal{Unscaled: big.NewInt(n.i)}
		default:
			// new BigDecimal(Float.toString(f)) / Double.toString(d).
			if math.IsNaN(n.f) || math.IsInf(n.f, 0) {
				return nil, invalidf("Infinite or NaN")
			}
			bits := 64
			if n.kind == cql.KindFloat {
				bits = 32
			}
			var err error
			if d, err = cql.ParseDecimal(cql.JavaFloatString(n.f, bits)); err != nil {
				return nil, err
			}
		}
		return cql.EncodeGo(cql.Scalar(cql.KindDecimal), d)
	}
	return nil, bindings.Unsupported("conversion to %s is not supported by dohyo's wide-column engine", k)
}

// resolveMath resolves abs, exp, log, log10 and round: one overload per
// numeric type, returning that type.
func resolveMath(name string, args []*cql.Type) (*fnCall, error) {
	sigs := make([]signature, 0, len(numericKinds))
	for _, k := range []cql.Kind{cql.KindVarint, cql.KindTinyint, cql.KindSmallint, cql.KindCounter, cql.KindBigint,
		cql.KindDecimal, cql.KindInt, cql.KindFloat, cql.KindDouble} {
		sigs = append(sigs, signature{params: []*cql.Type{cql.Scalar(k)}, ret: cql.Scalar(k)})
	}
	sig, err := pickSignature(name, sigs, args)
	if err != nil {
		return nil, err
	}
	k := sig.ret.Kind
	return &fnCall{name: "system." + name, params: sig.params, ret: sig.ret, impl: func(_ *fnEnv, a [][]byte) ([]byte, error) {
		if len(a[0]) == 0 {
			return a[0], nil
		}
		if k == cql.KindDecimal && name != "abs" && name != "round" {
			return decimalMath(name, a[0])
		}
		n, err := decodeNum(k, a[0])
		if err != nil {
			return nil, err
		}
		return mathOp(name, n)
	}}, nil
}

func mathOp(name string, n number) ([]byte, error) {
	k := n.kind
	switch name {
	case "abs":
		switch {
		case n.isInt():
			if n.i < 0 {
				n.i = -n.i
			}
		case k == cql.KindVarint:
			n.bi = new(big.Int).Abs(n.bi)
		case k == cql.KindDecimal:
			n.dec.Unscaled = new(big.Int).Abs(n.dec.Unscaled)
		default:
			n.f = math.Abs(n.f)
		}
		return n.encodeAs(k)
	case "round":
		switch k {
		case cql.KindFloat:
			// Math.round(float) returns an int.
			n.f = float64(javaInt(math.Floor(float64(float32(n.f)) + 0.5)))
		case cql.KindDouble:
			n.f = float64(javaLong(math.Floor(n.f + 0.5)))
		case cql.KindDecimal:
			n.dec = roundHalfUp(n.dec)
		}
		return n.encodeAs(k)
	}
	var f func(float64) float64
	switch name {
	case "exp":
		f = math.Exp
	case "log":
		f = math.Log
	default:
		f = math.Log10
	}
	r := f(n.float64())
	if k == cql.KindFloat {
		r = float64(float32(f(float64(float32(n.f)))))
	}
	out := number{kind: cql.KindDouble, f: r}
	if k == cql.KindVarint {
		out = number{kind: cql.KindVarint, bi: number{kind: cql.KindDouble, f: r}.bigInt()}
	}
	return out.encodeAs(k)
}

// roundHalfUp is BigDecimal.setScale(0, RoundingMode.HALF_UP).
func roundHalfUp(d cql.Decimal) cql.Decimal {
	if d.Scale <= 0 {
		return d
	}
	pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Scale)), nil)
	q, r := new(big.Int).QuoRem(d.Unscaled, pow, new(big.Int))
	r.Abs(r).Mul(r, big.NewInt(2))
	if r.Cmp(pow) >= 0 {
		if d.Unscaled.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return cql.Decimal{Unscaled: q}
}

// castSources lists, per target kind, the kinds CAST accepts (Cassandra
// 5.0's CastFcts).
func castSources(to cql.Kind) []cql.Kind {
	numeric := []cql.Kind{cql.KindTinyint, cql.KindSmallint, cql.KindInt, cql.KindBigint, cql.KindFloat,
		cql.KindDouble, cql.KindDecimal, cql.KindVarint, cql.KindCounter}
	switch to {
	case cql.KindTinyint, cql.KindSmallint, cql.KindInt, cql.KindBigint, cql.KindFloat, cql.KindDouble,
		cql.KindDecimal, cql.KindVarint:
		// Every other numeric type: Cassandra has no same-type cast (a
		// cast to the term's own type is no function at all).
		return slices.DeleteFunc(numeric, func(k cql.Kind) bool { return k == to })
	case cql.KindText, cql.KindAscii:
		out := append(numeric, cql.KindBoolean, cql.KindTime, cql.KindTimestamp, cql.KindUUID, cql.KindDate,
			cql.KindTimeuuid, cql.KindInet)
		if to == cql.KindText {
			out = append(out, cql.KindAscii)
		}
		return out
	case cql.KindDate:
		return []cql.Kind{cql.KindTimestamp, cql.KindTimeuuid}
	case cql.KindTimestamp:
		return []cql.Kind{cql.KindDate, cql.KindTimeuuid}
	}
	return nil
}

// resolveCast resolves CAST(x AS to) for an argument of type from;
// reversed says from is a DESC clustering column's, for which Cassandra
// looks a function up even for the same type (and has none but to text).
func resolveCast(from, to *cql.Type, argText string, reversed bool) (*fnCall, error) {
	ok := false
	for _, k := range castSources(to.Kind) {
		if from != nil && from.Kind == k && len(from.Elems) == 0 {
			ok = true
		}
	}
	if !ok {
		if from != nil && sameType(from, to) && !reversed {
			return &fnCall{name: "cast", params: []*cql.Type{from}, ret: to, impl: func(_ *fnEnv, a [][]byte) ([]byte, error) { return a[0], nil }}, nil
		}
		srcs := castSources(to.Kind)
		if len(srcs) == 0 {
			return nil, invalidf("%s cannot be cast to %s", argText, to)
		}
		fname := "system.cast_as_" + to.String()
		known := make([]string, len(srcs))
		for i, k := range srcs {
			known[i] = fmt.Sprintf("%s : (%s) -> %s", fname, k, to)
		}
		return nil, invalidf("Invalid call to function %s, none of its type signatures match (known type signatures: %s)",
			fname, strings.Join(known, ", "))
	}
	fk, tk := from.Kind, to.Kind
	return &fnCall{name: "cast", params: []*cql.Type{from}, ret: to, impl: func(_ *fnEnv, a [][]byte) ([]byte, error) {
		if len(a[0]) == 0 && fk != cql.KindText && fk != cql.KindAscii {
			return a[0], nil
		}
		switch tk {
		case cql.KindText, cql.KindAscii:
			return []byte(castText(cql.Scalar(fk), a[0])), nil
		case cql.KindDate, cql.KindTimestamp:
			tm, err := timeOf(cql.Scalar(fk), a[0], "cast")
			if err != nil {
				return nil, err
			}
			if tk == cql.KindDate {
				return dateBytes(tm), nil
			}
			return be64(tm.UnixMilli()), nil
		}
		n, err := decodeNum(fk, a[0])
		if err != nil {
			return nil, err
		}
		return n.encodeAs(tk)
	}}, nil
}

// castText is the Java toString() of a value that CAST(x AS text) gives.
func castText(t *cql.Type, b []byte) string {
	if t.Kind == cql.KindText || t.Kind == cql.KindAscii {
		return string(b)
	}
	v, err := cql.DecodeGo(t, b)
	if err != nil {
		return ""
	}
	switch x := v.(type) {
	case float32:
		return cql.JavaFloatString(float64(x), 32)
	case float64:
		return cql.JavaFloatString(x, 64)
	case time.Time:
		return x.UTC().Format("2006-01-02T15:04:05.000Z")
	case net.IP:
		return javaHostAddress(x)
	case time.Duration: // time of day
		ns := int64(x)
		return time.Unix(0, ns).UTC().Format("15:04:05") + "." + strconv.FormatInt(1e9+ns%1e9, 10)[1:]
	}
	s := cql.FormatValue(t, b)
	return strings.Trim(s, "'")
}

// javaHostAddress is InetAddress.getHostAddress(): dotted IPv4 (also for
// IPv4-mapped IPv6), else eight uncompressed hex groups.
func javaHostAddress(ip net.IP) string {
	if v4 := ip.To4(); v4 != nil {
		return v4.String()
	}
	if len(ip) != net.IPv6len {
		return ip.String()
	}
	parts := make([]string, 8)
	for i := range parts {
		parts[i] = strconv.FormatUint(uint64(binary.BigEndian.Uint16(ip[2*i:])), 16)
	}
	return strings.Join(parts, ":")
}
