package engine

import "math"

// kahan is Cassandra 5.0's sum of floats and doubles
// (AggregateFcts.FloatSumAggregate and FloatAvgAggregate): compensated
// (Kahan) summation in double, the compensation added back at the end,
// and the plain sum when that gives NaN from same-signed infinities. A
// naive sum differs in the last bits (sum(x + -93.799) of a few rows:
// 44421.994999999995 against Cassandra's 44421.995).
//
// Not done: the average's switch to BigDecimal when a finite sum
// overflows to infinity.
type kahan struct {
	sum, comp, simple float64
}

func (k *kahan) add(d float64) {
	k.simple += d
	tmp := d - k.comp
	rounded := k.sum + tmp
	k.comp = (rounded - k.sum) - tmp
	k.sum = rounded
}

func (k *kahan) value() float64 {
	v := k.sum + k.comp
	if math.IsNaN(v) && math.IsInf(k.simple, 0) {
		return k.simple
	}
	return v
}

// kahanAdd adds d to selector i's compensated sum (n selectors).
func (a *aggState) kahanAdd(i, n int, d float64) {
	if a.fk == nil {
		a.fk = make([]kahan, n)
	}
	a.fk[i].add(d)
}

// kahanSum is selector i's compensated sum (0 when nothing was added).
func (a *aggState) kahanSum(i int) float64 {
	if a.fk == nil {
		return 0
	}
	return a.fk[i].value()
}
