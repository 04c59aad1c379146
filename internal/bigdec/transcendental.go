package bigdec

import (
	"errors"
	"math"
	"math/big"
)

// The natural exponential and logarithms to a number of significant
// digits, rounded half-even, as Cassandra's exp/log/log10 of a decimal
// (big-math's BigDecimalMath with a MathContext of max(32, precision)
// digits). They are computed in binary floating point with enough guard
// bits that the decimal rounding is the correctly rounded one.

// ErrLogDomain is the logarithm of zero or a negative number.
var ErrLogDomain = errors.New("logarithm of zero or less")

// errRange is an exponential whose result has no BigDecimal form.
var errRange = errors.New("Overflow")

// maxExpArg bounds |x| of Exp: e^x then still has an int32 decimal
// exponent, as a BigDecimal needs.
const maxExpArg = 4.9e9

// Exp is e^x to prec significant digits.
func Exp(x Dec, prec int) (Dec, error) {
	if x.Sign() == 0 {
		return FromInt64(1), nil
	}
	xf := toFloat(x, 64)
	if f, _ := xf.Float64(); math.Abs(f) > maxExpArg {
		return Dec{}, errRange
	}
	// Bits: the digits asked for, the integer part that squaring
	// magnifies the error by, and guard bits.
	mag := 0
	if xf.MantExp(nil) > 0 {
		mag = xf.MantExp(nil)
	}
	bits := uint(float64(prec)*math.Log2(10)) + uint(mag) + 64
	r := expFloat(toFloat(x, bits), bits)
	return fromFloat(r, prec)
}

// Ln is the natural logarithm of x to prec significant digits.
func Ln(x Dec, prec int) (Dec, error) {
	if x.Sign() <= 0 {
		return Dec{}, ErrLogDomain
	}
	if x.Cmp(FromInt64(1)) == 0 {
		return FromInt64(0), nil
	}
	bits := lnBits(x, prec)
	return fromFloat(lnFloat(toFloat(x, bits), bits), prec)
}

// Log10 is the base-10 logarithm of x to prec significant digits.
func Log10(x Dec, prec int) (Dec, error) {
	if x.Sign() <= 0 {
		return Dec{}, ErrLogDomain
	}
	switch {
	case x.Cmp(FromInt64(1)) == 0:
		return FromInt64(0), nil
	case x.Cmp(FromInt64(10)) == 0:
		return FromInt64(1), nil
	}
	bits := lnBits(x, prec)
	l := lnFloat(toFloat(x, bits), bits)
	l.Quo(l, lnFloat(new(big.Float).SetPrec(bits).SetInt64(10), bits))
	return fromFloat(l, prec)
}

// lnBits is the working precision of a logarithm: near 1 the result is
// small, so the absolute error must be smaller still.
func lnBits(x Dec, prec int) uint {
	extra := 0
	diff := Sub(x, FromInt64(1)).Abs()
	if diff.Sign() != 0 {
		// -log10|x-1| more digits are leading zeros of the result.
		if z := int64(diff.Scale) - int64(diff.Precision()); z > 0 {
			extra = int(z)
		}
	}
	return uint(float64(prec+extra)*math.Log2(10)) + 64
}

// toFloat is d as a binary float of bits precision.
func toFloat(d Dec, bits uint) *big.Float {
	f := new(big.Float).SetPrec(bits + 32).SetInt(d.u())
	switch {
	case d.Scale > 0:
		f.Quo(f, new(big.Float).SetPrec(bits+32).SetInt(pow10(int(d.Scale))))
	case d.Scale < 0:
		f.Mul(f, new(big.Float).SetPrec(bits+32).SetInt(pow10(int(-d.Scale))))
	}
	return f.SetPrec(bits)
}

// expFloat is e^x: x is halved k times until small, the Taylor series
// summed, and the result squared k times.
func expFloat(x *big.Float, bits uint) *big.Float {
	neg := x.Sign() < 0
	a := new(big.Float).SetPrec(bits).Abs(x)
	k := 0
	if e := a.MantExp(nil); e > -8 {
		k = e + 8
	}
	a.SetMantExp(a, -k)
	sum := new(big.Float).SetPrec(bits).SetInt64(1)
	term := new(big.Float).SetPrec(bits).SetInt64(1)
	eps := new(big.Float).SetPrec(bits).SetMantExp(big.NewFloat(1), -int(bits))
	for n := int64(1); ; n++ {
		term.Mul(term, a)
		term.Quo(term, new(big.Float).SetInt64(n))
		sum.Add(sum, term)
		if term.Cmp(eps) < 0 {
			break
		}
	}
	for range k {
		sum.Mul(sum, sum)
	}
	if neg {
		sum.Quo(new(big.Float).SetPrec(bits).SetInt64(1), sum)
	}
	return sum
}

// lnFloat is ln(x) for x > 0: x = m × 2^e with m in [0.5, 1), then
// ln x = e ln 2 + 2 atanh((m-1)/(m+1)).
func lnFloat(x *big.Float, bits uint) *big.Float {
	m := new(big.Float).SetPrec(bits)
	e := x.MantExp(m)
	r := atanhSeries(m, bits)
	if e != 0 {
		two := new(big.Float).SetPrec(bits).SetInt64(2)
		ln2 := atanhSeries(two, bits)
		r.Add(r, ln2.Mul(ln2, new(big.Float).SetPrec(bits).SetInt64(int64(e))))
	}
	return r
}

// atanhSeries is ln(m) = 2 atanh((m-1)/(m+1)) by its series, for m near 1
// (within [0.5, 2]).
func atanhSeries(m *big.Float, bits uint) *big.Float {
	one := new(big.Float).SetPrec(bits).SetInt64(1)
	z := new(big.Float).SetPrec(bits).Sub(m, one)
	z.Quo(z, new(big.Float).SetPrec(bits).Add(m, one))
	z2 := new(big.Float).SetPrec(bits).Mul(z, z)
	sum := new(big.Float).SetPrec(bits).Set(z)
	pow := new(big.Float).SetPrec(bits).Set(z)
	eps := new(big.Float).SetPrec(bits).SetMantExp(big.NewFloat(1), -int(bits)-8)
	t := new(big.Float).SetPrec(bits)
	for n := int64(3); ; n += 2 {
		pow.Mul(pow, z2)
		t.Quo(pow, new(big.Float).SetInt64(n))
		sum.Add(sum, t)
		if t.Sign() == 0 || new(big.Float).Abs(t).Cmp(eps) < 0 {
			break
		}
	}
	return sum.Mul(sum, new(big.Float).SetInt64(2))
}

// fromFloat is f rounded half-even to prec significant decimal digits,
// with prec digits kept (trailing zeros included), as a MathContext
// rounding of an inexact result gives.
func fromFloat(f *big.Float, prec int) (Dec, error) {
	if f.Sign() == 0 {
		return FromInt64(0), nil
	}
	// Many more digits than asked for, then one decimal rounding.
	s := f.Text('e', prec+25)
	d, err := Parse(s)
	if err != nil {
		return Dec{}, err
	}
	return Round(d, prec, HalfEven)
}
