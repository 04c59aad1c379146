package engine

import (
	"encoding/binary"

	"github.com/dohyo/dohyo/cql"
)

// Vectors in keys order element by element, as Cassandra orders them: a
// vector<T, n> key component is encoded as the tuple of its n elements
// (which are never null) and decoded back.

// vectorAsTuple is the tuple type with t's elements.
func vectorAsTuple(t *cql.Type) *cql.Type {
	elems := make([]*cql.Type, t.Dim)
	for i := range elems {
		elems[i] = t.Elems[0]
	}
	return cql.TupleOf(elems...)
}

func (e *compEncoder) appendVector(dst []byte, t *cql.Type, v []byte) ([]byte, error) {
	items, err := cql.SplitVector(t, v)
	if err != nil {
		return nil, badValue(t, "%v", err)
	}
	size := 0
	for _, it := range items {
		size += 4 + len(it)
	}
	tb := make([]byte, 0, size)
	for _, it := range items {
		tb = binary.BigEndian.AppendUint32(tb, uint32(len(it)))
		tb = append(tb, it...)
	}
	return e.appendTuple(dst, vectorAsTuple(t), tb)
}

func (d *compDecoder) decodeVector(t *cql.Type, out []byte) ([]byte, error) {
	start := len(out)
	out, err := d.decodeTuple(vectorAsTuple(t), out)
	if err != nil {
		return nil, err
	}
	tb := append([]byte(nil), out[start:]...)
	items := make([][]byte, 0, t.Dim)
	for len(tb) > 0 {
		el, rest, ok := readElem(tb)
		if !ok || el == nil {
			return nil, corrupt("bad vector key component")
		}
		items = append(items, el)
		tb = rest
	}
	if len(items) != t.Dim {
		return nil, corrupt("vector key component of the wrong dimension")
	}
	return append(out[:start], cql.BuildVector(t.Elems[0], items)...), nil
}
