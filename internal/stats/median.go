package stats

import (
	"math"
	"slices"
)

// Median is the median of xs: the middle value, or the mean of the two
// middle values when there is an even number of them; NaN when xs is
// empty. xs is not modified.
func Median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return MedianSorted(s)
}

// MedianSorted is Median of values already sorted in ascending order.
func MedianSorted(s []float64) float64 {
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
