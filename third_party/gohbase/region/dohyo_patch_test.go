package region

// dohyo patch: tests of the hand-written RPC headers (wire.go) against the
// protobuf library, run by dohyo's `make test`.

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/tsuna/gohbase/pb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// TestAppendRequestHeader: the header written by hand is what
// proto.Marshal writes for the same RequestHeader, for call ids and cell
// block lengths of every varint width, with and without a cell block.
func TestAppendRequestHeader(t *testing.T) {
	ids := []uint32{0, 1, 127, 128, 1 << 14, 1 << 21, 1 << 28, 1<<32 - 1}
	for _, id := range ids {
		for _, method := range []string{"Get", "Mutate", "Multi", "", string(bytes.Repeat([]byte("m"), 200))} {
			for _, meta := range []bool{false, true} {
				for _, cellLen := range []uint32{0, 300, 1<<32 - 1} {
					h := &pb.RequestHeader{CallId: proto.Uint32(id), MethodName: proto.String(method), RequestParam: proto.Bool(true)}
					if meta {
						h.CellBlockMeta = &pb.CellBlockMeta{Length: proto.Uint32(cellLen)}
					}
					m, err := proto.MarshalOptions{Deterministic: true}.Marshal(h)
					if err != nil {
						t.Fatal(err)
					}
					want := protowire.AppendBytes([]byte{9}, m)
					got := appendRequestHeader([]byte{9}, id, method, meta, cellLen)
					if !bytes.Equal(got, want) {
						t.Fatalf("%v:\n got % x\nwant % x", h, got, want)
					}
					if room := requestHeaderRoom(method); len(got)-1 > room {
						t.Fatalf("%v: %d bytes, more than the %d send leaves for it", h, len(got)-1, room)
					}
				}
			}
		}
	}
}

// TestDecodeResponseHeader: plain headers (a call id and a cell block
// length) are decoded by hand; exceptions and unknown fields through
// proto.Unmarshal; and for 50,000 random corruptions of valid headers,
// whatever the hand decoding accepts decodes as proto.Unmarshal decodes
// it.
func TestDecodeResponseHeader(t *testing.T) {
	headers := []*pb.ResponseHeader{
		{CallId: proto.Uint32(7)},
		{CallId: proto.Uint32(1 << 30), CellBlockMeta: &pb.CellBlockMeta{Length: proto.Uint32(12345)}},
		{CallId: proto.Uint32(3), CellBlockMeta: &pb.CellBlockMeta{}},
		{CellBlockMeta: &pb.CellBlockMeta{Length: proto.Uint32(1)}},
		{CallId: proto.Uint32(9), Exception: &pb.ExceptionResponse{ExceptionClassName: proto.String("x.Y"), StackTrace: proto.String("at z")}},
	}
	var seeds [][]byte
	for i, h := range headers {
		b, err := proto.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, b)
		if _, fast := decodeResponseHeaderFast(b); fast != (h.Exception == nil) {
			t.Fatalf("header %d (%v): decoded by hand %v", i, h, fast)
		}
		same(t, b)
	}
	// An unknown field goes to proto.Unmarshal, and is decoded all the same.
	b := protowire.AppendVarint(protowire.AppendTag(append([]byte(nil), seeds[1]...), 15, protowire.VarintType), 1)
	if _, fast := decodeResponseHeaderFast(b); fast {
		t.Fatal("a header with an unknown field was decoded by hand")
	}
	same(t, b)

	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 50_000; i++ {
		b := append([]byte(nil), seeds[rng.IntN(len(seeds))]...)
		for n := 1 + rng.IntN(3); n > 0 && len(b) > 0; n-- {
			switch rng.IntN(3) {
			case 0:
				b[rng.IntN(len(b))] = byte(rng.Uint32())
			case 1:
				b = b[:rng.IntN(len(b))]
			case 2:
				i := rng.IntN(len(b) + 1)
				b = append(b[:i], append([]byte{byte(rng.Uint32())}, b[i:]...)...)
			}
		}
		if _, fast := decodeResponseHeaderFast(b); fast {
			same(t, b)
		}
	}
}

// same checks that decodeResponseHeader reads b as proto.Unmarshal does.
func same(t *testing.T, b []byte) {
	t.Helper()
	got, err := decodeResponseHeader(b)
	var h pb.ResponseHeader
	perr := proto.Unmarshal(b, &h)
	if (err != nil) != (perr != nil) {
		t.Fatalf("% x: error %v, proto.Unmarshal %v", b, err, perr)
	}
	if err != nil {
		return
	}
	want := responseHeader{exception: h.Exception, cellLen: h.GetCellBlockMeta().GetLength()}
	if h.CallId != nil {
		want.callID, want.hasCallID = *h.CallId, true
	}
	if got.callID != want.callID || got.hasCallID != want.hasCallID || got.cellLen != want.cellLen ||
		!proto.Equal(got.exception, want.exception) {
		t.Fatalf("% x: decoded %+v, proto.Unmarshal %+v", b, got, want)
	}
}
