package hbase

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/tsuna/gohbase/hrpc"
	"github.com/tsuna/gohbase/pb"
	"github.com/tsuna/gohbase/region"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// The tests in this file drive the forked gohbase region client
// (third_party/gohbase, DOHYO-PATCHES.md: responses read through a buffer)
// against a fake region server on loopback, so they need no HBase.

// fakeRegionServer accepts one region client connection and reads its
// connection preamble. The connection is closed when the test ends, after
// the client (dialed later, so cleaned up first) has closed its end.
func fakeRegionServer(t testing.TB) (addr string, conns <-chan net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan net.Conn, 1)
	accepted := make(chan net.Conn, 1)
	t.Cleanup(func() {
		ln.Close()
		if c, ok := <-accepted; ok {
			c.Close()
		}
	})
	go func() {
		defer close(accepted)
		defer close(ch)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		accepted <- c
		var pre [10]byte // "HBas", version, auth, 4-byte header length
		if _, err := io.ReadFull(c, pre[:]); err != nil || string(pre[:4]) != "HBas" {
			return
		}
		if _, err := io.CopyN(io.Discard, c, int64(binary.BigEndian.Uint32(pre[6:]))); err != nil {
			return
		}
		ch <- c
	}()
	return ln.Addr().String(), ch
}

// readGetRequest reads one framed request and returns its call id and the
// row its Get asks for.
func readGetRequest(c io.Reader) (uint32, []byte, error) {
	var sz [4]byte
	if _, err := io.ReadFull(c, sz[:]); err != nil {
		return 0, nil, err
	}
	b := make([]byte, binary.BigEndian.Uint32(sz[:]))
	if _, err := io.ReadFull(c, b); err != nil {
		return 0, nil, err
	}
	hb, n := protowire.ConsumeBytes(b)
	if n < 0 {
		return 0, nil, protowire.ParseError(n)
	}
	var h pb.RequestHeader
	if err := proto.Unmarshal(hb, &h); err != nil {
		return 0, nil, err
	}
	rb, m := protowire.ConsumeBytes(b[n:])
	if m < 0 {
		return 0, nil, protowire.ParseError(m)
	}
	var req pb.GetRequest
	if err := proto.Unmarshal(rb, &req); err != nil {
		return 0, nil, err
	}
	return h.GetCallId(), req.GetGet().GetRow(), nil
}

// frameGetResponse frames the response to call id: one cell of row with
// value.
func frameGetResponse(id uint32, row, value []byte) ([]byte, error) {
	h, err := proto.Marshal(&pb.ResponseHeader{CallId: proto.Uint32(id)})
	if err != nil {
		return nil, err
	}
	r, err := proto.Marshal(&pb.GetResponse{Result: &pb.Result{Cell: []*pb.Cell{{
		Row: row, Family: []byte("f"), Qualifier: []byte("q"), Value: value}}}})
	if err != nil {
		return nil, err
	}
	body := protowire.AppendBytes(protowire.AppendBytes(nil, h), r)
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...), nil
}

func getResponse(t testing.TB, id uint32, row, value []byte) []byte {
	t.Helper()
	b, err := frameGetResponse(id, row, value)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func dialFake(t testing.TB, addr string) hrpc.RegionClient {
	t.Helper()
	return dialFakeTimeout(t, addr, 10*time.Second)
}

func dialFakeTimeout(t testing.TB, addr string, readTimeout time.Duration) hrpc.RegionClient {
	t.Helper()
	rc := region.NewClient(addr, region.RegionClient, 1, 0, "dohyo", readTimeout, nil, nil)
	if err := rc.Dial(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rc.Close)
	return rc
}

// connectFake starts a fake region server and returns a region client
// dialled to it and the server's side of the connection.
func connectFake(tb testing.TB) (hrpc.RegionClient, net.Conn) {
	tb.Helper()
	addr, conns := fakeRegionServer(tb)
	rc := dialFake(tb, addr)
	srv, ok := <-conns
	if !ok {
		tb.Fatal("fake region server: no connection")
	}
	return rc, srv
}

func fakeGet(t testing.TB, ctx context.Context, row string) *hrpc.Get {
	t.Helper()
	g, err := hrpc.NewGetStr(ctx, "t", row)
	if err != nil {
		t.Fatal(err)
	}
	g.SetRegion(region.NewInfo(0, nil, []byte("t"), []byte("t,,1.fake."), nil, nil))
	return g
}

func awaitResult(t testing.TB, g hrpc.Call) hrpc.RPCResult {
	t.Helper()
	select {
	case r := <-g.ResultChan():
		return r
	case <-time.After(30 * time.Second):
		t.Fatalf("no result for %q", g.Key())
		return hrpc.RPCResult{}
	}
}

// TestForkBufferedResponses sends three Gets and answers them out of order
// in one byte stream cut at awkward places: two small responses and part of
// the next length in one segment, then a response larger than the client's
// 64 KiB read buffer in 10,000-byte pieces. Every call gets its own value.
func TestForkBufferedResponses(t *testing.T) {
	rc, srv := connectFake(t)
	values := map[string][]byte{
		"k0": []byte("zero"),
		"k1": bytes.Repeat([]byte("1"), 200<<10),
		"k2": []byte("two"),
	}
	gets := map[string]*hrpc.Get{}
	for _, k := range []string{"k0", "k1", "k2"} {
		gets[k] = fakeGet(t, t.Context(), k)
		rc.QueueRPC(gets[k])
	}
	ids := map[string]uint32{}
	for range 3 {
		id, row, err := readGetRequest(srv)
		if err != nil {
			t.Fatal(err)
		}
		ids[string(row)] = id
	}
	var stream []byte
	for _, k := range []string{"k2", "k0", "k1"} {
		stream = append(stream, getResponse(t, ids[k], []byte(k), values[k])...)
	}
	small := len(getResponse(t, ids["k2"], []byte("k2"), values["k2"])) +
		len(getResponse(t, ids["k0"], []byte("k0"), values["k0"]))
	cuts := []int{3, small + 2}
	for c := small + 2 + 10000; c < len(stream); c += 10000 {
		cuts = append(cuts, c)
	}
	cuts = append(cuts, len(stream))
	go func() {
		from := 0
		for _, to := range cuts {
			if _, err := srv.Write(stream[from:to]); err != nil {
				return
			}
			from = to
		}
	}()
	for _, k := range []string{"k0", "k1", "k2"} {
		r := awaitResult(t, gets[k])
		if r.Error != nil {
			t.Fatalf("%s: %v", k, r.Error)
		}
		resp, ok := r.Msg.(*pb.GetResponse)
		if !ok {
			t.Fatalf("%s: response %T", k, r.Msg)
		}
		cells := resp.GetResult().GetCell()
		if len(cells) != 1 || string(cells[0].GetRow()) != k ||
			!bytes.Equal(cells[0].GetValue(), values[k]) {
			t.Fatalf("%s: got %d cells, row %q, value of %d bytes; want %d bytes", k,
				len(cells), cells[0].GetRow(), len(cells[0].GetValue()), len(values[k]))
		}
	}
}

// TestForkTruncatedResponse cuts the connection in the middle of a
// response's body: as before the buffered reader, the client fails and the
// call waiting for the response gets region.ErrClientClosed.
func TestForkTruncatedResponse(t *testing.T) {
	for _, cut := range []int{2, 4, 20} {
		t.Run(fmt.Sprintf("after %d bytes", cut), func(t *testing.T) {
			rc, srv := connectFake(t)
			g := fakeGet(t, t.Context(), "k")
			rc.QueueRPC(g)
			id, _, err := readGetRequest(srv)
			if err != nil {
				t.Fatal(err)
			}
			resp := getResponse(t, id, []byte("k"), []byte("value"))
			if _, err := srv.Write(resp[:cut]); err != nil {
				t.Fatal(err)
			}
			srv.Close()
			if r := awaitResult(t, g); r.Error != region.ErrClientClosed {
				t.Fatalf("result %v, %v; want %v", r.Msg, r.Error, region.ErrClientClosed)
			}
		})
	}
}

// BenchmarkForkRegionClient measures the forked region client alone: Gets
// answered at once by the fake region server in this process (it reads
// requests through a buffer and writes each response on its own, as a region
// server does), one at a time and 16 in flight, with the process's CPU time
// and read/write system calls per Get (client and fake server together; the
// server's share is the same whichever client is built). Compare builds of
// third_party/gohbase with and without its read buffer:
//
//	go test -run '^$' -bench ForkRegionClient -benchtime 20000x ./bindings/hbase/
func BenchmarkForkRegionClient(b *testing.B) {
	for _, inflight := range []int{1, 16} {
		b.Run(fmt.Sprintf("inflight=%d", inflight), func(b *testing.B) {
			rc, srv := connectFake(b)
			go serveFakeGets(srv)
			ctx := b.Context()
			info := region.NewInfo(0, nil, []byte("t"), []byte("t,,1.fake."), nil, nil)
			get := func() {
				g, err := hrpc.NewGetStr(ctx, "t", "k")
				if err != nil {
					b.Error(err)
					return
				}
				g.SetRegion(info)
				rc.QueueRPC(g)
				if r := <-g.ResultChan(); r.Error != nil {
					b.Error(r.Error)
				}
			}
			start := readProcessCost(b)
			b.ResetTimer()
			if inflight == 1 {
				for range b.N {
					get()
				}
			} else {
				b.SetParallelism((inflight + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						get()
					}
				})
			}
			start.report(b)
		})
	}
}

// serveFakeGets answers every Get on c with one 100-byte cell, in a cell
// block as HBase answers clients announcing 1.3 or later (the fork does),
// until c is closed.
func serveFakeGets(c net.Conn) {
	r := bufio.NewReader(c)
	value := bytes.Repeat([]byte("v"), 100)
	for {
		id, row, err := readGetRequest(r)
		if err != nil {
			return
		}
		resp, err := frameGetBlockResponse(id, row, value)
		if err != nil {
			return
		}
		if _, err := c.Write(resp); err != nil {
			return
		}
	}
}

// TestForkGroupedWrites: Gets sent by many goroutines at once (the patched
// client writes RPCs queued behind a running write together) each reach
// the region server whole and get their own answer; and when the server
// goes away with calls queued, every call gets an error instead of hanging.
func TestForkGroupedWrites(t *testing.T) {
	rc, srv := connectFake(t)
	go serveFakeGets(srv)
	// Gets are built and awaited here; only the sending runs in other
	// goroutines (a helper's t.Fatal must stay on the test's goroutine).
	send := func(prefix string) []*hrpc.Get {
		gets := make([]*hrpc.Get, 64)
		for i := range gets {
			gets[i] = fakeGet(t, t.Context(), fmt.Sprintf("%s%d", prefix, i))
		}
		for _, g := range gets {
			go rc.QueueRPC(g)
		}
		return gets
	}
	for _, g := range send("k") {
		r := awaitResult(t, g)
		resp, _ := r.Msg.(*pb.GetResponse)
		switch cells := resp.GetResult().GetCell(); {
		case r.Error != nil:
			t.Errorf("%s: %v", g.Key(), r.Error)
		case len(cells) != 1 || !bytes.Equal(cells[0].GetRow(), g.Key()):
			t.Errorf("%s: answered with %d cells of another row", g.Key(), len(cells))
		}
	}

	// The server stops reading and closes: calls sent now all fail.
	srv.Close()
	for _, g := range send("late") {
		if r := awaitResult(t, g); r.Error == nil {
			t.Fatalf("%s: answered after the server closed", g.Key())
		}
	}
}
