package engine

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/dohyo/dohyo/cql"
)

// TestKeyCodecVectors checks vector key components: they order element by
// element (as Cassandra orders them, scenario "vector in the primary key"),
// in both directions, and decode back to the same bytes.
func TestKeyCodecVectors(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, ty := range []*cql.Type{
		cql.VectorOf(cql.Scalar(cql.KindFloat), 3),
		cql.VectorOf(cql.Scalar(cql.KindText), 2),
		cql.VectorOf(cql.Scalar(cql.KindVarint), 2),
	} {
		for _, desc := range []bool{false, true} {
			c, err := NewKeyCodec([]*cql.Type{cql.Scalar(cql.KindInt)}, []*cql.Type{ty}, []bool{desc}, 0)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 1000; i++ {
				a, b := genValue(r, ty, false), genValue(r, ty, false)
				ka, kb := encodeOne(t, ty, a, desc), encodeOne(t, ty, b, desc)
				want := sign(refCompare(ty, a, b))
				if desc {
					want = -want
				}
				if got := sign(bytes.Compare(ka, kb)); want != 0 && got != want {
					t.Fatalf("%s desc=%v: key order of %x, %x is %d, want %d", ty, desc, a, b, got, want)
				}
				_, ck, err := c.DecodeRowKey(ka)
				if err != nil || !bytes.Equal(ck[0], a) {
					t.Fatalf("%s: decode %x: got %x, %v", ty, a, ck, err)
				}
			}
		}
	}
	// A malformed vector is refused, not stored.
	c, _ := NewKeyCodec([]*cql.Type{cql.Scalar(cql.KindInt)}, []*cql.Type{cql.VectorOf(cql.Scalar(cql.KindFloat), 2)}, []bool{false}, 0)
	if _, err := c.RowKey([][]byte{{0, 0, 0, 1}}, [][]byte{make([]byte, 4)}); err == nil {
		t.Error("short vector key accepted")
	}
}
