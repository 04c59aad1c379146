package cqlserver

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/dohyo/dohyo/cql/wire"
)

// Raw-socket tests of the listener guards (guard.go): each reproduces an
// attack of issue 15 against a server on a loopback port.

// rawConn dials addr; reads and writes fail after 10 s.
func rawConn(t *testing.T, addr string) net.Conn {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	t.Cleanup(func() { nc.Close() })
	return nc
}

// expectProtocolError reads one error frame and checks its code and text.
func expectProtocolError(t *testing.T, r io.Reader, want string) {
	t.Helper()
	expectProtocolErrorIn(t, r, nil, want)
}

// expectProtocolErrorIn reads an error frame compressed with codec.
func expectProtocolErrorIn(t *testing.T, r io.Reader, codec wire.BodyCodec, want string) {
	t.Helper()
	h := make([]byte, wire.HeaderLen)
	if _, err := io.ReadFull(r, h); err != nil {
		t.Fatalf("read header: %v", err)
	}
	if h[4] != wire.OpError {
		t.Fatalf("got opcode %s, want ERROR", wire.OpName(h[4]))
	}
	body := make([]byte, binary.BigEndian.Uint32(h[5:]))
	if _, err := io.ReadFull(r, body); err != nil {
		t.Fatalf("read body: %v", err)
	}
	if h[1]&wire.FlagCompressed != 0 && codec != nil {
		var err error
		if body, err = codec.Decompress(body, 1<<20); err != nil {
			t.Fatalf("decompress: %v", err)
		}
	}
	rb := wire.NewReader(body)
	code, msg := rb.Int(), rb.Str()
	if code != int32(primitive.ErrorCodeProtocolError) || !strings.Contains(msg, want) {
		t.Fatalf("got error %#x %q, want ProtocolError containing %q", code, msg, want)
	}
}

// expectEOF checks the server closed the connection (within the deadline).
func expectEOF(t *testing.T, nc net.Conn) {
	t.Helper()
	nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.Copy(io.Discard, nc); err != nil {
		t.Fatalf("expected the server to close the connection, got %v", err)
	}
}

func startupBody(opts map[string]string) []byte {
	b := wire.AppendShort(nil, uint16(len(opts)))
	for k, v := range opts {
		b = wire.AppendString(wire.AppendString(b, k), v)
	}
	return b
}

// TestPreAuthFrameLimit: a 256 MiB OPTIONS before STARTUP is refused from
// its header (nothing is allocated), while the same connection, once
// ready, accepts frames up to MaxFrameBytes.
func TestPreAuthFrameLimit(t *testing.T) {
	ts := newTestServer(t, nil)
	addr := ts.listen(t)
	nc := rawConn(t, addr)
	hdr := rawFrame(4, 0, 3, wire.OpOptions, nil)
	binary.BigEndian.PutUint32(hdr[5:], 256<<20)
	nc.Write(hdr)
	expectProtocolError(t, nc, "exceeds maximum allowed length 262144")
	expectEOF(t, nc)
	if got := ts.srv.GuardStats().FramesTooBig; got != 1 {
		t.Errorf("FramesTooBig = %d, want 1", got)
	}

	// After STARTUP: a 1 MiB value passes (the limit is MaxFrameBytes).
	c := ts.tcpClient(t, addr, primitive.ProtocolVersion4)
	c.startup("")
	big := bytes.Repeat([]byte{'x'}, 1<<20)
	r := c.rows("SELECT * FROM ks.echo WHERE k = ?", &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne,
		PositionalValues: []*primitive.Value{primitive.NewValue(big)}})
	if len(r.Data) != 1 || !bytes.Equal(r.Data[0][0], big) {
		t.Errorf("1 MiB echo came back wrong")
	}
}

// lz4Bomb is a v4 frame whose LZ4 body is n bytes long and declares
// declared decompressed bytes.
func lz4Bomb(op byte, stream int16, n int, declared uint32) []byte {
	body := binary.BigEndian.AppendUint32(nil, declared)
	body = append(body, bytes.Repeat([]byte{0xff}, n)...)
	return rawFrame(4, wire.FlagCompressed, stream, op, body)
}

// TestCompressedBombs: LZ4 and Snappy bodies declaring more than the frame
// limit, or more than their bytes can expand to, are refused before
// allocating, in the AUTHENTICATE state and after it.
func TestCompressedBombs(t *testing.T) {
	auth, err := NewPasswordAuthenticator(map[string]string{"alice": testHash(t, "s3cret")})
	if err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, func(c *Config) { c.Authenticator = auth })
	addr := ts.listen(t)
	startAuth := func(comp string) net.Conn {
		nc := rawConn(t, addr)
		nc.Write(rawFrame(4, 0, 1, wire.OpStartup, startupBody(map[string]string{"CQL_VERSION": "3.0.0", "COMPRESSION": comp})))
		h := make([]byte, wire.HeaderLen)
		if _, err := io.ReadFull(nc, h); err != nil || h[4] != wire.OpAuthenticate {
			t.Fatalf("STARTUP: %v %v", h, err)
		}
		io.CopyN(io.Discard, nc, int64(binary.BigEndian.Uint32(h[5:])))
		return nc
	}
	// In AUTHENTICATE: 1 KiB declaring 256 MiB.
	nc := startAuth("lz4")
	nc.Write(lz4Bomb(wire.OpAuthResponse, 2, 1<<10, 256<<20))
	expectProtocolErrorIn(t, nc, wire.LZ4Body{}, "exceeds maximum allowed length 262144")
	expectEOF(t, nc)
	// In AUTHENTICATE: under the limit but impossible for its size.
	nc = startAuth("lz4")
	nc.Write(lz4Bomb(wire.OpAuthResponse, 2, 100, 200<<10))
	expectProtocolErrorIn(t, nc, wire.LZ4Body{}, "impossible for 100 compressed bytes")
	expectEOF(t, nc)
	// Snappy: a varint length of 200 KiB over 10 bytes.
	nc = startAuth("snappy")
	body := binary.AppendUvarint(nil, 200<<10)
	nc.Write(rawFrame(4, wire.FlagCompressed, 2, wire.OpAuthResponse, append(body, make([]byte, 10)...)))
	expectProtocolErrorIn(t, nc, wire.SnappyBody{}, "impossible for")
	expectEOF(t, nc)

	// Authenticated: 1 MiB declaring 256 MiB is over MaxFrameBytes (16 MiB).
	c := ts.tcpClient(t, addr, primitive.ProtocolVersion4)
	st := message.NewStartup()
	st.Options["COMPRESSION"] = "lz4"
	c.do(st)
	c.codec, c.compress = frame.NewRawCodecWithCompression(testLZ4{}), true
	if m := c.do(&message.AuthResponse{Token: []byte("\x00alice\x00s3cret")}).Body.Message; m.GetOpCode() != primitive.OpCodeAuthSuccess {
		t.Fatalf("auth: %v", m)
	}
	c.nc.Write(lz4Bomb(wire.OpQuery, 9, 1<<20, 256<<20))
	expectProtocolErrorIn(t, c.br, wire.LZ4Body{}, "exceeds maximum allowed length 16777216")
	if got := ts.srv.GuardStats().FramesTooBig; got != 2 {
		t.Errorf("FramesTooBig = %d, want 2", got)
	}
}

// TestBatchCountWrap: 100,000 children under a [short] count (wrapping to
// 34,464) are a protocol error and nothing runs. (Other bytes after a
// body are ignored, as Cassandra ignores them: trailing_test.go.)
func TestBatchCountWrap(t *testing.T) {
	ts := newTestServer(t, nil)
	addr := ts.listen(t)
	c := ts.tcpClient(t, addr, primitive.ProtocolVersion4)
	c.startup("")
	const n = 100000
	body := wire.AppendShort([]byte{0}, uint16(n%65536)) // LOGGED, wrapped count
	for i := 0; i < n; i++ {
		body = append(body, 0)
		body = wire.AppendLongString(body, "INSERT INTO ks.t (k) VALUES (1)")
		body = wire.AppendShort(body, 0)
	}
	body = append(wire.AppendShort(body, 1), 0)
	c.nc.Write(rawFrame(4, 0, 7, wire.OpBatch, body))
	expectProtocolError(t, c.br, "65536 statements after the 34464 counted: the [short] statement count wrapped")
	if len(ts.fake.batches) != 0 {
		t.Errorf("%d batches ran", len(ts.fake.batches))
	}
}

// TestHandshakeTimeout: silent connections and connections that stop in
// the SASL exchange are closed when HandshakeTimeout passes.
func TestHandshakeTimeout(t *testing.T) {
	auth, err := NewPasswordAuthenticator(map[string]string{"alice": testHash(t, "s3cret")})
	if err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, func(c *Config) { c.HandshakeTimeout = 200 * time.Millisecond; c.Authenticator = auth })
	addr := ts.listen(t)
	t0 := time.Now() // before the server accepts, so before its timers start
	silent := rawConn(t, addr)
	started := rawConn(t, addr)
	started.Write(rawFrame(4, 0, 1, wire.OpStartup, startupBody(map[string]string{"CQL_VERSION": "3.0.0"})))
	expectEOF(t, silent) // closed at all: expectEOF waits 10s, 50 times the timeout
	expectEOF(t, started)
	if d := time.Since(t0); d < 200*time.Millisecond {
		t.Errorf("closed after %v, before the 200ms handshake timeout", d)
	}
	// Closed by the handshake timeout, not for another reason.
	waitFor(t, "two handshake timeouts", func() bool { return ts.srv.GuardStats().HandshakeTimeouts == 2 })
}

// TestPendingBudget: connections that never finish their handshake count
// neither against MaxConnections nor beyond MaxPendingConnections: the
// oldest is closed to admit a new client, which is served.
func TestPendingBudget(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.MaxPendingConnections = 8; c.MaxConnections = 2 })
	addr := ts.listen(t)
	var silent []net.Conn
	for i := 0; i < 20; i++ {
		silent = append(silent, rawConn(t, addr))
	}
	waitFor(t, "12 evictions", func() bool { return ts.srv.GuardStats().EvictedPending == 12 })
	expectEOF(t, silent[0])
	for i := 0; i < 2; i++ {
		c := ts.tcpClient(t, addr, primitive.ProtocolVersion4)
		c.startup("")
		c.rows("SELECT * FROM ks.t", nil)
	}
	if st := ts.srv.GuardStats(); st.PendingConnections > 8 {
		t.Errorf("PendingConnections = %d, want <= 8", st.PendingConnections)
	}
	if st := ts.srv.Stats(); st.Connections != 2 || st.RejectedConnections != 0 {
		t.Errorf("Stats = %+v, want 2 connections and none rejected", st)
	}
}

// TestIdleTimeout: a ready connection with nothing in flight is closed
// after IdleTimeout; one waiting for a slow answer is not.
func TestIdleTimeout(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.IdleTimeout = 150 * time.Millisecond })
	addr := ts.listen(t)
	busy := ts.tcpClient(t, addr, primitive.ProtocolVersion4)
	busy.startup("")
	id := busy.send(slowQuery)
	idle := ts.tcpClient(t, addr, primitive.ProtocolVersion4)
	idle.startup("")
	idle.expectClosed()
	waitFor(t, "one idle close", func() bool { return ts.srv.GuardStats().IdleClosed == 1 })
	// The busy connection outlived the idle one; its answer still comes.
	close(ts.fake.release)
	if f := busy.read(); f.Header.StreamId != id {
		t.Fatalf("answer on stream %d, want %d", f.Header.StreamId, id)
	}
	if got := ts.srv.GuardStats().IdleClosed; got != 1 {
		t.Errorf("IdleClosed = %d, want 1", got)
	}
}

// TestFrameReadTimeout: a frame trickling in (slowloris) is cut when
// FrameReadTimeout passes after its first byte.
func TestFrameReadTimeout(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.FrameReadTimeout = 200 * time.Millisecond })
	addr := ts.listen(t)
	c := ts.tcpClient(t, addr, primitive.ProtocolVersion4)
	c.startup("")
	f := rawFrame(4, 0, 2, wire.OpQuery, make([]byte, 100))
	c.nc.Write(f[:20]) // header and part of the body, then nothing
	c.expectClosed()
	waitFor(t, "one frame timeout", func() bool { return ts.srv.GuardStats().FrameTimeouts == 1 })
	// Pre-auth, the header's first byte alone starts the clock too.
	nc := rawConn(t, addr)
	nc.Write([]byte{4})
	expectEOF(t, nc)
}

// serverConn returns the server's only connection.
func (ts *testServer) serverConn(t *testing.T) *conn {
	t.Helper()
	ts.srv.mu.Lock()
	defer ts.srv.mu.Unlock()
	for c := range ts.srv.conns {
		return c
	}
	t.Fatal("no connection")
	return nil
}

// TestOutboundBudget: a client that pipelines requests for large rows and
// does not read stops being read once its unsent answers reach the
// budget, so memory stays bounded; once it reads, every answer arrives.
func TestOutboundBudget(t *testing.T) {
	const budget = 512 << 10
	ts := newTestServer(t, func(c *Config) { c.OutboundBytes = budget; c.WriteTimeout = -1 })
	addr := ts.listen(t)
	c := ts.tcpClient(t, addr, primitive.ProtocolVersion4)
	c.nc.(*net.TCPConn).SetReadBuffer(16 << 10)
	c.startup("")
	c.nc.SetDeadline(time.Now().Add(30 * time.Second))
	big := primitive.NewValue(make([]byte, 64<<10))
	const n = 200 // 12.8 MiB of answers
	var reqs bytes.Buffer
	for i := 0; i < n; i++ {
		reqs.Write(c.encode(&message.Query{Query: "SELECT * FROM ks.echo WHERE k = ?", Options: &message.QueryOptions{
			Consistency: primitive.ConsistencyLevelOne, PositionalValues: []*primitive.Value{big}}}, int16(i+1)))
	}
	written := make(chan error, 1)
	go func() { _, err := c.nc.Write(reqs.Bytes()); written <- err }()
	sc := ts.serverConn(t)
	waitFor(t, "back-pressure", func() bool { return ts.srv.GuardStats().Backpressured > 0 })
	peak := int64(0)
	for i := 0; i < 50; i++ { // watch the backlog while the client does not read
		peak = max(peak, sc.unsent.Load()+sc.reserved.Load())
		time.Sleep(2 * time.Millisecond)
	}
	if bound := int64(3 * budget); peak > bound {
		t.Errorf("unsent+reserved peaked at %d bytes, want <= %d", peak, bound)
	}
	got := map[int16]bool{}
	for len(got) < n {
		f := c.read()
		if _, ok := f.Body.Message.(*message.RowsResult); !ok {
			t.Fatalf("answer %v", f.Body.Message)
		}
		got[f.Header.StreamId] = true
	}
	if err := <-written; err != nil {
		t.Fatal(err)
	}
}

// TestWriteTimeout: a client that never reads is dropped once WriteTimeout
// passes without progress, and its memory is released.
func TestWriteTimeout(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.WriteTimeout = 300 * time.Millisecond; c.OutboundBytes = 256 << 10 })
	addr := ts.listen(t)
	c := ts.tcpClient(t, addr, primitive.ProtocolVersion4)
	c.nc.(*net.TCPConn).SetReadBuffer(16 << 10)
	c.startup("")
	big := primitive.NewValue(make([]byte, 64<<10))
	go func() {
		for i := 0; i < 500; i++ {
			if _, err := c.nc.Write(c.encode(&message.Query{Query: "SELECT * FROM ks.echo WHERE k = ?", Options: &message.QueryOptions{
				Consistency: primitive.ConsistencyLevelOne, PositionalValues: []*primitive.Value{big}}}, int16(i+1))); err != nil {
				return
			}
		}
	}()
	waitFor(t, "the write timeout", func() bool { return ts.srv.GuardStats().WriteTimeouts == 1 })
	waitFor(t, "the connection to be released", func() bool {
		ts.srv.mu.Lock()
		defer ts.srv.mu.Unlock()
		return len(ts.srv.conns) == 0
	})
}

// TestAuthBackoff: after Threshold failures from one address, attempts
// wait (doubling); a success clears the address.
func TestAuthBackoff(t *testing.T) {
	auth, err := NewPasswordAuthenticator(map[string]string{"alice": testHash(t, "s3cret")})
	if err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, func(c *Config) {
		c.Authenticator = auth
		c.AuthBackoff = AuthBackoffConfig{Threshold: 3, BaseDelay: 200 * time.Millisecond, MaxDelay: time.Second}
	})
	addr := ts.listen(t)
	c := ts.tcpClient(t, addr, primitive.ProtocolVersion4)
	c.do(message.NewStartup())
	attempt := func(pass string) (time.Duration, message.Message) {
		t0 := time.Now()
		m := c.do(&message.AuthResponse{Token: []byte("\x00alice\x00" + pass)}).Body.Message
		return time.Since(t0), m
	}
	for i := 0; i < 3; i++ {
		if _, m := attempt("guess"); errorCode(t, m) != primitive.ErrorCodeAuthenticationError {
			t.Fatalf("guess %d: %v", i, m)
		}
	}
	if ts.srv.GuardStats().AuthThrottled != 0 {
		t.Fatal("throttled before the threshold")
	}
	d1, _ := attempt("guess")
	d2, _ := attempt("guess")
	if d1 < 200*time.Millisecond || d2 < 400*time.Millisecond {
		t.Errorf("delays %v, %v: want >= 200ms, then >= 400ms", d1, d2)
	}
	// The right password still works (after its delay) and clears the address.
	if _, m := attempt("s3cret"); m.GetOpCode() != primitive.OpCodeAuthSuccess {
		t.Fatalf("good password: %v", m)
	}
	if got := ts.srv.GuardStats().AuthThrottled; got != 3 {
		t.Errorf("AuthThrottled = %d, want 3", got)
	}
	if d := ts.srv.guard.backoff.delay("127.0.0.1"); d != 0 {
		t.Errorf("delay after a success = %v, want 0", d)
	}
}
