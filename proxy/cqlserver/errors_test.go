package cqlserver

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/dohyo/dohyo/cql/wire"
)

func TestErrorFramesPerCode(t *testing.T) {
	for _, v := range allVersions {
		t.Run(v.String(), func(t *testing.T) {
			ts := newTestServer(t, nil)
			c := readyClient(t, ts, v)
			check := func(table string, want func(message.Message) bool) {
				t.Helper()
				m := c.query("SELECT * FROM ks."+table, nil)
				if !want(m) {
					t.Errorf("%s: got %T %v", table, m, m)
				}
			}
			check("unavailable", func(m message.Message) bool {
				e, ok := m.(*message.Unavailable)
				return ok && e.Consistency == primitive.ConsistencyLevelQuorum && e.Required == 3 && e.Alive == 1 &&
					e.ErrorMessage == "not enough replicas"
			})
			check("write_timeout", func(m message.Message) bool {
				e, ok := m.(*message.WriteTimeout)
				return ok && e.WriteType == primitive.WriteTypeBatch && e.BlockFor == 1 && e.Consistency == primitive.ConsistencyLevelOne
			})
			check("read_timeout", func(m message.Message) bool {
				e, ok := m.(*message.ReadTimeout)
				return ok && e.DataPresent && e.Received == 1 && e.BlockFor == 2 && e.Consistency == primitive.ConsistencyLevelLocalQuorum
			})
			check("read_failure", func(m message.Message) bool {
				if v < primitive.ProtocolVersion4 { // degraded to a timeout in v3
					_, ok := m.(*message.ReadTimeout)
					return ok
				}
				e, ok := m.(*message.ReadFailure)
				return ok && e.BlockFor == 1
			})
			check("write_failure", func(m message.Message) bool {
				if v < primitive.ProtocolVersion4 {
					_, ok := m.(*message.WriteTimeout)
					return ok
				}
				e, ok := m.(*message.WriteFailure)
				return ok && e.WriteType == primitive.WriteTypeSimple
			})
			check("already_exists", func(m message.Message) bool {
				e, ok := m.(*message.AlreadyExists)
				return ok && e.Keyspace == "ks" && e.Table == "t"
			})
			check("overloaded", func(m message.Message) bool { _, ok := m.(*message.Overloaded); return ok })
			check("invalid", func(m message.Message) bool {
				e, ok := m.(*message.Invalid)
				return ok && e.ErrorMessage == "bad request"
			})
			check("plain", func(m message.Message) bool {
				e, ok := m.(*message.ServerError)
				return ok && e.ErrorMessage == "disk on fire"
			})
			// Syntax errors come from the coordinator's parser.
			if m := c.query("SELEC nonsense", nil); m.(message.Error).GetErrorCode() != primitive.ErrorCodeSyntaxError {
				t.Errorf("syntax: %v", m)
			}
			// A panicking handler answers ServerError; the connection lives on.
			if m := c.query("SELECT * FROM ks.boom", nil); m.(message.Error).GetErrorCode() != primitive.ErrorCodeServerError {
				t.Errorf("panic: %v", m)
			}
			c.rows("SELECT * FROM ks.t", nil)
		})
	}
}

// rawFrame builds a request frame by hand.
func rawFrame(version, flags byte, stream int16, op byte, body []byte) []byte {
	f := []byte{version, flags, byte(uint16(stream) >> 8), byte(stream), op}
	f = binary.BigEndian.AppendUint32(f, uint32(len(body)))
	return append(f, body...)
}

// readRawError reads an error frame with a 9-byte header, returning the
// header version and the error message.
func readRawError(t *testing.T, r io.Reader) (byte, int16, string) {
	t.Helper()
	h := make([]byte, 9)
	if _, err := io.ReadFull(r, h); err != nil {
		t.Fatalf("read header: %v", err)
	}
	body := make([]byte, binary.BigEndian.Uint32(h[5:]))
	if _, err := io.ReadFull(r, body); err != nil {
		t.Fatalf("read body: %v", err)
	}
	if h[0]&0x80 == 0 || h[4] != wire.OpError {
		t.Fatalf("not an error response: % x", h)
	}
	rb := wire.NewReader(body)
	if code := rb.Int(); code != int32(primitive.ErrorCodeProtocolError) {
		t.Fatalf("code %#x, want ProtocolError", code)
	}
	return h[0] & 0x7f, int16(binary.BigEndian.Uint16(h[2:4])), rb.Str()
}

func TestVersionNegotiation(t *testing.T) {
	ts := newTestServer(t, nil)
	addr := ts.listen(t)
	const wantMsg = "Invalid or unsupported protocol version (%d); supported versions are (3/v3, 4/v4, 5/v5)"
	cases := []struct {
		version, flags byte
		wantVersion    byte
	}{
		{66, 0, 66}, // DSE v2: answered in its own version
		{65, 0, 65},
		{6, wire.FlagUseBeta, 4}, // beta versions are refused
		{6, 0, 4},
		{0x7f, 0, 4},
	}
	for _, tc := range cases {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		nc.Write(rawFrame(tc.version, tc.flags, 3, wire.OpOptions, nil))
		v, stream, msg := readRawError(t, nc)
		if v != tc.wantVersion || stream != 3 {
			t.Errorf("version %d: answered as v%d on stream %d, want v%d on 3", tc.version, v, stream, tc.wantVersion)
		}
		if want := fmt.Sprintf(wantMsg, tc.version); msg != want {
			t.Errorf("message %q, want %q", msg, want)
		}
		if n, err := nc.Read(make([]byte, 1)); err != io.EOF {
			t.Errorf("version %d: connection still open (%d, %v)", tc.version, n, err)
		}
		nc.Close()
	}
	// v1/v2: an 8-byte header in the client's own version, as Cassandra.
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	nc.Write([]byte{0x02, 0, 5, wire.OpOptions, 0, 0, 0, 0})
	h := make([]byte, 8)
	if _, err := io.ReadFull(nc, h); err != nil || h[0] != 0x82 || h[2] != 5 || h[3] != wire.OpError {
		t.Errorf("v2 answer % x (%v)", h, err)
	}
	nc.Close()
	// After stepping down, v5 works (the Python driver's 66 -> 65 -> 5),
	// with or without the beta flag.
	c := ts.tcpClient(t, addr, primitive.ProtocolVersion5)
	c.startup("")
	c.rows("SELECT * FROM ks.t", nil)
	nc, err = net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.Write(rawFrame(5, wire.FlagUseBeta, 1, wire.OpOptions, nil))
	f, err := frame.NewCodec().DecodeFrame(nc)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.Body.Message.(*message.Supported); !ok {
		t.Errorf("v5 with USE_BETA: %v", f.Body.Message)
	}
}

// TestProtocolErrorsCloseTheConnection sends malformed input after a valid
// handshake: each is answered with a ProtocolError on its stream and the
// connection is closed.
func TestProtocolErrorsCloseTheConnection(t *testing.T) {
	badQuery := binary.BigEndian.AppendUint32(nil, 1000) // [long string] longer than the body
	cases := []struct {
		name  string
		v     primitive.ProtocolVersion
		frame []byte
		want  string
	}{
		{"unknown opcode", 4, rawFrame(4, 0, 7, 0x42, nil), "Unknown opcode 66"},
		{"response opcode", 4, rawFrame(4, 0, 7, wire.OpResult, nil), "Wrong protocol direction"},
		{"truncated body", 4, rawFrame(4, 0, 7, wire.OpQuery, badQuery), "Invalid QUERY message"},
		{"bad consistency", 4, rawFrame(4, 0, 7, wire.OpQuery, append(binary.BigEndian.AppendUint32(nil, 0), 0, 99, 0)), "consistency"},
		{"compressed without compression", 4, rawFrame(4, wire.FlagCompressed, 7, wire.OpQuery, []byte{1, 2, 3}), "no compression was negotiated"},
		{"too big", 4, rawFrame(4, 0, 7, wire.OpQuery, make([]byte, 2048)), "Request is too big"},
		{"version switch", 4, rawFrame(3, 0, 7, wire.OpOptions, nil), "Invalid message version"},
		{"second startup", 4, rawFrame(4, 0, 7, wire.OpStartup, nil), "already initialized"},
		{"v5 bad envelope", 5, rawFrame(5, 0, 7, wire.OpQuery, badQuery), "Invalid QUERY message"},
	}
	ts := newTestServer(t, func(c *Config) { c.MaxFrameBytes = 1024 })
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := ts.pipeClient(t, tc.v)
			c.startup("")
			c.writeRaw(tc.frame)
			f := c.read()
			e, ok := f.Body.Message.(*message.ProtocolError)
			if !ok || !strings.Contains(e.ErrorMessage, tc.want) {
				t.Fatalf("got %v, want a ProtocolError containing %q", f.Body.Message, tc.want)
			}
			if f.Header.StreamId != 7 {
				t.Errorf("stream %d, want 7", f.Header.StreamId)
			}
			c.expectClosed()
		})
	}
	t.Run("query before startup", func(t *testing.T) {
		c := ts.pipeClient(t, 4)
		m := c.query("SELECT * FROM ks.t", nil)
		if e, ok := m.(*message.ProtocolError); !ok || !strings.Contains(e.ErrorMessage, "expecting STARTUP") {
			t.Fatalf("got %v", m)
		}
		c.expectClosed()
	})
	t.Run("snappy on v5", func(t *testing.T) {
		c := ts.pipeClient(t, 5)
		st := message.NewStartup()
		st.Options["COMPRESSION"] = "snappy"
		if m := c.do(st).Body.Message; m.(message.Error).GetErrorCode() != primitive.ErrorCodeProtocolError {
			t.Fatalf("got %v", m)
		}
	})
}

// TestCorruptSegment checks the v5 CRCs.
func TestCorruptSegment(t *testing.T) {
	ts := newTestServer(t, nil)
	c := ts.pipeClient(t, 5)
	c.startup("")
	var b bytes.Buffer
	c.encodeSegment(&b, c.encode(&message.Options{}, 9), true)
	raw := b.Bytes()
	raw[len(raw)-1] ^= 0xff // payload CRC32
	if _, err := c.nc.Write(raw); err != nil {
		t.Fatal(err)
	}
	f := c.read()
	if e, ok := f.Body.Message.(*message.ProtocolError); !ok || !strings.Contains(e.ErrorMessage, "CRC32") {
		t.Fatalf("got %v", f.Body.Message)
	}
	c.expectClosed()
}
