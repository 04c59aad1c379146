package hbase

import (
	"bytes"
	"sync/atomic"
	"testing"

	"github.com/tsuna/gohbase/hrpc"
	"github.com/tsuna/gohbase/pb"
	"google.golang.org/protobuf/proto"

	"github.com/dohyo/dohyo/engine/kv"
)

// cellBlockGet is a Get that records whether the region client decoded
// cells from its response's cell block.
type cellBlockGet struct {
	*hrpc.Get
	fromBlock atomic.Bool
}

func (g *cellBlockGet) DeserializeCellBlocks(m proto.Message, b []byte) (uint32, error) {
	g.fromBlock.Store(true)
	return g.Get.DeserializeCellBlocks(m, b)
}

// TestGetCellsInCellBlock: a real region server answers the store's point
// Get with the row's cells in the response's cell block, not as protobuf
// Cells. HBase does so only for clients announcing version 1.3 or later in
// their connection header (the fork's regionClientVersion,
// DOHYO-PATCHES.md); without it this test sees protobuf cells and fails.
func TestGetCellsInCellBlock(t *testing.T) {
	s := openTestStore(t)
	defer s.Close()
	ctx := t.Context()
	ts, drop := testTable(t, s, "cellblock")
	defer drop()
	k := []byte("row")
	want := []kv.Cell{liveCell("a", 7, "first"), liveCell("b", 7, "second")}
	if err := s.Apply(ctx, []kv.Mutation{{Table: ts, Row: k, Cells: want}}); err != nil {
		t.Fatal(err)
	}
	_, table := s.names.of(ts)
	for _, batched := range []bool{false, true} {
		var opts []func(hrpc.Call) error
		if !batched {
			opts = append(opts, hrpc.SkipBatch())
		}
		g, err := hrpc.NewGet(ctx, table, k, opts...)
		if err != nil {
			t.Fatal(err)
		}
		cg := &cellBlockGet{Get: g}
		msg, err := s.rpc.SendRPC(cg)
		if err != nil {
			t.Fatal(err)
		}
		if !batched && !cg.fromBlock.Load() {
			t.Error("the region server sent the Get's cells as protobuf, not in a cell block")
		}
		got := msg.(*pb.GetResponse).GetResult().GetCell()
		if len(got) != len(want) {
			t.Fatalf("batched %v: %d cells, want %d", batched, len(got), len(want))
		}
		for i, c := range got {
			if !bytes.Equal(c.Qualifier, want[i].Qualifier) || !bytes.Equal(c.Value, want[i].Value) ||
				c.GetTimestamp() != uint64(want[i].Timestamp) {
				t.Errorf("batched %v: cell %d = %q %q @%d, want %q %q @%d", batched, i,
					c.Qualifier, c.Value, c.GetTimestamp(), want[i].Qualifier, want[i].Value, want[i].Timestamp)
			}
		}
	}
}
