package cqlserver

import (
	"bufio"
	"bytes"
	"testing"

	"github.com/dohyo/dohyo/cql/wire"
)

// TestNextFrameBufferedV5: the reader holds back relayed writes while the
// client's next v5 envelope can be read without waiting — more envelopes
// in the current segment, or a whole self-contained segment buffered — and
// not when the next segment is incomplete.
func TestNextFrameBufferedV5(t *testing.T) {
	env := func(stream int16) []byte {
		f := wire.StartFrame(nil, 5, 0, stream, wire.OpQuery)
		f = append(f, bytes.Repeat([]byte{'q'}, 20)...)
		wire.FinishFrame(f)
		return f
	}
	for _, lz4 := range []bool{false, true} {
		var out bytes.Buffer
		bw := bufio.NewWriter(&out)
		sw := &wire.SegmentWriter{W: bw, Compressed: lz4}
		// Segment 1: envelopes 1 and 2; segment 2: envelope 3.
		for _, e := range [][]byte{env(1), env(2)} {
			if err := sw.Add(e); err != nil {
				t.Fatal(err)
			}
		}
		if err := sw.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := sw.Add(env(3)); err != nil {
			t.Fatal(err)
		}
		if err := sw.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := bw.Flush(); err != nil {
			t.Fatal(err)
		}
		whole := out.Bytes()
		for _, cut := range []int{0, 2} { // all bytes, or segment 2 missing its last 2
			br := bufio.NewReaderSize(bytes.NewReader(whole[:len(whole)-cut]), 1<<16)
			c := &conn{br: br}
			c.seg = &wire.SegmentReader{R: br, Compressed: lz4, MaxFrame: 1 << 20}
			if _, err := br.Peek(len(whole) - cut); err != nil {
				t.Fatal(err) // everything the client sent is buffered
			}
			read := func(want int16) {
				h, _, err := c.seg.Next()
				if err != nil || h.Stream != want {
					t.Fatalf("lz4=%v cut=%d: envelope %d: stream %d, %v", lz4, cut, want, h.Stream, err)
				}
			}
			read(1)
			if !c.nextFrameBuffered() {
				t.Errorf("lz4=%v cut=%d: envelope 2 is in the current segment, but not reported buffered", lz4, cut)
			}
			read(2)
			if got, want := c.nextFrameBuffered(), cut == 0; got != want {
				t.Errorf("lz4=%v cut=%d: after segment 1, buffered = %v, want %v", lz4, cut, got, want)
			}
			if cut == 0 {
				read(3)
				if c.nextFrameBuffered() {
					t.Errorf("lz4=%v: nothing left, but reported buffered", lz4)
				}
			}
		}
	}
}
