package cqlserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"
)

// TestSegmentReaderReuse: with reuse, payloads are read into one buffer
// (no allocation per segment once it is large enough), every envelope
// still comes out whole and in order, and a large envelope split over
// segments is assembled into a buffer of its own.
func TestSegmentReaderReuse(t *testing.T) {
	env := func(stream int16, n int) []byte {
		f := StartFrame(nil, 5, 0, stream, OpResult)
		f = append(f, bytes.Repeat([]byte{byte('a' + stream)}, n)...)
		FinishFrame(f)
		return f
	}
	var out bytes.Buffer
	bw := bufio.NewWriter(&out)
	sw := &SegmentWriter{w: bw}
	sizes := []int{100, 200, 3, MaxSegmentPayload + 10, 50}
	for i, n := range sizes {
		if err := sw.add(env(int16(i+1), n)); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 { // segments of one and of two envelopes
			if err := sw.flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := sw.flush(); err != nil {
		t.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	s := &SegmentReader{r: bufio.NewReader(&out), maxFrame: 1 << 20, reuse: true}
	for i, n := range sizes {
		h, body, err := s.next()
		if err != nil {
			t.Fatalf("envelope %d: %v", i+1, err)
		}
		if h.Stream != int16(i+1) || !bytes.Equal(body, bytes.Repeat([]byte{byte('a' + i + 1)}, n)) {
			t.Fatalf("envelope %d: stream %d, %d bytes: not what was sent", i+1, h.Stream, len(body))
		}
	}
	if _, _, err := s.next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last envelope: %v, want EOF", err)
	}
	if cap(s.buf) == 0 {
		t.Error("reuse read no payload into the reused buffer")
	}
}

// echoNode is a fake Cassandra node (unit test, v4 framing) that answers
// STARTUP with READY and any other request with a RESULT whose body is the
// request's body, writing the answers to what it read in one go together.
func echoNode(t *testing.T) string {
	t.Helper()
	return fakeNode(t, func(nc net.Conn) {
		br := bufio.NewReader(nc)
		var out []byte
		for {
			h := make([]byte, HeaderLen)
			if _, err := io.ReadFull(br, h); err != nil {
				return
			}
			body := make([]byte, binary.BigEndian.Uint32(h[5:]))
			if _, err := io.ReadFull(br, body); err != nil {
				return
			}
			op := byte(OpResult)
			if h[4] == OpStartup {
				op, body = OpReady, nil
			}
			out = append(out, rawFrame(0x80|h[0], 0, int16(binary.BigEndian.Uint16(h[2:])), op, body)...)
			if br.Buffered() == 0 { // answers to requests read together leave together
				nc.Write(out)
				out = out[:0]
			}
		}
	})
}

// TestRelayRoundTripOwnsBody: a round trip's answer is the caller's even
// though the connection's reader reads the next answers into the same
// buffer (the waiter copies it).
func TestRelayRoundTripOwnsBody(t *testing.T) {
	addr := echoNode(t)
	bc, err := dialBackend(context.Background(), addr, 4, nil, "", 5*time.Second, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer bc.close(errBackendClosed)
	const n = 16
	chs := make([]rtWaiter, n)
	for i := range chs {
		chs[i] = make(rtWaiter, 1)
		body := bytes.Repeat([]byte{byte('a' + i)}, 64) // same length: an overwrite would not show in len
		if _, ok, err := bc.submit(0, OpQuery, body, chs[i]); !ok || err != nil {
			t.Fatalf("submit %d: %v %v", i, ok, err)
		}
	}
	bc.flush() // one write: the node answers all together
	results := make([]rtResult, n)
	for i, ch := range chs {
		results[i] = <-ch
	}
	for i, r := range results { // read only after every answer was delivered
		if r.err != nil || !bytes.Equal(r.r.body, bytes.Repeat([]byte{byte('a' + i)}, 64)) {
			t.Errorf("answer %d: %q, %v", i, r.r.body, r.err)
		}
	}
}
