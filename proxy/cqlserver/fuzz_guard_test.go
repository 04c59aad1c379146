package cqlserver

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"net"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/segment"

	"github.com/dohyo/dohyo/cql/wire"
)

// Fuzz targets for the frame reader in each connection state, and for
// compressed bodies: whatever the bytes, nothing panics and no body (or
// decompressed body) exceeds the limit of the state it was read in.

// fuzzConn is a net.Conn whose deadlines are no-ops.
type fuzzConn struct{ net.Conn }

func (fuzzConn) SetDeadline(time.Time) error      { return nil }
func (fuzzConn) SetReadDeadline(time.Time) error  { return nil }
func (fuzzConn) SetWriteDeadline(time.Time) error { return nil }
func (fuzzConn) Close() error                     { return nil }
func (fuzzConn) RemoteAddr() net.Addr             { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1} }

const (
	fuzzPreAuth = 4 << 10
	fuzzMax     = 64 << 10
)

// fuzzReader returns a connection reading data in the given state: init,
// authenticating (v3/v4 or v5 segments, LZ4 or not), or ready.
func fuzzReader(srv *Server, data []byte, state connState, v5, lz4 bool) *conn {
	c := &conn{srv: srv, nc: fuzzConn{}, state: state, br: bufio.NewReader(bytes.NewReader(data))}
	if state != stateInit {
		c.version = 4
		if v5 {
			c.version = 5
			c.seg = &wire.SegmentReader{R: c.br, Compressed: lz4, MaxFrame: fuzzPreAuth}
		}
	}
	if state == stateReady {
		c.ready = true
		c.seg.SetMax(fuzzMax)
	}
	return c
}

func checkFrames(t *testing.T, c *conn) {
	limit := c.frameLimit()
	for i := 0; i < 64; i++ {
		h, body, err := c.readFrame()
		if err != nil {
			return
		}
		if len(body) > limit || int(h.Length) > limit {
			t.Fatalf("read a body of %d bytes (header %d) over the limit %d", len(body), h.Length, limit)
		}
		if h.Flags&wire.FlagCompressed != 0 && h.Version < 5 {
			for _, codec := range []wire.BodyCodec{wire.LZ4Body{}, wire.SnappyBody{}} {
				if out, err := codec.Decompress(body, limit); err == nil && len(out) > limit {
					t.Fatalf("%s: decompressed %d bytes over the limit %d", codec.Name(), len(out), limit)
				}
			}
		}
	}
}

func fuzzServer(f *testing.F) *Server {
	return newTestServer(f, func(c *Config) { c.MaxFrameBytes = fuzzMax; c.PreAuthFrameBytes = fuzzPreAuth }).srv
}

func frameSeeds(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s, false, false)
	}
	huge := rawFrame(4, 0, 1, wire.OpOptions, nil)
	binary.BigEndian.PutUint32(huge[5:], 256<<20)
	f.Add(huge, false, false)
	f.Add(lz4Bomb(wire.OpAuthResponse, 2, 64, 256<<20), false, false)
	f.Add(lz4Bomb(wire.OpQuery, 2, 64, 60<<10), false, false)
	var seg bytes.Buffer
	segment.NewCodec().EncodeSegment(&segment.Segment{Header: &segment.Header{IsSelfContained: true},
		Payload: &segment.Payload{UncompressedData: rawFrame(5, 0, 1, wire.OpAuthResponse, []byte{0, 0, 0, 2, 0, 0})}}, &seg)
	f.Add(seg.Bytes(), true, false)
	f.Add(seg.Bytes(), true, true)
}

// FuzzFramePreAuth reads frames before and during authentication.
func FuzzFramePreAuth(f *testing.F) {
	frameSeeds(f)
	srv := fuzzServer(f)
	f.Fuzz(func(t *testing.T, data []byte, v5, lz4 bool) {
		checkFrames(t, fuzzReader(srv, data, stateInit, false, false))
		checkFrames(t, fuzzReader(srv, data, stateAuth, v5, lz4))
	})
}

// FuzzFrameReady reads frames once the connection is ready.
func FuzzFrameReady(f *testing.F) {
	frameSeeds(f)
	srv := fuzzServer(f)
	f.Fuzz(func(t *testing.T, data []byte, v5, lz4 bool) {
		checkFrames(t, fuzzReader(srv, data, stateReady, v5, lz4))
	})
}
