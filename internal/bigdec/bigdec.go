package bigdec

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Dec is Unscaled × 10^-Scale. The zero Dec (nil Unscaled) is 0 with
// scale 0. Operations never modify their arguments.
type Dec struct {
	Unscaled *big.Int
	Scale    int32
}

// RoundingMode is java.math.RoundingMode (the modes Cassandra uses).
type RoundingMode int

// Rounding modes.
const (
	HalfUp   RoundingMode = iota // ties away from zero
	HalfEven                     // ties to the even neighbour
	Down                         // toward zero
)

// Errors with java.lang.ArithmeticException's messages, which Cassandra
// puts in its error messages.
var (
	// ErrDivByZero is a long division by zero ("/ by zero").
	ErrDivByZero = errors.New("/ by zero")
	// ErrBigDivByZero is a BigInteger division by zero.
	ErrBigDivByZero = errors.New("BigInteger divide by zero")
	// ErrDivisionByZero is BigDecimal's x / 0 for x != 0.
	ErrDivisionByZero = errors.New("Division by zero")
	// ErrDivisionUndefined is BigDecimal's 0 / 0.
	ErrDivisionUndefined = errors.New("Division undefined")
	// ErrScale is a scale outside Java's int range.
	ErrScale = errors.New("Overflow")
)

// New is unscaled × 10^-scale.
func New(unscaled *big.Int, scale int32) Dec { return Dec{Unscaled: unscaled, Scale: scale} }

// FromInt64 is BigDecimal.valueOf(long): scale 0.
func FromInt64(v int64) Dec { return Dec{Unscaled: big.NewInt(v)} }

// Parse is new BigDecimal(String): the scale is the number of fraction
// digits minus the exponent ("1.50" has scale 2, "1E+3" scale -3).
func Parse(s string) (Dec, error) {
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 || body == "" {
		return Dec{}, errors.New("bigdec: bad number " + strconv.Quote(s))
	}
	mant, exp := body, int64(0)
	if i := strings.IndexAny(body, "eE"); i >= 0 {
		es := body[i+1:]
		digitsOnly := strings.TrimLeft(es, "+-")
		e, err := strconv.ParseInt(es, 10, 64)
		if err != nil || len(es)-len(digitsOnly) > 1 {
			return Dec{}, errors.New("bigdec: bad exponent in " + strconv.Quote(s))
		}
		mant, exp = body[:i], e
	}
	frac := int64(0)
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		frac = int64(len(mant) - i - 1)
		mant = mant[:i] + mant[i+1:]
	}
	if mant == "" || strings.ContainsAny(mant, "+-") {
		return Dec{}, errors.New("bigdec: bad number " + strconv.Quote(s))
	}
	u, ok := new(big.Int).SetString(mant, 10)
	if !ok {
		return Dec{}, errors.New("bigdec: bad number " + strconv.Quote(s))
	}
	scale := frac - exp
	if scale < math.MinInt32 || scale > math.MaxInt32 {
		return Dec{}, ErrScale
	}
	if strings.HasPrefix(s, "-") {
		u.Neg(u)
	}
	return Dec{Unscaled: u, Scale: int32(scale)}, nil
}

func (d Dec) u() *big.Int {
	if d.Unscaled == nil {
		return new(big.Int)
	}
	return d.Unscaled
}

// Sign is -1, 0 or 1.
func (d Dec) Sign() int { return d.u().Sign() }

// Precision is BigDecimal.precision(): the number of digits of the
// unscaled value (1 for zero).
func (d Dec) Precision() int { return digits(d.u()) }

// Cmp compares values (1.0 equals 1.00).
func (d Dec) Cmp(e Dec) int {
	x, y := align(d, e)
	return x.Cmp(y)
}

// String is BigDecimal.toString(): plain notation unless the scale is
// negative or the adjusted exponent is below -6.
func (d Dec) String() string {
	coeff := d.u().Text(10)
	neg := strings.HasPrefix(coeff, "-")
	coeff = strings.TrimPrefix(coeff, "-")
	scale := int64(d.Scale)
	adjusted := -scale + int64(len(coeff)-1)
	var sb strings.Builder
	if neg {
		sb.WriteByte('-')
	}
	switch {
	case scale == 0:
		sb.WriteString(coeff)
	case scale > 0 && adjusted >= -6:
		if pad := scale - int64(len(coeff)); pad >= 0 {
			sb.WriteString("0.")
			sb.WriteString(strings.Repeat("0", int(pad)))
			sb.WriteString(coeff)
		} else {
			sb.WriteString(coeff[:int64(len(coeff))-scale])
			sb.WriteByte('.')
			sb.WriteString(coeff[int64(len(coeff))-scale:])
		}
	default:
		sb.WriteString(coeff[:1])
		if len(coeff) > 1 {
			sb.WriteByte('.')
			sb.WriteString(coeff[1:])
		}
		sb.WriteByte('E')
		if adjusted >= 0 {
			sb.WriteByte('+')
		}
		sb.WriteString(strconv.FormatInt(adjusted, 10))
	}
	return sb.String()
}

// Neg is -d (same scale).
func (d Dec) Neg() Dec { return Dec{Unscaled: new(big.Int).Neg(d.u()), Scale: d.Scale} }

// Abs is |d| (same scale).
func (d Dec) Abs() Dec { return Dec{Unscaled: new(big.Int).Abs(d.u()), Scale: d.Scale} }

// Add is the exact sum; its scale is the larger scale.
func Add(x, y Dec) Dec {
	a, b := align(x, y)
	return Dec{Unscaled: a.Add(a, b), Scale: max(x.Scale, y.Scale)}
}

// Sub is the exact difference; its scale is the larger scale.
func Sub(x, y Dec) Dec {
	a, b := align(x, y)
	return Dec{Unscaled: a.Sub(a, b), Scale: max(x.Scale, y.Scale)}
}

// Mul is the exact product; its scale is the sum of the scales.
func Mul(x, y Dec) (Dec, error) {
	s := int64(x.Scale) + int64(y.Scale)
	if s < math.MinInt32 || s > math.MaxInt32 {
		return Dec{}, ErrScale
	}
	return Dec{Unscaled: new(big.Int).Mul(x.u(), y.u()), Scale: int32(s)}, nil
}

// Round is d.round(new MathContext(prec, mode)): d unchanged when it has
// at most prec digits, else rounded to prec significant digits.
func Round(d Dec, prec int, mode RoundingMode) (Dec, error) {
	for {
		drop := d.Precision() - prec
		if prec <= 0 || drop <= 0 {
			return d, nil
		}
		s := int64(d.Scale) - int64(drop)
		if s < math.MinInt32 {
			return Dec{}, ErrScale
		}
		d = Dec{Unscaled: divRound(d.u(), pow10(drop), mode), Scale: int32(s)}
		// A carry (999.5 -> 1000) can add a digit: round once more.
	}
}

// DivScale is x.divide(y, scale, mode): the quotient rounded to scale
// fraction digits. A zero divisor fails with the message Java's code
// path gives for these operands.
func DivScale(x, y Dec, scale int32, mode RoundingMode) (Dec, error) {
	if y.Sign() == 0 {
		return Dec{}, divScaleByZero(x, y, scale)
	}
	// x/y × 10^scale = xu × 10^(scale - xs + ys) / yu
	num, den := new(big.Int).Set(x.u()), new(big.Int).Set(y.u())
	e := int64(scale) - int64(x.Scale) + int64(y.Scale)
	if e >= 0 {
		num.Mul(num, pow10(int(e)))
	} else {
		den.Mul(den, pow10(int(-e)))
	}
	return Dec{Unscaled: divRound(num, den, mode), Scale: scale}, nil
}

// divScaleByZero mirrors which division BigDecimal.divide(y, scale, mode)
// reaches with a zero divisor: a long division when the dividend scaled
// to the quotient still fits a long, else a BigInteger one.
func divScaleByZero(x, y Dec, scale int32) error {
	if !compact(x.u()) {
		return ErrBigDivByZero
	}
	raise := int64(scale) + int64(y.Scale) - int64(x.Scale)
	if raise <= 0 {
		raise = int64(x.Scale) - int64(scale) - int64(y.Scale)
		if raise < 19 {
			return ErrDivByZero
		}
		return ErrBigDivByZero
	}
	if raise >= 19 {
		return ErrBigDivByZero
	}
	v := new(big.Int).Mul(x.u(), pow10(int(raise)))
	if !compact(v) {
		return ErrBigDivByZero
	}
	return ErrDivByZero
}

// compact reports a value Java keeps in a long (not Long.MIN_VALUE).
func compact(v *big.Int) bool { return v.IsInt64() && v.Int64() != math.MinInt64 }

// Rem is x.remainder(y): x - y × trunc(x / y), with the scale Java's
// divideToIntegralValue leads to.
func Rem(x, y Dec) (Dec, error) {
	if y.Sign() == 0 {
		if x.Sign() == 0 {
			return Dec{}, ErrDivisionUndefined
		}
		return Dec{}, ErrDivisionByZero
	}
	pref := int64(x.Scale) - int64(y.Scale)
	var q Dec
	if x.Abs().Cmp(y.Abs()) < 0 || x.Sign() == 0 {
		q = Dec{Unscaled: new(big.Int), Scale: clampScale(pref)}
	} else {
		a, b := align(x, y)
		qi := a.Quo(a, b)
		qs := int64(0)
		if pref < 0 {
			tz := trailingZeros(qi)
			strip := min(int64(tz), -pref)
			qi.Quo(qi, pow10(int(strip)))
			qs = -strip
		} else if pref > 0 {
			qi.Mul(qi, pow10(int(pref)))
			qs = pref
		}
		q = Dec{Unscaled: qi, Scale: clampScale(qs)}
	}
	p, err := Mul(q, y)
	if err != nil {
		return Dec{}, err
	}
	return Sub(x, p), nil
}

func clampScale(s int64) int32 {
	return int32(max(math.MinInt32, min(math.MaxInt32, s)))
}

// StripTrailingZeros is BigDecimal.stripTrailingZeros(): zero becomes 0
// with scale 0.
func StripTrailingZeros(d Dec) Dec {
	u := d.u()
	if u.Sign() == 0 {
		return Dec{Unscaled: new(big.Int)}
	}
	tz := trailingZeros(u)
	if s := int64(d.Scale) - int64(tz); s < math.MinInt32 {
		tz = int(int64(d.Scale) - math.MinInt32)
	}
	if tz == 0 {
		return d
	}
	return Dec{Unscaled: new(big.Int).Quo(u, pow10(tz)), Scale: d.Scale - int32(tz)}
}

// align returns the unscaled values of x and y at the larger scale.
func align(x, y Dec) (*big.Int, *big.Int) {
	a, b := new(big.Int).Set(x.u()), new(big.Int).Set(y.u())
	switch {
	case x.Scale < y.Scale:
		a.Mul(a, pow10(int(int64(y.Scale)-int64(x.Scale))))
	case y.Scale < x.Scale:
		b.Mul(b, pow10(int(int64(x.Scale)-int64(y.Scale))))
	}
	return a, b
}

// divRound is n / d rounded by mode.
func divRound(n, d *big.Int, mode RoundingMode) *big.Int {
	q, r := new(big.Int).QuoRem(n, d, new(big.Int))
	if r.Sign() == 0 || mode == Down {
		return q
	}
	// Compare 2|r| with |d|.
	r2 := new(big.Int).Abs(r)
	r2.Lsh(r2, 1)
	c := r2.CmpAbs(d)
	up := c > 0 || (c == 0 && (mode == HalfUp || q.Bit(0) == 1))
	if up {
		if (n.Sign() < 0) != (d.Sign() < 0) {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

var bigTen = big.NewInt(10)

func pow10(n int) *big.Int {
	return new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil)
}

// digits is the number of decimal digits of |v| (1 for 0).
func digits(v *big.Int) int {
	if v.Sign() == 0 {
		return 1
	}
	a := new(big.Int).Abs(v)
	// Estimate from the bit length, then correct.
	n := int(float64(a.BitLen()-1)*math.Log10(2)) + 1
	p := pow10(n)
	for a.Cmp(p) >= 0 {
		n++
		p.Mul(p, bigTen)
	}
	for n > 1 && a.Cmp(p.Quo(p, bigTen)) < 0 {
		n--
	}
	return n
}

// trailingZeros counts the decimal zeros ending v (0 for v == 0).
func trailingZeros(v *big.Int) int {
	if v.Sign() == 0 {
		return 0
	}
	n := 0
	q, r := new(big.Int), new(big.Int)
	cur := new(big.Int).Set(v)
	for {
		q.QuoRem(cur, bigTen, r)
		if r.Sign() != 0 {
			return n
		}
		cur.Set(q)
		n++
	}
}
