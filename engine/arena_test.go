package engine

import (
	"bytes"
	"testing"

	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/engine/kv"
)

// TestMutBuilderLiveArena: values handed out from the builder's arena
// decode to what was written and stay intact while later values fill the
// arena and spill past it (TTL and plain cells mixed).
func TestMutBuilderLiveArena(t *testing.T) {
	var mb mutBuilder
	type want struct {
		c    kv.Cell
		data []byte
		ttl  int32
	}
	var got []want
	for i := 0; i < 40; i++ {
		data := bytes.Repeat([]byte{byte('a' + i%26)}, i*7) // 0..273 bytes: spills
		wp := writeParams{ts: int64(i), now: 1000}
		if i%3 == 0 {
			wp.ttl = int32(i + 1)
		}
		got = append(got, want{mb.live([]byte{byte(i)}, wp, data), data, wp.ttl})
	}
	for i, w := range got {
		if !bytes.Equal(w.c.Value, liveCell(w.c.Qualifier, writeParams{ts: int64(i), ttl: w.ttl, now: 1000}, w.data).Value) {
			t.Fatalf("cell %d: value %x differs from liveCell's", i, w.c.Value)
		}
		v, err := kv.DecodeCellValue(w.c.Value)
		if err != nil || !bytes.Equal(v.Data, w.data) || v.TTL != w.ttl || w.c.Timestamp != int64(i) {
			t.Fatalf("cell %d: decoded %+v, %v", i, v, err)
		}
		if cap(w.c.Value) != len(w.c.Value) {
			t.Fatalf("cell %d: value has spare capacity %d: an append would overwrite its neighbour", i, cap(w.c.Value)-len(w.c.Value))
		}
	}
}

// TestExecCtxPartitionKeyArena: keys from the context's arena equal the
// codec's own, stay intact as the arena fills and overflows, and cannot be
// appended to in place.
func TestExecCtxPartitionKeyArena(t *testing.T) {
	c, err := NewKeyCodec([]*cql.Type{cql.Scalar(cql.KindText)}, nil, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ti := &tableInfo{codec: c}
	x := &execCtx{}
	var keys, pks [][]byte
	for i := 0; i < 12; i++ {
		pk := [][]byte{bytes.Repeat([]byte{byte('k' + i)}, (i+1)*3)}
		k, err := x.partitionKey(ti, pk)
		if err != nil {
			t.Fatal(err)
		}
		if cap(k) != len(k) {
			t.Fatalf("key %d has spare capacity", i)
		}
		keys, pks = append(keys, k), append(pks, pk[0])
	}
	for i, k := range keys {
		want, err := c.PartitionKey([][]byte{pks[i]})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(k, want) {
			t.Fatalf("key %d: %x, want %x", i, k, want)
		}
	}
}
