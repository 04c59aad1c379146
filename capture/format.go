package capture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// Byte-level constants of the segment format; docs/capture-format.md is the
// specification and must change together with this file.
const (
	magic = "DCAP"

	// FormatMajor is the segment format's major version: readers reject
	// segments with a larger major version.
	FormatMajor = 1
	// FormatMinor is the minor version this package writes. Minor versions
	// only add optional data (new entry kinds, fields appended to entries,
	// fields appended to the header and trailer) that older readers skip.
	FormatMinor = 0

	// fixed part of the file header: magic, major, minor, body length.
	headerFixedLen = 4 + 1 + 1 + 4

	// block header: type, stored length, raw length, payload CRC, header CRC.
	blockHeaderLen = 1 + 4 + 4 + 4 + 4

	blockFrame   = 'F' // zstd-compressed batch of entries
	blockTrailer = 'T' // uncompressed counts, written on clean close

	// Entry kinds inside a frame.
	entryRecord    = 0x01
	entryStatement = 0x02
	entrySchema    = 0x03
	entryDropped   = 0x04

	// Limits that bound a reader's memory whatever the file says.
	maxHeaderBody = 64 << 20
	maxBlockBytes = 64 << 20
	maxEntryCount = 1 << 24
)

// Record flag bits (uvarint). Fields guarded by a bit are present only when
// it is set; minor versions may add bits for fields appended at the end.
const (
	flagPrepared     = 1 << 0
	flagSource       = 1 << 1 // source is not cql: a uvarint follows
	flagErr          = 1 << 2
	flagHasMore      = 1 << 3
	flagTimestamp    = 1 << 4
	flagPaging       = 1 << 5 // the request carried a paging state
	flagPagingBytes  = 1 << 6 // ... and its bytes are stored
	flagBatch        = 1 << 7
	flagNames        = 1 << 8
	flagDigest       = 1 << 9
	flagSerial       = 1 << 10
	flagPageSize     = 1 << 11
	flagRows         = 1 << 12
	flagResultKind   = 1 << 13
	stmtFlagPrepared = 1 << 0
	stmtFlagRedacted = 1 << 1 // text replaced by its fingerprint (redaction)
)

// Value header kinds (low 3 bits of a value's uvarint header; the rest is a
// length).
const (
	valBytes  = 0 // n bytes follow (in the record's value area)
	valNull   = 1
	valUnset  = 2
	valDrop   = 3 // redacted: dropped
	valHash   = 4 // redacted: n bytes of keyed hash follow
	valLength = 5 // redacted: only the original length n is kept
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// Errors a reader reports.
var (
	// ErrNotSegment means the data does not start with the segment magic.
	ErrNotSegment = errors.New("capture: not a capture segment")
	// ErrVersion means the segment's major format version is newer than
	// this reader understands.
	ErrVersion = errors.New("capture: unsupported segment format version")
	// ErrCorrupt means data in the middle of a segment is damaged; the
	// error's text names the byte offset.
	ErrCorrupt = errors.New("capture: corrupt segment")
)

func corruptf(off int64, format string, args ...any) error {
	return fmt.Errorf("%w at offset %d: %s", ErrCorrupt, off, fmt.Sprintf(format, args...))
}

// blockHeader is the fixed header in front of every frame and the trailer.
type blockHeader struct {
	typ    byte
	stored uint32 // bytes of payload in the file
	raw    uint32 // uncompressed payload length
	crc    uint32 // CRC-32C of the stored payload
}

func putBlockHeader(dst []byte, h blockHeader) {
	dst[0] = h.typ
	binary.LittleEndian.PutUint32(dst[1:], h.stored)
	binary.LittleEndian.PutUint32(dst[5:], h.raw)
	binary.LittleEndian.PutUint32(dst[9:], h.crc)
	binary.LittleEndian.PutUint32(dst[13:], crc32.Checksum(dst[:13], crcTable))
}

// parseBlockHeader decodes a block header; ok is false when its own CRC does
// not match.
func parseBlockHeader(b []byte) (h blockHeader, ok bool) {
	if binary.LittleEndian.Uint32(b[13:]) != crc32.Checksum(b[:13], crcTable) {
		return h, false
	}
	return blockHeader{
		typ:    b[0],
		stored: binary.LittleEndian.Uint32(b[1:]),
		raw:    binary.LittleEndian.Uint32(b[5:]),
		crc:    binary.LittleEndian.Uint32(b[9:]),
	}, true
}

// ---- varint helpers (append side) ----

func appendUvarint(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }

func appendVarint(b []byte, v int64) []byte { return binary.AppendUvarint(b, zigzag(v)) }

func zigzag(v int64) uint64   { return uint64(v<<1) ^ uint64(v>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// ---- decoding cursor ----

// cursor reads the fields of one entry; the first failure sticks and later
// reads return zero values, so decoders check err once at the end.
type cursor struct {
	b   []byte
	err error
}

var errShort = errors.New("truncated entry")

func (c *cursor) fail(err error) {
	if c.err == nil {
		c.err = err
	}
	c.b = nil
}

func (c *cursor) uvarint() uint64 {
	v, n := binary.Uvarint(c.b)
	if n <= 0 {
		c.fail(errShort)
		return 0
	}
	c.b = c.b[n:]
	return v
}

func (c *cursor) varint() int64 { return unzigzag(c.uvarint()) }

func (c *cursor) byte1() byte {
	if len(c.b) < 1 {
		c.fail(errShort)
		return 0
	}
	v := c.b[0]
	c.b = c.b[1:]
	return v
}

func (c *cursor) fixed64() uint64 {
	if len(c.b) < 8 {
		c.fail(errShort)
		return 0
	}
	v := binary.LittleEndian.Uint64(c.b)
	c.b = c.b[8:]
	return v
}

// bytes returns the next n bytes without copying.
func (c *cursor) bytes(n uint64) []byte {
	if n > uint64(len(c.b)) {
		c.fail(errShort)
		return nil
	}
	v := c.b[:n:n]
	c.b = c.b[n:]
	return v
}

func (c *cursor) string() string { return string(c.bytes(c.uvarint())) }

// count reads a uvarint element count and checks that at least min bytes per
// element remain, so a hostile count cannot force a huge allocation.
func (c *cursor) count(min int) int {
	n := c.uvarint()
	if n > maxEntryCount || n*uint64(min) > uint64(len(c.b)) {
		c.fail(errShort)
		return 0
	}
	return int(n)
}
