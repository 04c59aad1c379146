package engine

// Cassandra 5.0's vector similarity functions, similarity_cosine,
// similarity_euclidean and similarity_dot_product: two vector<float, n>
// arguments of the same dimension, a float result, with the formulas of
// Cassandra's VectorSimilarityFunction (scaled to [0, 1] so that greater is
// more similar): cosine (1 + cos) / 2, euclidean 1 / (1 + d²), dot product
// (1 + a·b) / 2, accumulated in float32 as Cassandra does.

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/dohyo/dohyo/cql"
)

// similarityFuncs maps the function names to their vector metric.
var similarityFuncs = map[string]vectorMetric{
	"similarity_cosine":      metricCosine,
	"similarity_euclidean":   metricEuclidean,
	"similarity_dot_product": metricDotProduct,
}

func init() {
	for n := range similarityFuncs {
		nativeFunctions[n] = resolveSimilarity
	}
}

// vectorMetric is one of the similarity functions an ANN index may use.
type vectorMetric int

const (
	metricCosine vectorMetric = iota
	metricEuclidean
	metricDotProduct
)

// similarity scores a against b (equal lengths); greater is more similar.
func (m vectorMetric) similarity(a, b []float32) float32 {
	switch m {
	case metricEuclidean:
		var d float32
		for i := range a {
			x := a[i] - b[i]
			d += x * x
		}
		return 1 / (1 + d)
	case metricDotProduct:
		var dot float32
		for i := range a {
			dot += a[i] * b[i]
		}
		return (1 + dot) / 2
	}
	var dot, n1, n2 float32
	for i := range a {
		dot += a[i] * b[i]
		n1 += a[i] * a[i]
		n2 += b[i] * b[i]
	}
	cos := float32(float64(dot) / math.Sqrt(float64(n1)*float64(n2)))
	return (1 + cos) / 2
}

// vectorArgError is a similarity function argument that is not a float
// vector; withArgNames names the argument as written.
type vectorArgError struct {
	arg   int
	fname string
	typ   *cql.Type
}

func (e *vectorArgError) Error() string {
	return fmt.Sprintf("Function %s requires a float vector argument, but found argument %d of type %s", e.fname, e.arg, e.typ)
}

// resolveSimilarity resolves similarity_*(a, b). Untyped list literals
// arrive typed as vector<float, len> (see resolveWithLiterals).
func resolveSimilarity(name string, args []*cql.Type) (*fnCall, error) {
	full := "system." + name
	if len(args) != 2 {
		return nil, invalidf("Invalid number of arguments for function %s(vector<float, n>, vector<float, n>)", full)
	}
	var vt *cql.Type
	for i, a := range args {
		if a == nil {
			continue
		}
		if a.Kind != cql.KindVector || a.Elems[0].Kind != cql.KindFloat {
			return nil, &vectorArgError{arg: i, fname: full, typ: a}
		}
		if vt != nil && vt.Dim != a.Dim {
			return nil, invalidf("All arguments must have the same vector dimensions")
		}
		vt = a
	}
	if vt == nil {
		return nil, invalidf("Cannot infer type of argument ? in call to function %s: use type casts to disambiguate", full)
	}
	m := similarityFuncs[name]
	return &fnCall{name: full, params: []*cql.Type{vt, vt}, ret: cql.Scalar(cql.KindFloat),
		impl: func(_ *fnEnv, a [][]byte) ([]byte, error) {
			x, ok1 := cql.VectorFloats(vt, a[0])
			y, ok2 := cql.VectorFloats(vt, a[1])
			if !ok1 || !ok2 {
				return nil, errBadValue
			}
			if m == metricCosine && (allZero(x) || allZero(y)) {
				return nil, invalidf("Function %s doesn't support all-zero vectors.", full)
			}
			return binary.BigEndian.AppendUint32(nil, math.Float32bits(m.similarity(x, y))), nil
		}}, nil
}

func allZero(v []float32) bool {
	for _, f := range v {
		if f != 0 {
			return false
		}
	}
	return true
}

// similarityLiteralType types an untyped argument of a similarity function
// as Cassandra does: a list literal as a float vector of its length, other
// literals by their preferred type (a string is ascii).
func similarityLiteralType(t cql.Term) *cql.Type {
	switch x := t.(type) {
	case *cql.CollectionLit:
		if x.Kind == cql.CollList {
			return cql.VectorOf(cql.Scalar(cql.KindFloat), len(x.Values))
		}
	case *cql.Literal:
		if x.Kind == cql.LitString {
			return cql.Scalar(cql.KindAscii)
		}
		return preferredLiteralType(x)
	}
	return nil
}

// collectionTermString renders a list, set or map literal as written.
func collectionTermString(c *cql.CollectionLit) string {
	parts := make([]string, 0, len(c.Values))
	open, end := "[", "]"
	switch c.Kind {
	case cql.CollSet:
		open, end = "{", "}"
		for _, v := range c.Values {
			parts = append(parts, termString(v))
		}
	case cql.CollMap:
		open, end = "{", "}"
		for i := range c.Keys {
			parts = append(parts, termString(c.Keys[i])+": "+termString(c.Values[i]))
		}
	default:
		for _, v := range c.Values {
			parts = append(parts, termString(v))
		}
	}
	return open + strings.Join(parts, ", ") + end
}
