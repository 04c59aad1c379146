package wire

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/datastax/go-cassandra-native-protocol/crc"
)

// Protocol v5 framing (native_protocol_v5.spec §2): after STARTUP is
// answered, envelopes travel inside segments. A segment header holds the
// payload length (and, with LZ4, the uncompressed length), a
// self-contained flag and a CRC24 of the header; the payload is followed by
// its CRC32. A self-contained payload holds whole envelopes; an envelope
// larger than one payload is split over consecutive non-self-contained
// segments.

const (
	MaxSegmentPayload = 1<<17 - 1
	SegHeaderPlain    = 3 // header bytes before the CRC24, uncompressed format
	SegHeaderLZ4      = 5 // with LZ4
	SegCRC24Len       = 3
	SegCRC32Len       = 4
)

// SegmentReader reads envelopes from segments.
type SegmentReader struct {
	R          *bufio.Reader
	Compressed bool // the LZ4 segment format
	MaxFrame   int  // envelope body limit (SetMax)
	// Reuse reads every payload into one buffer, overwritten by the next
	// segment: for readers whose envelopes are consumed before the next
	// one is read (a relay's backend connection reader).
	Reuse bool

	rest []byte // unread envelopes of the current self-contained payload
	hdr  [SegHeaderLZ4 + SegCRC24Len]byte
	buf  []byte
}

// Unread is the length of the envelopes left in the current
// self-contained payload: Next returns them without reading.
func (s *SegmentReader) Unread() int { return len(s.rest) }

// readSegment reads one segment and returns its (decompressed) payload.
func (s *SegmentReader) readSegment() (payload []byte, selfContained bool, err error) {
	hl := s.headerLen()
	h := s.hdr[:hl+SegCRC24Len]
	if _, err := io.ReadFull(s.R, h); err != nil {
		return nil, false, err
	}
	v := segHeaderBits(h[:hl])
	want := uint32(h[hl]) | uint32(h[hl+1])<<8 | uint32(h[hl+2])<<16
	if got := crc.ChecksumKoopman(v, hl); got != want {
		return nil, false, ProtocolErrorf("segment header CRC24 mismatch: received %06x, computed %06x", want, got)
	}
	length, uncompressed, selfContained := s.headerFields(v)
	raw := s.payloadBuf(length + SegCRC32Len)
	if _, err := io.ReadFull(s.R, raw); err != nil {
		return nil, false, err
	}
	raw, sum := raw[:length], binary.LittleEndian.Uint32(raw[length:])
	if got := crc.ChecksumIEEE(raw); got != sum {
		return nil, false, ProtocolErrorf("segment payload CRC32 mismatch: received %08x, computed %08x", sum, got)
	}
	if !s.Compressed || uncompressed == 0 {
		return raw, selfContained, nil
	}
	if err := checkDecompressed(int64(uncompressed), len(raw), lz4MaxRatio, MaxSegmentPayload); err != nil {
		return nil, false, ProtocolErrorf("segment payload: %v", err)
	}
	out := make([]byte, uncompressed)
	if err := LZ4Decompress(out, raw); err != nil {
		return nil, false, ProtocolErrorf("cannot decompress segment payload: %v", err)
	}
	return out, selfContained, nil
}

// payloadBuf returns n bytes to read a payload into: the reused buffer
// with reuse, else a new one.
func (s *SegmentReader) payloadBuf(n int) []byte {
	if !s.Reuse {
		return make([]byte, n)
	}
	if cap(s.buf) < n {
		s.buf = make([]byte, n)
	}
	return s.buf[:n]
}

// headerLen is the length of a segment header before its CRC24.
func (s *SegmentReader) headerLen() int {
	if s.Compressed {
		return SegHeaderLZ4
	}
	return SegHeaderPlain
}

// segHeaderBits is a segment header's little-endian bit field.
func segHeaderBits(h []byte) uint64 {
	var v uint64
	for i := len(h) - 1; i >= 0; i-- {
		v = v<<8 | uint64(h[i])
	}
	return v
}

// headerFields splits a header's bits: payload length, uncompressed
// length (LZ4 format; 0: not compressed) and the self-contained flag.
func (s *SegmentReader) headerFields(v uint64) (length, uncompressed int, selfContained bool) {
	length = int(v & MaxSegmentPayload)
	if s.Compressed {
		return length, int(v >> 17 & MaxSegmentPayload), v>>34&1 == 1
	}
	return length, 0, v>>17&1 == 1
}

// NextBuffered tells whether the next segment is wholly in the read
// buffer (reading it cannot block) and whether it is self-contained.
func (s *SegmentReader) NextBuffered() (whole, selfContained bool) {
	hl := s.headerLen()
	n := s.R.Buffered()
	if n < hl {
		return false, false
	}
	h, err := s.R.Peek(hl)
	if err != nil {
		return false, false
	}
	length, _, self := s.headerFields(segHeaderBits(h))
	return n >= hl+SegCRC24Len+length+SegCRC32Len, self
}

// Next returns the next envelope: its header and body.
func (s *SegmentReader) Next() (Header, []byte, error) {
	for len(s.rest) == 0 {
		payload, self, err := s.readSegment()
		if err != nil {
			return Header{}, nil, err
		}
		if self {
			s.rest = payload
			continue
		}
		return s.assemble(payload)
	}
	if len(s.rest) < HeaderLen {
		return Header{}, nil, ProtocolErrorf("self-contained segment ends inside an envelope header")
	}
	h := ParseHeader(s.rest)
	if err := CheckLength(h, s.MaxFrame); err != nil {
		return h, nil, err
	}
	end := HeaderLen + int(h.Length)
	if end > len(s.rest) {
		return h, nil, ProtocolErrorf("self-contained segment ends inside an envelope body")
	}
	body := s.rest[HeaderLen:end:end]
	s.rest = s.rest[end:]
	return h, body, nil
}

// assemble collects an envelope split over non-self-contained segments.
func (s *SegmentReader) assemble(first []byte) (Header, []byte, error) {
	if len(first) < HeaderLen {
		return Header{}, nil, ProtocolErrorf("first segment of a large envelope is shorter than its header")
	}
	h := ParseHeader(first)
	if err := CheckLength(h, s.MaxFrame); err != nil {
		return h, nil, err
	}
	total := HeaderLen + int(h.Length)
	buf := make([]byte, 0, min(total, 1<<20)) // grows as segments arrive
	buf = append(buf, first...)
	for len(buf) < total {
		part, self, err := s.readSegment()
		if err != nil {
			return h, nil, err
		}
		if self {
			return h, nil, ProtocolErrorf("self-contained segment inside a large envelope")
		}
		buf = append(buf, part...)
	}
	if len(buf) != total {
		return h, nil, ProtocolErrorf("large envelope has %d trailing bytes", len(buf)-total)
	}
	return h, buf[HeaderLen:], nil
}

// SetMax sets the envelope limit (raised once the connection is ready).
func (s *SegmentReader) SetMax(max int) {
	if s != nil {
		s.MaxFrame = max
	}
}

// CheckLength rejects negative bodies and bodies over the limit.
func CheckLength(h Header, max int) error {
	if h.Length < 0 {
		return ProtocolErrorf("invalid frame body length %d", h.Length)
	}
	if int64(h.Length) > int64(max) {
		return &TooBigError{Length: int64(h.Length), Max: max}
	}
	return nil
}

// TooBigError is a frame over MaxFrameBytes.
type TooBigError struct {
	Length int64
	Max    int
	Stream int16 // the offending frame's stream (see WithStream)
}

// Error is the message Cassandra sends for a frame over its limit.
func (e *TooBigError) Error() string {
	return fmt.Sprintf("Request is too big: length %d exceeds maximum allowed length %d.", e.Length, e.Max)
}

// SegmentWriter packs envelopes into segments.
type SegmentWriter struct {
	W          *bufio.Writer
	Compressed bool   // the LZ4 segment format
	pending    []byte // envelopes of the next self-contained segment
	scratch    []byte
	// A segment's header and trailer are built here: on the stack they
	// escaped (bufio hands a large write to its io.Writer), one
	// allocation per segment.
	hdr [SegHeaderLZ4 + SegCRC24Len]byte
	trl [SegCRC32Len]byte
}

// Add queues one envelope, splitting it when it exceeds a payload.
func (s *SegmentWriter) Add(env []byte) error {
	if len(env) > MaxSegmentPayload {
		if err := s.Flush(); err != nil {
			return err
		}
		for len(env) > 0 {
			n := min(len(env), MaxSegmentPayload)
			if err := s.write(env[:n], false); err != nil {
				return err
			}
			env = env[n:]
		}
		return nil
	}
	if len(s.pending)+len(env) > MaxSegmentPayload {
		if err := s.Flush(); err != nil {
			return err
		}
	}
	s.pending = append(s.pending, env...)
	return nil
}

// Flush writes the pending envelopes as one self-contained segment.
func (s *SegmentWriter) Flush() error {
	if len(s.pending) == 0 {
		return nil
	}
	err := s.write(s.pending, true)
	s.pending = s.pending[:0]
	return err
}

func (s *SegmentWriter) write(payload []byte, self bool) error {
	var selfBit uint64
	if self {
		selfBit = 1
	}
	var v uint64
	hl := SegHeaderPlain
	body := payload
	if s.Compressed {
		hl = SegHeaderLZ4
		s.scratch = LZ4Compress(s.scratch[:0], payload)
		if len(s.scratch) < len(payload) {
			body = s.scratch
			v = uint64(len(body)) | uint64(len(payload))<<17 | selfBit<<34
		} else { // not worth it: uncompressed length 0 says "not compressed"
			v = uint64(len(payload)) | selfBit<<34
		}
	} else {
		v = uint64(len(payload)) | selfBit<<17
	}
	h := &s.hdr
	for i := 0; i < hl; i++ {
		h[i] = byte(v >> (8 * i))
	}
	c := crc.ChecksumKoopman(v, hl)
	h[hl], h[hl+1], h[hl+2] = byte(c), byte(c>>8), byte(c>>16)
	if _, err := s.W.Write(h[:hl+SegCRC24Len]); err != nil {
		return err
	}
	if _, err := s.W.Write(body); err != nil {
		return err
	}
	binary.LittleEndian.PutUint32(s.trl[:], crc.ChecksumIEEE(body))
	_, err := s.W.Write(s.trl[:])
	return err
}

// ParseSegment decodes one v5 segment from the start of b, for readers
// that hold bytes rather than a stream (a packet-capture importer): n is
// the segment's length in b, 0 when b does not yet hold all of it (with
// a nil error). Header and payload CRCs are checked and an LZ4 payload
// is decompressed (compressed: the connection negotiated LZ4) into a new
// slice; an uncompressed payload is a slice of b.
func ParseSegment(b []byte, compressed bool) (payload []byte, selfContained bool, n int, err error) {
	s := SegmentReader{Compressed: compressed}
	hl := s.headerLen()
	if len(b) < hl+SegCRC24Len {
		return nil, false, 0, nil
	}
	v := segHeaderBits(b[:hl])
	want := uint32(b[hl]) | uint32(b[hl+1])<<8 | uint32(b[hl+2])<<16
	if got := crc.ChecksumKoopman(v, hl); got != want {
		return nil, false, 0, ProtocolErrorf("segment header CRC24 mismatch: received %06x, computed %06x", want, got)
	}
	length, uncompressed, self := s.headerFields(v)
	start := hl + SegCRC24Len
	end := start + length + SegCRC32Len
	if len(b) < end {
		return nil, false, 0, nil
	}
	raw, sum := b[start:start+length:start+length], binary.LittleEndian.Uint32(b[start+length:end])
	if got := crc.ChecksumIEEE(raw); got != sum {
		return nil, false, 0, ProtocolErrorf("segment payload CRC32 mismatch: received %08x, computed %08x", sum, got)
	}
	if !compressed || uncompressed == 0 {
		return raw, self, end, nil
	}
	if err := checkDecompressed(int64(uncompressed), len(raw), lz4MaxRatio, MaxSegmentPayload); err != nil {
		return nil, false, 0, ProtocolErrorf("segment payload: %v", err)
	}
	out := make([]byte, uncompressed)
	if err := LZ4Decompress(out, raw); err != nil {
		return nil, false, 0, ProtocolErrorf("cannot decompress segment payload: %v", err)
	}
	return out, self, end, nil
}

// SegmentHeaderLen is the length of a segment header with its CRC24:
// 6 bytes, or 8 in the LZ4 format.
func SegmentHeaderLen(compressed bool) int {
	if compressed {
		return SegHeaderLZ4 + SegCRC24Len
	}
	return SegHeaderPlain + SegCRC24Len
}
