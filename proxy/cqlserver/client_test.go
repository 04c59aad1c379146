package cqlserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/compression/snappy"
	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
	"github.com/datastax/go-cassandra-native-protocol/segment"

	"github.com/dohyo/dohyo/cql/wire"
)

// A test client built on the native-protocol library's client-side codecs,
// so that the server's encoding is checked by an independent decoder.

// testLZ4 adapts this package's LZ4 to the library's compressor seams
// (its own LZ4 adapter needs a module this project does not depend on).
type testLZ4 struct{}

func (testLZ4) CompressWithLength(src io.Reader, dst io.Writer) error {
	b, err := io.ReadAll(src)
	if err != nil {
		return err
	}
	_, err = dst.Write(wire.LZ4Body{}.Compress(nil, b))
	return err
}

func (testLZ4) DecompressWithLength(src io.Reader, dst io.Writer) error {
	b, err := io.ReadAll(src)
	if err != nil {
		return err
	}
	out, err := wire.LZ4Body{}.Decompress(b, 1<<30)
	if err != nil {
		return err
	}
	_, err = dst.Write(out)
	return err
}

func (testLZ4) Compress(src io.Reader, dst io.Writer) error {
	// The library's segment encoder reuses src when compression does not
	// pay off, so a *bytes.Buffer must not be drained.
	var b []byte
	if buf, ok := src.(*bytes.Buffer); ok {
		b = buf.Bytes()
	} else {
		var err error
		if b, err = io.ReadAll(src); err != nil {
			return err
		}
	}
	_, err := dst.Write(wire.LZ4Compress(nil, b))
	return err
}

func (testLZ4) Decompress(src io.Reader, dst io.Writer) error {
	b, err := io.ReadAll(src)
	if err != nil {
		return err
	}
	out := make([]byte, wire.MaxSegmentPayload)
	n, err := wire.LZ4Block(out, b)
	if err != nil {
		return err
	}
	_, err = dst.Write(out[:n])
	return err
}

type client struct {
	t       testing.TB
	nc      net.Conn
	br      *bufio.Reader
	version primitive.ProtocolVersion
	codec   frame.RawCodec
	seg     segment.Codec // non-nil once v5 framing is on
	buf     []byte        // undecoded envelope bytes from segments
	stream  int16
	// compress sets the compression flag on v3/v4 requests.
	compress bool
}

func newClient(t testing.TB, nc net.Conn, v primitive.ProtocolVersion) *client {
	t.Helper()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	t.Cleanup(func() { nc.Close() })
	return &client{t: t, nc: nc, br: bufio.NewReader(nc), version: v, codec: frame.NewRawCodec()}
}

// pipeClient serves one side of a net.Pipe with ServeConn.
func (ts *testServer) pipeClient(t testing.TB, v primitive.ProtocolVersion) *client {
	t.Helper()
	a, b := net.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		ts.srv.ServeConn(context.Background(), b)
	}()
	t.Cleanup(func() {
		a.Close()
		<-done
	})
	return newClient(t, a, v)
}

// tcpClient connects to a server listening on a loopback port.
func (ts *testServer) listen(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- ts.srv.Serve(context.Background(), ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		ts.srv.Shutdown(ctx)
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return ln.Addr().String()
}

func (ts *testServer) tcpClient(t testing.TB, addr string, v primitive.ProtocolVersion) *client {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return newClient(t, nc, v)
}

// encode renders a request frame with the client's codec.
func (c *client) encode(msg message.Message, stream int16) []byte {
	c.t.Helper()
	f := frame.NewFrame(c.version, stream, msg)
	f.SetCompress(c.compress)
	var b bytes.Buffer
	if err := c.codec.EncodeFrame(f, &b); err != nil {
		c.t.Fatalf("encode %v: %v", msg, err)
	}
	return b.Bytes()
}

// writeRaw sends bytes, wrapped in segments once v5 framing is on.
func (c *client) writeRaw(b []byte) {
	c.t.Helper()
	if c.seg != nil {
		var out bytes.Buffer
		if len(b) <= wire.MaxSegmentPayload {
			c.encodeSegment(&out, b, true)
		} else {
			for len(b) > 0 {
				n := min(len(b), wire.MaxSegmentPayload)
				c.encodeSegment(&out, b[:n], false)
				b = b[n:]
			}
		}
		b = out.Bytes()
	}
	if _, err := c.nc.Write(b); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

func (c *client) encodeSegment(w io.Writer, payload []byte, self bool) {
	c.t.Helper()
	s := &segment.Segment{Header: &segment.Header{IsSelfContained: self}, Payload: &segment.Payload{UncompressedData: payload}}
	if err := c.seg.EncodeSegment(s, w); err != nil {
		c.t.Fatalf("encode segment: %v", err)
	}
}

// send writes a request on a fresh stream id and returns the id.
func (c *client) send(msg message.Message) int16 {
	c.t.Helper()
	c.stream++
	c.writeRaw(c.encode(msg, c.stream))
	return c.stream
}

// read returns the next frame from the server.
func (c *client) read() *frame.Frame {
	c.t.Helper()
	f, err := c.tryRead()
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	return f
}

func (c *client) tryRead() (*frame.Frame, error) {
	if c.seg == nil {
		return c.codec.DecodeFrame(c.br)
	}
	for {
		if len(c.buf) >= wire.HeaderLen {
			n := wire.HeaderLen + int(binary.BigEndian.Uint32(c.buf[5:9]))
			if len(c.buf) >= n {
				f, err := c.codec.DecodeFrame(bytes.NewReader(c.buf[:n]))
				c.buf = c.buf[n:]
				return f, err
			}
		}
		s, err := c.seg.DecodeSegment(c.br)
		if err != nil {
			return nil, err
		}
		c.buf = append(c.buf, s.Payload.UncompressedData...)
	}
}

// do sends msg and returns the response to it (events are skipped).
func (c *client) do(msg message.Message) *frame.Frame {
	c.t.Helper()
	id := c.send(msg)
	for {
		f := c.read()
		if f.Header.StreamId == id {
			return f
		}
		if f.Header.StreamId != -1 {
			c.t.Fatalf("response on stream %d, want %d: %v", f.Header.StreamId, id, f.Body.Message)
		}
	}
}

// startup runs OPTIONS and STARTUP and switches to v5 framing when due.
func (c *client) startup(compression string) {
	c.t.Helper()
	if f := c.do(&message.Options{}); f.Body.Message.GetOpCode() != primitive.OpCodeSupported {
		c.t.Fatalf("OPTIONS answered with %v", f.Body.Message)
	}
	st := message.NewStartup()
	if compression != "" {
		st.Options["COMPRESSION"] = compression
	}
	f := c.do(st)
	if _, ok := f.Body.Message.(*message.Ready); !ok {
		c.t.Fatalf("STARTUP answered with %v", f.Body.Message)
	}
	switch {
	case c.version >= primitive.ProtocolVersion5 && compression == "lz4":
		c.seg = segment.NewCodecWithCompression(testLZ4{})
	case c.version >= primitive.ProtocolVersion5:
		c.seg = segment.NewCodec()
	case compression == "lz4":
		c.codec, c.compress = frame.NewRawCodecWithCompression(testLZ4{}), true
	case compression == "snappy":
		c.codec, c.compress = frame.NewRawCodecWithCompression(snappy.Compressor{}), true
	}
}

// query runs a QUERY and returns the response message.
func (c *client) query(q string, opts *message.QueryOptions) message.Message {
	c.t.Helper()
	if opts == nil {
		opts = &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}
	}
	return c.do(&message.Query{Query: q, Options: opts}).Body.Message
}

// rows runs a query that must return rows.
func (c *client) rows(q string, opts *message.QueryOptions) *message.RowsResult {
	c.t.Helper()
	m := c.query(q, opts)
	r, ok := m.(*message.RowsResult)
	if !ok {
		c.t.Fatalf("%s: got %v, want rows", q, m)
	}
	return r
}

// expectClosed asserts the server closed the connection.
func (c *client) expectClosed() {
	c.t.Helper()
	for {
		f, err := c.tryRead()
		if err != nil {
			return
		}
		if f.Header.StreamId != -1 {
			c.t.Fatalf("expected the connection to close, got %v", f.Body.Message)
		}
	}
}
