package hbase

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/tsuna/gohbase/hrpc"
	"github.com/tsuna/gohbase/pb"
	"google.golang.org/protobuf/proto"

	"github.com/dohyo/dohyo/engine/kv"
)

// cellBlock encodes cells of row in the KeyValueCodec form a region
// server's cell block has (the form rowPut writes).
func cellBlock(row []byte, cells []kv.Cell) []byte {
	var b []byte
	for i := range cells {
		b = appendKeyValue(b, row, familyBytes, &cells[i])
	}
	return b
}

func decodeGetBlock(b []byte, n int32) (*pb.GetResponse, uint32, error) {
	resp := &pb.GetResponse{Result: &pb.Result{AssociatedCellCount: proto.Int32(n)}}
	g := &hrpc.Get{}
	read, err := g.DeserializeCellBlocks(resp, b)
	return resp, read, err
}

// TestForkCellBlockDecode drives the fork's cell block decoder (patched to
// keep a response's cells in one allocation and to check every length;
// DOHYO-PATCHES.md): well-formed blocks decode to the cells written, every
// truncation and a cell count the block cannot hold are errors, random
// corruption never panics, and a response's cells cost a fixed number of
// allocations whatever their number.
func TestForkCellBlockDecode(t *testing.T) {
	row := []byte("the-row")
	var cells []kv.Cell
	for i := range 11 {
		q := []byte{byte('a' + i)}
		if i == 0 {
			q = []byte{} // the row marker's empty qualifier
		}
		cells = append(cells, kv.Cell{Qualifier: q, Timestamp: int64(1_700_000_000_000_000 + i),
			Value: bytes.Repeat([]byte{byte(i)}, i*30)})
	}
	b := cellBlock(row, cells)
	resp, read, err := decodeGetBlock(b, int32(len(cells)))
	if err != nil || int(read) != len(b) {
		t.Fatalf("decode: read %d of %d, %v", read, len(b), err)
	}
	got := resp.GetResult().GetCell()
	if len(got) != len(cells) {
		t.Fatalf("%d cells, want %d", len(got), len(cells))
	}
	for i, c := range got {
		w := cells[i]
		if !bytes.Equal(c.Row, row) || string(c.Family) != family || !bytes.Equal(c.Qualifier, w.Qualifier) ||
			!bytes.Equal(c.Value, w.Value) || c.GetTimestamp() != uint64(w.Timestamp) || c.GetCellType() != pb.CellType_PUT {
			t.Fatalf("cell %d = %v, want %q %q @%d", i, c, w.Qualifier, w.Value, w.Timestamp)
		}
	}
	// A field's capacity ends with it: appending to one leaves the next
	// cell's bytes alone.
	before := bytes.Clone(b)
	for _, c := range got {
		for _, f := range [][]byte{c.Row, c.Family, c.Qualifier, c.Value} {
			_ = append(f, 0xff, 0xff, 0xff, 0xff)
		}
	}
	if !bytes.Equal(b, before) {
		t.Fatal("appending to a decoded cell's field overwrote the response buffer")
	}
	for cut := range len(b) {
		if _, _, err := decodeGetBlock(b[:cut], int32(len(cells))); err == nil {
			t.Fatalf("a block cut to %d of %d bytes decoded", cut, len(b))
		}
	}
	if _, _, err := decodeGetBlock(b, 1<<30); err == nil {
		t.Fatal("a cell count of 2^30 in a block of a few hundred bytes decoded")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		c := bytes.Clone(b)
		for range 1 + rng.IntN(4) {
			c[rng.IntN(len(c))] = byte(rng.Uint32())
		}
		decodeGetBlock(c, int32(len(cells))) // must not panic
	}
	res := &pb.GetResponse{Result: &pb.Result{AssociatedCellCount: proto.Int32(int32(len(cells)))}}
	g := &hrpc.Get{}
	allocs := testing.AllocsPerRun(100, func() {
		res.Result.Cell = nil
		if _, err := g.DeserializeCellBlocks(res, b); err != nil {
			t.Fatal(err)
		}
	})
	// The cells' pointers and the cells themselves; it was three per cell
	// and one more before the patch.
	if allocs > 2 {
		t.Fatalf("%v allocations to decode %d cells", allocs, len(cells))
	}
}
