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
// ("1.5E20", "1.0E-4"), with the shortest digits that round-trip.
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
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}
