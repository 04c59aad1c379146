package cql

import (
	"math"
	"strconv"
	"strings"
)

// JavaFloatString renders f as Java's Double.toString (bits 64) or
// Float.toString (bits 32) do, which is how Cassandra prints floating
// point values in JSON, DESCRIBE output and messages, and what a Java
// UDF's string conversion gives: decimal notation for magnitudes in
// [1e-3, 1e7) ("2.0", "0.001"), computerized scientific otherwise
// ("1.5E20", "1.0E-4"), with the shortest digits that round-trip —
// except where Java's FloatingDecimal prints more (an integral double of
// 2^53 or more, see javaLongDigits).
func JavaFloatString(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	if a := math.Abs(f); a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, bits)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, bits)
	if bits == 64 {
		if d, ok := javaLongDigits(f); ok {
			s = d
		}
	}
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}

// javaLongDigits is FloatingDecimal's shortcut for an integral double
// below 2^63 (BinaryToASCIIBuffer.dtoa with nTinyBits 0): the long's own
// digits, of which only the last 1 or 2 are dropped (rounding half up)
// from 2^58 on (insignificantDigitsForPow2), not the shortest digits
// that round-trip: Double.toString(2^55) is 3.6028797018963968E16 and
// (double) 1507930479843341312L prints 1.50793047984334131E18. It
// returns f in Go's 'e' form ("3.6028797018963968e+16").
func javaLongDigits(f float64) (string, bool) {
	a := math.Abs(f)
	if a < 1<<53 || a >= 1<<63 || a != math.Trunc(a) {
		return "", false
	}
	binExp := math.Ilogb(a)
	insignificant := 0
	if p2 := binExp - 53 - 1; p2 > 1 {
		insignificant = []int{0, 0, 0, 0, 1, 1, 1, 2, 2, 2}[p2]
	}
	v := uint64(a)
	exp := 0
	if insignificant > 0 {
		pow10 := uint64(math.Pow10(insignificant))
		residue := v % pow10
		v /= pow10
		exp = insignificant
		if residue >= pow10/2 {
			v++
		}
	}
	digits := strconv.FormatUint(v, 10)
	trimmed := strings.TrimRight(digits, "0")
	exp += len(digits) - 1
	mant := trimmed[:1]
	if len(trimmed) > 1 {
		mant += "." + trimmed[1:]
	}
	if f < 0 {
		mant = "-" + mant
	}
	return mant + "e+" + strconv.Itoa(exp), true
}
