package engine

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/dohyo/dohyo/cql"
)

// TestKeyCodecMatchesCQLCompare checks the key encoding against the value
// layer's comparator (cql.Compare), which the executor uses for sets, map
// keys and filtering: both must agree with Cassandra, so with each other.
func TestKeyCodecMatchesCQLCompare(t *testing.T) {
	types := map[string]*cql.Type{}
	for _, ty := range testKeyTypes() {
		types[ty.String()] = ty
	}
	// Cassandra's own answers first.
	for _, blk := range readGoldenOrder(t) {
		ty := types[blk.ty]
		for i, a := range blk.values {
			for j, b := range blk.values {
				want := map[byte]int{'-': -1, '0': 0, '+': 1}[blk.signs[i][j]]
				if got := sign(cql.Compare(ty, a, b)); got != want {
					t.Errorf("cql.Compare(%s, %x, %x) = %d, Cassandra says %d", blk.ty, a, b, got, want)
				}
			}
		}
	}
	// Then generated pairs against the key order.
	r := rand.New(rand.NewPCG(9, 9))
	for _, ty := range testKeyTypes() {
		for i := 0; i < 2000; i++ {
			a, b := genValue(r, ty, true), genValue(r, ty, true)
			want := sign(cql.Compare(ty, a, b))
			ka, kb := encodeOne(t, ty, a, false), encodeOne(t, ty, b, false)
			got := sign(bytes.Compare(ka, kb))
			if want != 0 && got != want || want == 0 && got != 0 && bytes.Equal(a, b) {
				t.Errorf("%s: key order of %x, %x is %d, cql.Compare says %d", ty, a, b, got, want)
			}
		}
	}
}
