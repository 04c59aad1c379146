package engine

// Decimal and varint sums and averages (aggregates and collection_sum/
// collection_avg) and the decimal math functions, with Cassandra 5.0's
// BigDecimal arithmetic (internal/bigdec). Kept apart from the other
// aggregates so that their state is allocated only when a decimal or
// varint is aggregated.

import (
	"errors"
	"math/big"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/internal/bigdec"
)

// minDecimalDigits is the least precision of Cassandra's decimal exp,
// log and log10 (DecimalType's MIN_SIGNIFICANT_DIGITS).
const minDecimalDigits = 32

// maxDecimalDigits is the precision of Cassandra's decimal +, - and ×
// (DecimalType's MAX_PRECISION, rounded half-up).
const maxDecimalDigits = 10000

func decOf(d cql.Decimal) bigdec.Dec { return bigdec.New(d.Unscaled, d.Scale) }

func decBytes(d bigdec.Dec) ([]byte, error) {
	u := d.Unscaled
	if u == nil {
		u = new(big.Int)
	}
	return cql.EncodeGo(cql.Scalar(cql.KindDecimal), cql.Decimal{Unscaled: u, Scale: d.Scale})
}

func decodeDec(b []byte) (bigdec.Dec, error) {
	v, err := cql.DecodeGo(cql.Scalar(cql.KindDecimal), b)
	if err != nil {
		return bigdec.Dec{}, err
	}
	d, ok := v.(cql.Decimal)
	if !ok {
		return bigdec.Dec{}, errBadValue
	}
	return decOf(d), nil
}

// bigSum accumulates sum() or avg() of decimals (AggregateFcts' running
// average: avg += (x - avg) / n at the scale of x - avg, half-even) or of
// varints (an exact sum, the average truncated).
type bigSum struct {
	dec   bigdec.Dec // decimal sum, or running average
	bi    *big.Int   // varint sum
	count int64
}

func (s *bigSum) add(k cql.Kind, avg bool, v []byte) error {
	s.count++
	if k == cql.KindVarint {
		n, err := cql.DecodeGo(cql.Scalar(cql.KindVarint), v)
		if err != nil {
			return err
		}
		bi, ok := n.(*big.Int)
		if !ok {
			return errBadValue
		}
		if s.bi == nil {
			s.bi = new(big.Int)
		}
		s.bi.Add(s.bi, bi)
		return nil
	}
	x, err := decodeDec(v)
	if err != nil {
		return err
	}
	if !avg {
		s.dec = bigdec.Add(s.dec, x)
		return nil
	}
	diff := bigdec.Sub(x, s.dec)
	step, err := bigdec.DivScale(diff, bigdec.FromInt64(s.count), diff.Scale, bigdec.HalfEven)
	if err != nil {
		return err
	}
	s.dec = bigdec.Add(s.dec, step)
	return nil
}

// result is the sum or average (0 over no values, as Cassandra).
func (s *bigSum) result(k cql.Kind, avg bool) ([]byte, error) {
	if k == cql.KindVarint {
		v := new(big.Int)
		if s.bi != nil {
			v.Set(s.bi)
		}
		if avg && s.count > 0 {
			v.Quo(v, big.NewInt(s.count))
		}
		return cql.EncodeGo(cql.Scalar(cql.KindVarint), v)
	}
	return decBytes(s.dec)
}

// bigNumberKind reports the kinds bigSum aggregates.
func bigNumberKind(k cql.Kind) bool { return k == cql.KindVarint || k == cql.KindDecimal }

// collectionBigSum is collection_sum/collection_avg of varints or
// decimals: the aggregate over the elements.
func collectionBigSum(k cql.Kind, items [][]byte, avg bool) ([]byte, error) {
	var s bigSum
	for _, it := range items {
		if err := s.add(k, avg, it); err != nil {
			return nil, err
		}
	}
	return s.result(k, avg)
}

// decimalMath is exp, log or log10 of a decimal: big-math's functions to
// max(32, precision) digits, half-even; the logarithm of zero or less
// fails with Cassandra's message.
func decimalMath(name string, b []byte) ([]byte, error) {
	x, err := decodeDec(b)
	if err != nil {
		return nil, err
	}
	prec := min(max(minDecimalDigits, x.Precision()), maxDecimalDigits)
	var r bigdec.Dec
	switch name {
	case "exp":
		r, err = bigdec.Exp(x, prec)
	case "log":
		r, err = bigdec.Ln(x, prec)
	default:
		r, err = bigdec.Log10(x, prec)
	}
	if errors.Is(err, bigdec.ErrLogDomain) {
		what := "Natural log"
		if name == "log10" {
			what = "Log10"
		}
		return nil, bindings.Errorf(bindings.CodeServerError, "java.lang.ArithmeticException: %s of number zero or less", what)
	}
	if err != nil {
		return nil, bindings.Errorf(bindings.CodeFunctionFail, "execution of 'system.%s' failed: %v", name, err)
	}
	return decBytes(r)
}

// addBig adds a decimal or varint to selector i's sum; a failure fails the
// query.
func (a *aggState) addBig(i, n int, k cql.Kind, avg bool, v []byte) {
	if a.big == nil {
		a.big = make([]bigSum, n)
	}
	if err := a.big[i].add(k, avg, v); err != nil && a.env != nil {
		a.env.fail(err)
	}
}

func (a *aggState) bigResult(i int, k cql.Kind, avg bool) []byte {
	var s bigSum
	if a.big != nil {
		s = a.big[i]
	}
	b, err := s.result(k, avg)
	if err != nil && a.env != nil {
		a.env.fail(err)
	}
	return b
}
