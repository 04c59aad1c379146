package capture

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/dohyo/dohyo/bindings"
)

// multiFrameSegment writes a small segment of several frames and a
// trailer, and returns its bytes.
func multiFrameSegment(t *testing.T, frames, perFrame int) []byte {
	t.Helper()
	cfg := testConfig(t)
	w := newWriter(t, cfg)
	obs := sampleObservations()
	n := 0
	for f := 0; f < frames; f++ {
		for i := 0; i < perFrame; i++ {
			o := *obs[n%len(obs)]
			o.Seq = uint64(n)
			w.Observe(&o)
			n++
		}
		flushWriter(t, w)
	}
	closeWriter(t, w)
	return mustRead(t, onlySegment(t, cfg.Dir))
}

// readAllBytes reads a segment from memory; it fails the test on errors.
func readAllBytes(t *testing.T, data []byte) (recs []*Record, r *Reader) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("NewReader(%d bytes): %v", len(data), err)
	}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return recs, r
		}
		if err != nil {
			t.Fatalf("%d bytes: Next after %d records: %v", len(data), len(recs), err)
		}
		recs = append(recs, rec)
	}
}

// TestTornTail cuts a segment at every byte offset: each prefix must read
// without error, return exactly the records of the frames it holds
// completely, and say torn unless the cut falls on a block boundary.
func TestTornTail(t *testing.T) {
	data := multiFrameSegment(t, 4, 5)

	// Where each record's frame ends, from a full read.
	full, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	boundaries := map[int64]bool{full.hdrLen: true, int64(len(data)): true}
	var ends []int64
	var want []*Record
	for {
		rec, err := full.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ends = append(ends, full.Stats().FileBytes)
		boundaries[full.Stats().FileBytes] = true
		want = append(want, rec)
	}
	if len(want) != 20 || len(boundaries) != 6 { // header, 4 frames, trailer
		t.Fatalf("setup: %d records, %d boundaries", len(want), len(boundaries))
	}

	for cut := 0; cut <= len(data); cut++ {
		recs, r := readAllBytes(t, data[:cut])
		n := 0
		for _, e := range ends {
			if e <= int64(cut) {
				n++
			}
		}
		if len(recs) != n {
			t.Fatalf("cut at %d: got %d records, want %d", cut, len(recs), n)
		}
		for i := range recs {
			if recs[i].Seq != want[i].Seq || recs[i].Query != want[i].Query {
				t.Fatalf("cut at %d: record %d differs", cut, i)
			}
		}
		if wantTorn := !boundaries[int64(cut)]; r.Torn() != wantTorn {
			t.Fatalf("cut at %d: Torn() = %v, want %v", cut, r.Torn(), wantTorn)
		}
		if _, ok := r.Trailer(); ok != (cut == len(data)) {
			t.Fatalf("cut at %d: trailer present = %v", cut, ok)
		}
	}
}

// A machine crash can leave the file extended with zeros.
func TestZeroFilledTail(t *testing.T) {
	data := multiFrameSegment(t, 2, 3)
	recs, r := readAllBytes(t, data)
	if len(recs) != 6 {
		t.Fatalf("setup: %d records", len(recs))
	}
	// Cut at the end of the last frame (the trailer is lost); zeros follow.
	r2, _ := NewReader(bytes.NewReader(data))
	for range 6 {
		r2.Next()
	}
	cut := int(r2.Stats().FileBytes)
	padded := append(append([]byte(nil), data[:cut]...), make([]byte, 5000)...)
	recs, r = readAllBytes(t, padded)
	if !r.Torn() || len(recs) != 6 {
		t.Errorf("zero tail: torn=%v records=%d, want torn and 6", r.Torn(), len(recs))
	}
}

func TestCorruptMiddle(t *testing.T) {
	data := multiFrameSegment(t, 3, 4)
	full, _ := NewReader(bytes.NewReader(data))
	full.Next()
	firstFrameEnd := full.Stats().FileBytes
	hdrLen := full.hdrLen

	cases := []struct {
		name string
		off  int64 // byte to flip
		want int64 // offset the error must name
	}{
		{"frame payload", hdrLen + blockHeaderLen + 3, hdrLen},
		{"frame header length", hdrLen + 2, hdrLen},
		{"second frame", firstFrameEnd + blockHeaderLen + 1, firstFrameEnd},
		{"file header", 12, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bad := append([]byte(nil), data...)
			bad[c.off] ^= 0x5a
			r, err := NewReader(bytes.NewReader(bad))
			var n int
			for err == nil {
				_, err = r.Next()
				n++
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("err = %v, want ErrCorrupt", err)
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("offset %d:", c.want)) {
				t.Errorf("err = %v, want it to name offset %d", err, c.want)
			}
			if c.want == firstFrameEnd && n != 5 {
				t.Errorf("read %d records before the damage, want the first frame's 4", n-1)
			}
		})
	}
}

// wrapFrame builds a valid segment whose only frame holds body, so the
// fuzzer reaches the entry decoder behind the checksums.
func wrapFrame(enc *zstd.Encoder, body []byte) []byte {
	out := encodeHeader(Header{Node: "fuzz", DohyoVersion: "v"})
	payload := enc.EncodeAll(body, nil)
	blk := make([]byte, blockHeaderLen)
	putBlockHeader(blk, blockHeader{typ: blockFrame, stored: uint32(len(payload)),
		raw: uint32(len(body)), crc: crc32.Checksum(payload, crcTable)})
	return append(append(out, blk...), payload...)
}

// FuzzReader: arbitrary bytes never panic and never allocate beyond the
// format's limits. An odd first byte wraps the rest as a frame body.
func FuzzReader(f *testing.F) {
	seg := fuzzSeed(f)
	f.Add(append([]byte{0}, seg...))
	f.Add(append([]byte{0}, seg[:len(seg)/2]...))
	fe := newFrameEncoder(nil)
	for _, o := range sampleObservations() {
		fe.appendStatement(0, &stmtInfo{key: stmtKey{keyspace: o.Keyspace, text: o.Query}, fingerprint: "fp"})
		fe.appendRecord(o, 0, nil, false)
	}
	f.Add(append([]byte{1}, fe.body()...))
	f.Add([]byte{1, 3, 2, entryRecord, 0x00, 0x05})
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	if err != nil {
		f.Fatal(err)
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 0 {
			if data[0]&1 == 1 {
				data = wrapFrame(enc, data[1:])
			} else {
				data = data[1:]
			}
		}
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		defer r.Close()
		var b bytes.Buffer
		for i := 0; i < 1<<20; i++ {
			rec, err := r.Next()
			if err != nil {
				return
			}
			b.Reset()
			if err := DumpJSON(&b, rec); err != nil {
				t.Fatalf("DumpJSON: %v", err)
			}
		}
	})
}

func fuzzSeed(f *testing.F) []byte {
	dir := f.TempDir()
	w, err := NewWriter(WriterConfig{Dir: dir, NodeID: "seed"})
	if err != nil {
		f.Fatal(err)
	}
	for _, o := range sampleObservations() {
		w.Observe(o)
	}
	w.Flush(context.Background())
	o := *sampleObservations()[0]
	o.Values = []bindings.Value{{Bytes: []byte("user1")}}
	w.Observe(&o)
	w.Close(context.Background())
	segs, err := ReadDir(dir)
	if err != nil || len(segs) != 1 {
		f.Fatalf("seed: %v, %d segments", err, len(segs))
	}
	b, err := os.ReadFile(segs[0].Path)
	if err != nil {
		f.Fatal(err)
	}
	return b
}
