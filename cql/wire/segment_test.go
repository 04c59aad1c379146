package wire

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"testing"
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
	sw := &SegmentWriter{W: bw}
	sizes := []int{100, 200, 3, MaxSegmentPayload + 10, 50}
	for i, n := range sizes {
		if err := sw.Add(env(int16(i+1), n)); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 { // segments of one and of two envelopes
			if err := sw.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := sw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	s := &SegmentReader{R: bufio.NewReader(&out), MaxFrame: 1 << 20, Reuse: true}
	for i, n := range sizes {
		h, body, err := s.Next()
		if err != nil {
			t.Fatalf("envelope %d: %v", i+1, err)
		}
		if h.Stream != int16(i+1) || !bytes.Equal(body, bytes.Repeat([]byte{byte('a' + i + 1)}, n)) {
			t.Fatalf("envelope %d: stream %d, %d bytes: not what was sent", i+1, h.Stream, len(body))
		}
	}
	if _, _, err := s.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last envelope: %v, want EOF", err)
	}
	if cap(s.buf) == 0 {
		t.Error("reuse read no payload into the reused buffer")
	}
}

// TestSegmentWriterAllocations: writing a segment allocates nothing once
// the writer's buffers are large enough, plain or LZ4, and what it wrote
// reads back (the header and trailer live in the writer and are rewritten
// per segment).
func TestSegmentWriterAllocations(t *testing.T) {
	for _, lz4 := range []bool{false, true} {
		f := StartFrame(nil, 5, 0, 7, OpResult)
		f = append(f, bytes.Repeat([]byte("row "), 300)...)
		FinishFrame(f)
		var out bytes.Buffer
		bw := bufio.NewWriterSize(&out, 64<<10)
		sw := &SegmentWriter{W: bw, Compressed: lz4}
		write := func() {
			if err := sw.Add(f); err != nil {
				t.Fatal(err)
			}
			if err := sw.Flush(); err != nil {
				t.Fatal(err)
			}
			if err := bw.Flush(); err != nil {
				t.Fatal(err)
			}
		}
		write() // the writer's buffers grow once
		if got := testing.AllocsPerRun(100, write); got != 0 {
			t.Errorf("lz4=%v: %v allocations per segment, want 0", lz4, got)
		}
		s := &SegmentReader{R: bufio.NewReader(&out), MaxFrame: 1 << 20, Compressed: lz4}
		for i := 0; i < 102; i++ {
			h, body, err := s.Next()
			if err != nil || h.Stream != 7 || !bytes.Equal(body, f[HeaderLen:]) {
				t.Fatalf("lz4=%v, segment %d: stream %d, %d bytes, %v: not what was written", lz4, i+1, h.Stream, len(body), err)
			}
		}
	}
}

func TestParseSegment(t *testing.T) {
	for _, compressed := range []bool{false, true} {
		var out bytes.Buffer
		bw := bufio.NewWriter(&out)
		sw := &SegmentWriter{W: bw, Compressed: compressed}
		env := bytes.Repeat([]byte("envelope "), 40)
		if err := sw.Add(env); err != nil {
			t.Fatal(err)
		}
		if err := sw.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := bw.Flush(); err != nil {
			t.Fatal(err)
		}
		b := out.Bytes()
		for i := 0; i < len(b); i++ {
			if _, _, n, err := ParseSegment(b[:i], compressed); n != 0 || err != nil {
				t.Fatalf("compressed=%v prefix %d: n=%d err=%v, want incomplete", compressed, i, n, err)
			}
		}
		p, self, n, err := ParseSegment(b, compressed)
		if err != nil || n != len(b) || !self || !bytes.Equal(p, env) {
			t.Fatalf("compressed=%v: n=%d self=%v err=%v, payload equal %v", compressed, n, self, err, bytes.Equal(p, env))
		}
		bad := append([]byte(nil), b...)
		bad[len(bad)-1] ^= 1
		if _, _, _, err := ParseSegment(bad, compressed); err == nil {
			t.Fatalf("compressed=%v: flipped CRC32 byte accepted", compressed)
		}
	}
}
