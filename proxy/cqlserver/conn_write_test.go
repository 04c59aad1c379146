package cqlserver

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/dohyo/dohyo/cql/wire"
)

// tcpPair returns the two ends of a loopback TCP connection.
func tcpPair(t *testing.T) (server, client *net.TCPConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cl, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	sv, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close(); sv.Close() })
	return sv.(*net.TCPConn), cl.(*net.TCPConn)
}

// testFrame is a v4 response frame on stream with a body of n bytes of
// the stream's low byte.
func testFrame(stream int16, n int) []byte {
	f := wire.StartFrame(nil, 4, 0, stream, wire.OpResult)
	return append(f, bytes.Repeat([]byte{byte(stream)}, n)...)
}

// TestSendTryNeverBlocks: a sender that must not block on the client
// (a backend connection's reader answering relayed requests) returns even
// while the client reads nothing; what the socket did not take stays
// counted as unsent, and the client then gets every frame, whole and in
// order, from the connection's writer goroutine.
func TestSendTryNeverBlocks(t *testing.T) {
	ts := newTestServer(t, nil)
	sv, cl := tcpPair(t)
	cl.SetReadBuffer(16 << 10)
	sv.SetWriteBuffer(16 << 10)
	c := newConn(ts.srv, sv)
	c.ctx, c.cancel = context.WithCancel(context.Background())
	defer c.cancel()
	c.wq.idle.L = &c.wq.mu
	go c.writeLoop()
	defer func() { close(c.quit); <-c.writerDone }()

	const frames, size = 100, 32 << 10 // far more than the socket buffers hold
	c.send(testFrame(0, 8))            // through the writer goroutine: sets up its writer
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for i := 1; i <= frames; i++ {
			c.sendTry(testFrame(int16(i), size))
		}
	}()
	select {
	case <-sent:
	case <-time.After(20 * time.Second):
		t.Fatal("sendTry blocked on a client that does not read")
	}
	if c.unsent.Load() <= 0 {
		t.Fatalf("unsent = %d with a client that reads nothing", c.unsent.Load())
	}

	cl.SetReadDeadline(time.Now().Add(20 * time.Second))
	br := bufio.NewReader(cl)
	for i := 0; i <= frames; i++ {
		hb := make([]byte, wire.HeaderLen)
		if _, err := io.ReadFull(br, hb); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		h := wire.ParseHeader(hb)
		want := size
		if i == 0 {
			want = 8
		}
		if int(h.Stream) != i || int(h.Length) != want {
			t.Fatalf("frame %d: stream %d, length %d; want stream %d, length %d", i, h.Stream, h.Length, i, want)
		}
		body := make([]byte, h.Length)
		if _, err := io.ReadFull(br, body); err != nil {
			t.Fatalf("frame %d body: %v", i, err)
		}
		if !bytes.Equal(body, bytes.Repeat([]byte{byte(i)}, want)) {
			t.Fatalf("frame %d: body corrupted", i)
		}
	}
	waitFor(t, "unsent bytes to drain", func() bool { return c.unsent.Load() == 0 })
}
