// Package bigdec is arbitrary-precision decimal arithmetic with the
// semantics of java.math.BigDecimal: a value is an unscaled integer and a
// scale (unscaled × 10^-scale), and every operation chooses the result's
// scale as Java does (1.50 + 1 is 2.50, 1.5 × 2.0 is 3.00). Cassandra's
// decimal type is a BigDecimal, so dohyo's wide-column engine computes
// decimal sums, averages, operators and math functions with this package
// to give the same digits and scale as Cassandra does.
//
// Only what Cassandra uses is here: exact addition, subtraction and
// multiplication, rounding to a precision (MathContext), division to a
// given scale, remainder, stripping trailing zeros, and exp/ln/log10 to a
// precision, rounded half-even.
package bigdec
