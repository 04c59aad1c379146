package capture

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"time"

	"github.com/klauspost/compress/zstd"
)

// Header is a segment's file header.
type Header struct {
	Major, Minor int
	Node         string
	Start        time.Time // UTC
	Seq          uint64
	DohyoVersion string
	SchemaDDL    string // the schema when the segment was opened
}

// Trailer holds the counts a writer records when it closes a segment
// cleanly.
type Trailer struct {
	Records    uint64
	Dropped    uint64 // records lost while this segment was open
	Statements uint64
	Frames     uint64
	First      int64 // earliest record time (Unix ns); 0 without records
	Last       int64 // latest record time
	Closed     int64 // when the segment was closed
	RawBytes   uint64
}

// Reader reads the records of one segment in the order they were written.
type Reader struct {
	r      *bufio.Reader
	closer io.Closer
	off    int64 // file offset of the next unread byte
	hdrLen int64 // size of the file header
	hdr    Header
	dec    *zstd.Decoder
	fd     frameDecoder
	defs   []stmtDef
	schema string

	frameOff int64 // file offset of the current frame's block header
	payload  []byte
	dropped  uint64
	frames   uint64
	rawBytes uint64
	schemas  int

	torn   bool
	tornAt int64
	// tornBadSum: the torn tail is a whole block with a wrong checksum
	// (not zeros, not short): corruption rather than a crash.
	tornBadSum bool
	trailer    *Trailer
	eof        bool
	err        error
}

// Open opens a segment file. A file cut short inside its header reads as an
// empty torn segment; data that is not a segment, a newer major version or a
// damaged header are errors.
func Open(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	r, err := NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("capture: %s: %w", path, err)
	}
	r.closer = f
	return r, nil
}

// NewReader reads a segment from r.
func NewReader(rd io.Reader) (*Reader, error) {
	r := &Reader{r: bufio.NewReaderSize(rd, 64<<10)}
	if err := r.readHeader(); err != nil {
		return nil, err
	}
	return r, nil
}

// Close closes the underlying file (Open) and releases the decoder.
func (r *Reader) Close() error {
	if r.dec != nil {
		r.dec.Close()
		r.dec = nil
	}
	if r.closer != nil {
		err := r.closer.Close()
		r.closer = nil
		return err
	}
	return nil
}

// Header returns the segment header (zero fields when the header is torn).
func (r *Reader) Header() Header { return r.hdr }

// Torn reports whether the segment ends with an incomplete block — a crash
// while writing; everything before it was read.
func (r *Reader) Torn() bool { return r.torn }

// TornCorrupt reports whether the torn tail is a complete block whose
// checksum does not match (bit rot, an overwritten trailer) rather than a
// block cut short or zero-filled by a crash. Readers may still skip it;
// verification reports it.
func (r *Reader) TornCorrupt() bool { return r.tornBadSum }

// TornAt is the file offset where the torn tail starts.
func (r *Reader) TornAt() int64 { return r.tornAt }

// Trailer returns the segment's trailer once Next has reached it; ok is
// false for segments that were not closed cleanly.
func (r *Reader) Trailer() (t Trailer, ok bool) {
	if r.trailer == nil {
		return Trailer{}, false
	}
	return *r.trailer, true
}

// Schema returns the schema DDL in force at the last record returned: the
// header's, updated by schema entries read so far.
func (r *Reader) Schema() string { return r.schema }

// Dropped is the number of records the writer reported lost, in the part of
// the segment read so far.
func (r *Reader) Dropped() uint64 { return r.dropped }

// ReaderStats are byte counts of the part of a segment read so far.
type ReaderStats struct {
	Frames    uint64
	RawBytes  uint64 // uncompressed frame bytes
	FileBytes int64  // bytes consumed from the file
	Schemas   int    // schema change entries
}

// Stats returns byte counts of the part read so far.
func (r *Reader) Stats() ReaderStats {
	return ReaderStats{Frames: r.frames, RawBytes: r.rawBytes, FileBytes: r.off, Schemas: r.schemas}
}

// readFull reads len(b) bytes; n tells how many arrived before EOF.
func (r *Reader) readFull(b []byte) (int, error) {
	n, err := io.ReadFull(r.r, b)
	r.off += int64(n)
	return n, err
}

// readN reads n bytes into the reusable payload buffer, growing it as data
// actually arrives so a lying length cannot force a huge allocation.
func (r *Reader) readN(n int) ([]byte, error) {
	buf := r.payload[:0]
	for len(buf) < n {
		chunk := min(n-len(buf), 1<<20)
		buf = append(buf, make([]byte, chunk)...)
		got, err := r.readFull(buf[len(buf)-chunk:])
		if err != nil {
			r.payload = buf[:0]
			return buf[:len(buf)-chunk+got], err
		}
	}
	r.payload = buf[:0]
	return buf, nil
}

func (r *Reader) setTorn(at int64) {
	r.torn, r.tornAt, r.eof = true, at, true
}

// restIsZero consumes the rest of the input and reports whether it is all
// zero bytes (a machine crash can leave a zero-filled tail).
func (r *Reader) restIsZero() bool {
	var buf [4096]byte
	for {
		n, err := r.r.Read(buf[:])
		for _, c := range buf[:n] {
			if c != 0 {
				return false
			}
		}
		if err != nil {
			return err == io.EOF
		}
	}
}

func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

func (r *Reader) readHeader() error {
	var fixed [headerFixedLen]byte
	n, err := r.readFull(fixed[:])
	if m := min(n, len(magic)); !bytes.Equal(fixed[:m], []byte(magic[:m])) {
		return ErrNotSegment
	}
	if err != nil {
		r.setTorn(0)
		return nil
	}
	major, minor := int(fixed[4]), int(fixed[5])
	if major != FormatMajor {
		return fmt.Errorf("%w: segment format %d.%d, this reader understands %d.x",
			ErrVersion, major, minor, FormatMajor)
	}
	size := binary.LittleEndian.Uint32(fixed[6:])
	if size > maxHeaderBody {
		return corruptf(6, "header length %d exceeds %d", size, maxHeaderBody)
	}
	body, err := r.readN(int(size))
	if err != nil {
		r.setTorn(0)
		return nil
	}
	var crc [4]byte
	if _, err := r.readFull(crc[:]); err != nil {
		r.setTorn(0)
		return nil
	}
	h := crc32.New(crcTable)
	h.Write(fixed[:])
	h.Write(body)
	if binary.LittleEndian.Uint32(crc[:]) != h.Sum32() {
		if isZero(crc[:]) && r.restIsZero() {
			r.setTorn(0)
			return nil
		}
		return corruptf(0, "header checksum mismatch")
	}
	c := cursor{b: body}
	r.hdr = Header{Major: major, Minor: minor}
	r.hdr.Node = c.string()
	r.hdr.Start = time.Unix(0, int64(c.fixed64())).UTC()
	r.hdr.Seq = c.uvarint()
	r.hdr.DohyoVersion = c.string()
	r.hdr.SchemaDDL = c.string()
	if c.err != nil { // fields appended by newer minor versions are skipped
		return corruptf(headerFixedLen, "header: %v", c.err)
	}
	r.schema = r.hdr.SchemaDDL
	r.hdrLen = r.off
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxMemory(maxBlockBytes), zstd.WithDecoderMaxWindow(8<<20))
	if err != nil {
		return fmt.Errorf("capture: zstd: %w", err)
	}
	r.dec = dec
	return nil
}

// Next returns the next record, io.EOF at the end of the segment (also when
// its tail is torn: see Torn), or an error naming the offset of corrupt
// data. Records before a torn or corrupt block are always returned.
func (r *Reader) Next() (*Record, error) {
	for {
		if r.err != nil {
			return nil, r.err
		}
		if !r.fd.done() {
			rec, err := r.nextEntry()
			if err != nil {
				r.err = err
				return nil, err
			}
			if rec != nil {
				return rec, nil
			}
			continue
		}
		if r.eof {
			return nil, io.EOF
		}
		if err := r.nextBlock(); err != nil {
			r.err = err
		}
	}
}

// nextEntry decodes one entry of the current frame: a record, or nil after
// a definition, schema change or drop note.
func (r *Reader) nextEntry() (*Record, error) {
	kind, body, pos, err := r.fd.entry()
	bad := func(err error) error {
		return corruptf(r.frameOff, "frame entry at byte %d of its uncompressed body: %v", pos, err)
	}
	if err != nil {
		return nil, bad(err)
	}
	switch kind {
	case entryRecord:
		rec, err := r.fd.record(body, r.defs)
		if err != nil {
			return nil, bad(err)
		}
		rec.Node = r.hdr.Node
		return rec, nil
	case entryStatement:
		id, def, err := decodeStatement(body)
		switch {
		case err != nil:
			return nil, bad(err)
		case id < uint64(len(r.defs)):
			r.defs[id] = def
		case id == uint64(len(r.defs)):
			r.defs = append(r.defs, def)
		default:
			return nil, bad(fmt.Errorf("statement id %d out of sequence", id))
		}
	case entrySchema:
		_, ddl, err := decodeSchema(body)
		if err != nil {
			return nil, bad(err)
		}
		r.schema = ddl
		r.schemas++
	case entryDropped:
		n, err := decodeDropped(body)
		if err != nil {
			return nil, bad(err)
		}
		r.dropped += n
	}
	// Unknown kinds come from newer minor versions: skipped.
	return nil, nil
}

// nextBlock reads the next frame or the trailer. It sets eof at the clean
// end of data, torn for an incomplete tail, and returns an error only for
// damage followed by more data.
func (r *Reader) nextBlock() error {
	start := r.off
	var hb [blockHeaderLen]byte
	n, err := r.readFull(hb[:])
	if err != nil {
		if n == 0 && err == io.EOF {
			r.eof = true
		} else {
			r.setTorn(start)
		}
		return nil
	}
	h, ok := parseBlockHeader(hb[:])
	if !ok || h.stored > maxBlockBytes || h.raw > maxBlockBytes {
		if isZero(hb[:]) && r.restIsZero() {
			r.setTorn(start)
			return nil
		}
		if !ok {
			return corruptf(start, "block header checksum mismatch")
		}
		return corruptf(start, "block of %d/%d bytes exceeds the limit", h.stored, h.raw)
	}
	payload, err := r.readN(int(h.stored))
	if err != nil {
		r.setTorn(start)
		return nil
	}
	if crc32.Checksum(payload, crcTable) != h.crc {
		if _, err := r.r.Peek(1); err == io.EOF || r.restIsZero() {
			r.setTorn(start) // the last block was only partly persisted
			r.tornBadSum = !isZero(payload)
			return nil
		}
		return corruptf(start, "block payload checksum mismatch")
	}
	switch h.typ {
	case blockFrame:
		body, err := r.dec.DecodeAll(payload, make([]byte, 0, min(int(h.raw), 1<<20)))
		if err != nil {
			return corruptf(start, "frame does not decompress: %v", err)
		}
		if len(body) != int(h.raw) {
			return corruptf(start, "frame decompresses to %d bytes, header says %d", len(body), h.raw)
		}
		if err := r.fd.reset(body); err != nil {
			return corruptf(start, "frame: %v", err)
		}
		r.frameOff = start
		r.frames++
		r.rawBytes += uint64(len(body))
	case blockTrailer:
		c := cursor{b: payload}
		t := Trailer{Records: c.uvarint(), Dropped: c.uvarint(), Statements: c.uvarint(),
			Frames: c.uvarint(), First: c.varint(), Last: c.varint(), Closed: c.varint(),
			RawBytes: c.uvarint()}
		if c.err != nil {
			return corruptf(start, "trailer: %v", c.err)
		}
		r.trailer = &t
		if _, err := r.r.Peek(1); err != io.EOF {
			return corruptf(r.off, "data after the trailer")
		}
		r.eof = true
	}
	// Unknown block types come from newer minor versions: skipped.
	return nil
}
