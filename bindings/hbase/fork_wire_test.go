package hbase

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tsuna/gohbase/filter"
	"github.com/tsuna/gohbase/hrpc"
	"github.com/tsuna/gohbase/pb"
	"github.com/tsuna/gohbase/region"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/dohyo/dohyo/engine/kv"
)

// The tests in this file check the fork's hand-written RPC encoding
// (third_party/gohbase region/wire.go and hrpc/wire.go, DOHYO-PATCHES.md)
// against the protobuf library: the bytes written are the bytes
// proto.Marshal writes, and whatever the hand decoding accepts decodes as
// proto.Unmarshal decodes it.

// wantDelimited is what proto.Marshal (deterministic, field order) writes
// for m, preceded by its length.
func wantDelimited(t testing.TB, m proto.Message) []byte {
	t.Helper()
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return protowire.AppendBytes(nil, b)
}

// TestForkGetRequestEncoding: for every Get shape the hand encoding covers
// (row keys and region names of several lengths, each query option alone
// and combined at random), AppendProto writes ToProto's GetRequest byte
// for byte; for the shapes it does not cover it declines and leaves the
// buffer alone.
func TestForkGetRequestEncoding(t *testing.T) {
	ctx := t.Context()
	from, to := time.UnixMilli(1_700_000_000_000), time.UnixMilli(1_800_000_000_000)
	options := []func(hrpc.Call) error{
		hrpc.MaxVersions(3), hrpc.MaxVersions(1 << 20), hrpc.TimeRange(from, to),
		hrpc.TimeRange(time.UnixMilli(0), to), hrpc.MaxResultsPerColumnFamily(7),
		hrpc.ResultOffset(300), hrpc.CacheBlocks(false), hrpc.SkipBatch(),
		hrpc.Consistency(hrpc.TimelineConsistency), hrpc.Consistency(hrpc.StrongConsistency),
	}
	regions := [][]byte{[]byte("t,,1.fake."), bytes.Repeat([]byte("r"), 200)}
	keys := [][]byte{[]byte("k"), {}, bytes.Repeat([]byte{0xff}, 300)}
	check := func(name string, key, regionName []byte, opts ...func(hrpc.Call) error) {
		t.Helper()
		g, err := hrpc.NewGet(ctx, []byte("t"), key, opts...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		g.SetRegion(region.NewInfo(0, nil, []byte("t"), regionName, nil, nil))
		got, ok := g.AppendProto([]byte{0xAA})
		if !ok {
			t.Fatalf("%s: AppendProto declined a Get it covers", name)
		}
		if want := append([]byte{0xAA}, wantDelimited(t, g.ToProto())...); !bytes.Equal(got, want) {
			t.Fatalf("%s:\n got % x\nwant % x", name, got, want)
		}
	}
	for _, k := range keys {
		for _, r := range regions {
			check("plain", k, r)
			for i, o := range options {
				check("option "+string(rune('a'+i)), k, r, o)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		var opts []func(hrpc.Call) error
		for _, o := range options {
			if rng.IntN(3) == 0 {
				opts = append(opts, o)
			}
		}
		check("combination "+string(rune('0'+i%10)), keys[rng.IntN(len(keys))], regions[rng.IntN(len(regions))], opts...)
	}

	// Shapes left to ToProto: families, a filter, no row key.
	mustGet := func(key []byte, opts ...func(hrpc.Call) error) *hrpc.Get {
		g, err := hrpc.NewGet(ctx, []byte("t"), key, opts...)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	for name, g := range map[string]*hrpc.Get{
		"families": mustGet([]byte("k"), hrpc.Families(map[string][]string{"f": {"q"}})),
		"filter":   mustGet([]byte("k"), hrpc.Filters(filter.NewFirstKeyOnlyFilter())),
		"nil key":  mustGet(nil),
	} {
		g.SetRegion(region.NewInfo(0, nil, []byte("t"), regions[0], nil, nil))
		if b, ok := g.AppendProto([]byte{1}); ok || !bytes.Equal(b, []byte{1}) {
			t.Fatalf("%s: AppendProto = % x, %v; want it declined", name, b, ok)
		}
	}
}

// TestForkPutEncoding: a Put's request message and cell block, written by
// AppendCellBlockRequest and AppendCellBlock into the send buffer, are the
// bytes of SerializeCellBlocks' message (as proto.Marshal writes it) and
// block, for rows, region names and cell counts whose lengths need one- and
// two-byte varints; without a region the Put declines.
func TestForkPutEncoding(t *testing.T) {
	ctx := t.Context()
	cell := func(q string, v int) kv.Cell {
		return kv.Cell{Qualifier: []byte(q), Timestamp: int64(v) << 20, Value: bytes.Repeat([]byte("v"), v)}
	}
	var many []kv.Cell
	for i := range 200 {
		many = append(many, cell(string(rune('a'+i%26))+string(rune('a'+i/26)), i))
	}
	rows := [][]byte{[]byte("r"), bytes.Repeat([]byte{0}, 200)}
	names := [][]byte{[]byte("t,,1.fake."), bytes.Repeat([]byte("n"), 300)}
	for _, cells := range [][]kv.Cell{nil, {cell("q", 3)}, {cell("", 0), cell("x", 200)}, many} {
		for _, row := range rows {
			for _, name := range names {
				p, err := newRowPut(ctx, []byte("t"), row, cells, true)
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := p.CellBlockLen(); ok {
					t.Fatal("CellBlockLen without a region: ok")
				}
				p.SetRegion(region.NewInfo(0, nil, []byte("t"), name, nil, nil))
				req, blocks, n := p.SerializeCellBlocks()
				got, ok := p.CellBlockLen()
				if !ok || got != n || len(blocks) != 1 || int(n) != len(blocks[0]) {
					t.Fatalf("CellBlockLen %d, %v; SerializeCellBlocks %d bytes in %d blocks", got, ok, n, len(blocks))
				}
				if b, want := p.AppendCellBlockRequest([]byte{7}), append([]byte{7}, wantDelimited(t, req)...); !bytes.Equal(b, want) {
					t.Fatalf("%d cells, row of %d, region name of %d:\n got % x\nwant % x", len(cells), len(row), len(name), b, want)
				}
				if b := p.AppendCellBlock([]byte{7}); !bytes.Equal(b, append([]byte{7}, blocks[0]...)) {
					t.Fatalf("%d cells: cell block differs", len(cells))
				}
			}
		}
	}
}

// TestForkGetResponseDecoding: the responses a region server sends a
// client that takes cells in cell blocks (a Result with a cell count and
// flags, or none) are decoded by hand exactly as proto.Unmarshal decodes
// them; responses with cells in the message, unknown or repeated fields,
// or damage are declined (proto.Unmarshal then decides).
func TestForkGetResponseDecoding(t *testing.T) {
	yes, no := proto.Bool(true), proto.Bool(false)
	accepted := []*pb.GetResponse{
		{},
		{Result: &pb.Result{}},
		{Result: &pb.Result{AssociatedCellCount: proto.Int32(2)}},
		{Result: &pb.Result{AssociatedCellCount: proto.Int32(0), Stale: no, Partial: no}},
		{Result: &pb.Result{AssociatedCellCount: proto.Int32(1 << 30), Exists: yes, Stale: yes, Partial: yes}},
		{Result: &pb.Result{AssociatedCellCount: proto.Int32(-1)}},
		{Result: &pb.Result{Exists: no}},
	}
	for _, m := range accepted {
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := (&hrpc.Get{}).DecodeResponse(b)
		if !ok {
			t.Fatalf("%v: declined", m)
		}
		if !proto.Equal(got, m) {
			t.Fatalf("decoded %v, want %v", got, m)
		}
	}
	withCells, _ := proto.Marshal(&pb.GetResponse{Result: &pb.Result{Cell: []*pb.Cell{{Row: []byte("r")}}}})
	count, _ := proto.Marshal(&pb.Result{AssociatedCellCount: proto.Int32(1)})
	declined := map[string][]byte{
		"cells in the message": withCells,
		"unknown field":        protowire.AppendVarint(protowire.AppendTag(nil, 7, protowire.VarintType), 1),
		"cell as a varint":     protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 1)),
		"unknown result field": protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), protowire.AppendVarint(protowire.AppendTag(nil, 9, protowire.VarintType), 1)),
		"two results":          append(protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), count), protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), count)...),
		"repeated count":       protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), append(count, count...)),
		"cut":                  protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), count)[:3],
	}
	for name, b := range declined {
		if m, ok := (&hrpc.Get{}).DecodeResponse(b); ok {
			t.Fatalf("%s: decoded as %v; want it declined", name, m)
		}
		if m, ok := (&hrpc.Mutate{}).DecodeResponse(b); ok {
			t.Fatalf("%s: decoded as a MutateResponse %v; want it declined", name, m)
		}
	}

	// MutateResponses: the same Results, and the processed flag.
	for _, m := range []*pb.MutateResponse{
		{}, {Processed: yes}, {Processed: no}, {Result: &pb.Result{}, Processed: yes},
		{Result: &pb.Result{AssociatedCellCount: proto.Int32(0), Stale: no}},
	} {
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := (&hrpc.Mutate{}).DecodeResponse(b)
		if !ok || !proto.Equal(got, m) {
			t.Fatalf("%v: decoded %v, %v", m, got, ok)
		}
	}
	twice := protowire.AppendVarint(protowire.AppendTag(protowire.AppendVarint(protowire.AppendTag(nil, 2, protowire.VarintType), 1), 2, protowire.VarintType), 0)
	if m, ok := (&hrpc.Mutate{}).DecodeResponse(twice); ok {
		t.Fatalf("processed twice: decoded as %v", m)
	}
	if m, ok := (&hrpc.Get{}).DecodeResponse(twice[:2]); ok {
		t.Fatalf("a GetResponse with field 2: decoded as %v", m)
	}
}

// FuzzGetResponseDecode: whatever the hand decoding of a GetResponse or a
// MutateResponse accepts, proto.Unmarshal accepts and decodes to an equal
// message.
func FuzzGetResponseDecode(f *testing.F) {
	for _, m := range []*pb.GetResponse{{}, {Result: &pb.Result{AssociatedCellCount: proto.Int32(3), Exists: proto.Bool(true)}},
		{Result: &pb.Result{Cell: []*pb.Cell{{Row: []byte("r"), Value: []byte("v")}}, Stale: proto.Bool(true)}}} {
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{0x10, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, c := range []struct {
			decode func([]byte) (proto.Message, bool)
			want   proto.Message
		}{
			{(&hrpc.Get{}).DecodeResponse, &pb.GetResponse{}},
			{(&hrpc.Mutate{}).DecodeResponse, &pb.MutateResponse{}},
		} {
			got, ok := c.decode(b)
			if !ok {
				continue
			}
			if err := proto.Unmarshal(b, c.want); err != nil {
				t.Fatalf("hand decoding accepted % x, proto.Unmarshal: %v", b, err)
			}
			if !proto.Equal(got, c.want) {
				t.Fatalf("% x: hand %v, proto %v", b, got, c.want)
			}
		}
	})
}

// rawRequest is one request as a region server reads it.
type rawRequest struct {
	header              pb.RequestHeader
	headerRaw, body     []byte // the header's and the request's bytes
	cellBlock, frameRaw []byte
}

func readRawRequest(r io.Reader) (*rawRequest, error) {
	var sz [4]byte
	if _, err := io.ReadFull(r, sz[:]); err != nil {
		return nil, err
	}
	b := make([]byte, binary.BigEndian.Uint32(sz[:]))
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, err
	}
	q := &rawRequest{frameRaw: b}
	var n, m int
	if q.headerRaw, n = protowire.ConsumeBytes(b); n < 0 {
		return nil, protowire.ParseError(n)
	}
	if q.body, m = protowire.ConsumeBytes(b[n:]); m < 0 {
		return nil, protowire.ParseError(m)
	}
	q.cellBlock = b[n+m:]
	return q, proto.Unmarshal(q.headerRaw, &q.header)
}

// frameResponse frames a response: header, then (unless nil) the response
// message, then the cell block.
func frameResponse(header []byte, msg proto.Message, cellBlock []byte) ([]byte, error) {
	body := protowire.AppendBytes(nil, header)
	if msg != nil {
		m, err := proto.Marshal(msg)
		if err != nil {
			return nil, err
		}
		body = protowire.AppendBytes(body, m)
	}
	body = append(body, cellBlock...)
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...), nil
}

// frameGetBlockResponse frames the answer of a region server to a client
// announcing 1.3 or later: one cell of row with value, in the cell block.
func frameGetBlockResponse(id uint32, row, value []byte) ([]byte, error) {
	block := cellBlock(row, []kv.Cell{{Qualifier: []byte("q"), Timestamp: 1, Value: value}})
	h, err := proto.Marshal(&pb.ResponseHeader{CallId: proto.Uint32(id),
		CellBlockMeta: &pb.CellBlockMeta{Length: proto.Uint32(uint32(len(block)))}})
	if err != nil {
		return nil, err
	}
	return frameResponse(h, &pb.GetResponse{Result: &pb.Result{AssociatedCellCount: proto.Int32(1)}}, block)
}

// TestForkRequestHeaders: the request headers the fork writes by hand (a
// Get's, and a Put's with its cell block) are what proto.Marshal writes
// for the values they carry; the answers (cells in a cell block; an
// exception; a header with a field the hand decoding leaves to
// proto.Unmarshal) reach their calls.
func TestForkRequestHeaders(t *testing.T) {
	rc, srv := connectFake(t)
	ctx := t.Context()
	send := func(c hrpc.Call) *rawRequest {
		t.Helper()
		rc.QueueRPC(c)
		q, err := readRawRequest(srv)
		if err != nil {
			t.Fatal(err)
		}
		if want := wantDelimited(t, &q.header); !bytes.Equal(protowire.AppendBytes(nil, q.headerRaw), want) {
			t.Fatalf("header % x, proto.Marshal writes % x", q.headerRaw, want[protowire.SizeVarint(uint64(len(q.headerRaw))):])
		}
		if q.header.GetMethodName() != c.Name() || !q.header.GetRequestParam() || q.header.CallId == nil {
			t.Fatalf("header %v for a %s", &q.header, c.Name())
		}
		return q
	}
	answer := func(b []byte, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := srv.Write(b); err != nil {
			t.Fatal(err)
		}
	}

	// A Get, answered in a cell block.
	g := fakeGet(t, ctx, "row-1")
	q := send(g)
	if q.header.CellBlockMeta != nil || len(q.cellBlock) != 0 {
		t.Fatalf("Get with a cell block: %v, % x", &q.header, q.cellBlock)
	}
	if want := wantDelimited(t, g.ToProto()); !bytes.Equal(protowire.AppendBytes(nil, q.body), want) {
		t.Fatalf("Get request % x, want % x", q.body, want)
	}
	answer(frameGetBlockResponse(q.header.GetCallId(), []byte("row-1"), []byte("value-1")))
	r := awaitResult(t, g)
	if cells := r.Msg.(*pb.GetResponse).GetResult().GetCell(); r.Error != nil || len(cells) != 1 || string(cells[0].Value) != "value-1" {
		t.Fatalf("Get: %v, %v", r.Msg, r.Error)
	}

	// A Put of two cells, its cells in a cell block; answered plainly.
	cells := []kv.Cell{{Qualifier: []byte("a"), Timestamp: 5, Value: []byte("x")}, {Qualifier: []byte("b"), Timestamp: 5, Value: bytes.Repeat([]byte("y"), 500)}}
	p, err := newRowPut(ctx, []byte("t"), []byte("row-2"), cells, true)
	if err != nil {
		t.Fatal(err)
	}
	p.SetRegion(region.NewInfo(0, nil, []byte("t"), []byte("t,,1.fake."), nil, nil))
	q = send(p)
	if q.header.CellBlockMeta == nil || int(q.header.CellBlockMeta.GetLength()) != len(q.cellBlock) ||
		!bytes.Equal(q.cellBlock, cellBlock([]byte("row-2"), cells)) {
		t.Fatalf("Put: header %v, cell block of %d bytes", &q.header, len(q.cellBlock))
	}
	if req, _, _ := p.SerializeCellBlocks(); !bytes.Equal(protowire.AppendBytes(nil, q.body), wantDelimited(t, req)) {
		t.Fatalf("Put request % x, want % x", q.body, wantDelimited(t, req))
	}
	h, _ := proto.Marshal(&pb.ResponseHeader{CallId: q.header.CallId})
	answer(frameResponse(h, &pb.MutateResponse{Processed: proto.Bool(true)}, nil))
	if r := awaitResult(t, p); r.Error != nil || !r.Msg.(*pb.MutateResponse).GetProcessed() {
		t.Fatalf("Put: %v, %v", r.Msg, r.Error)
	}

	// An exception.
	g = fakeGet(t, ctx, "row-3")
	q = send(g)
	h, _ = proto.Marshal(&pb.ResponseHeader{CallId: q.header.CallId, Exception: &pb.ExceptionResponse{
		ExceptionClassName: proto.String("org.apache.hadoop.hbase.NotServingRegionException"), StackTrace: proto.String("moved")}})
	answer(frameResponse(h, nil, nil))
	if r := awaitResult(t, g); !errors.As(r.Error, new(region.NotServingRegionError)) {
		t.Fatalf("exception: %v, %v", r.Msg, r.Error)
	}

	// A header with a field the hand decoding does not know.
	g = fakeGet(t, ctx, "row-4")
	q = send(g)
	h, _ = proto.Marshal(&pb.ResponseHeader{CallId: q.header.CallId})
	h = protowire.AppendVarint(protowire.AppendTag(h, 15, protowire.VarintType), 9)
	block := cellBlock([]byte("row-4"), []kv.Cell{{Qualifier: []byte("q"), Timestamp: 1, Value: []byte("value-4")}})
	h = protowire.AppendBytes(protowire.AppendTag(h, 3, protowire.BytesType),
		protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), uint64(len(block))))
	answer(frameResponse(h, &pb.GetResponse{Result: &pb.Result{AssociatedCellCount: proto.Int32(1)}}, block))
	r = awaitResult(t, g)
	if cells := r.Msg.(*pb.GetResponse).GetResult().GetCell(); r.Error != nil || len(cells) != 1 || string(cells[0].Value) != "value-4" {
		t.Fatalf("Get with an extra header field: %v, %v", r.Msg, r.Error)
	}
}
