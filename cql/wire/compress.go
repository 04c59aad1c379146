package wire

import (
	"encoding/binary"
	"fmt"

	"github.com/golang/snappy"
)

// Frame-body compression for protocol v3/v4 (native_protocol_v4.spec §5):
// LZ4 bodies start with the uncompressed length as a big-endian [int];
// Snappy bodies are a bare Snappy block. Protocol v5 compresses segments
// instead (segment.go), with LZ4 only.

// BodyCodec compresses and decompresses frame bodies.
type BodyCodec interface {
	// Name is the STARTUP COMPRESSION option naming the codec.
	Name() string
	// Compress appends the compressed form of src to dst.
	Compress(dst, src []byte) []byte
	// Decompress returns the body; max bounds the uncompressed size
	// (checked before anything is allocated for it).
	Decompress(src []byte, max int) ([]byte, error)
}

// LZ4Body is the lz4 body codec: a big-endian [int] uncompressed length,
// then an LZ4 block.
type LZ4Body struct{}

// Name is "lz4".
func (LZ4Body) Name() string { return "lz4" }

// Compress appends the length-prefixed LZ4 block of src to dst.
func (LZ4Body) Compress(dst, src []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(src)))
	return LZ4Compress(dst, src)
}

// Decompress decodes an lz4 body of at most max bytes.
func (LZ4Body) Decompress(src []byte, max int) ([]byte, error) {
	if len(src) < 4 {
		return nil, fmt.Errorf("lz4 body of %d bytes has no length", len(src))
	}
	n := binary.BigEndian.Uint32(src)
	if err := checkDecompressed(int64(n), len(src)-4, lz4MaxRatio, max); err != nil {
		return nil, err
	}
	out := make([]byte, n)
	if n == 0 {
		return out, nil // Cassandra writes a single 0 token for an empty body
	}
	if err := LZ4Decompress(out, src[4:]); err != nil {
		return nil, err
	}
	return out, nil
}

// SnappyBody is the snappy body codec: a bare Snappy block.
type SnappyBody struct{}

// Name is "snappy".
func (SnappyBody) Name() string { return "snappy" }

// Compress appends the Snappy block of src to dst.
func (SnappyBody) Compress(dst, src []byte) []byte {
	need := snappy.MaxEncodedLen(len(src))
	if cap(dst)-len(dst) < need {
		grown := make([]byte, len(dst), len(dst)+need)
		copy(grown, dst)
		dst = grown
	}
	enc := snappy.Encode(dst[len(dst):len(dst)+need], src)
	return dst[:len(dst)+len(enc)]
}

// Decompress decodes a snappy body of at most max bytes.
func (SnappyBody) Decompress(src []byte, max int) ([]byte, error) {
	n, err := snappy.DecodedLen(src)
	if err != nil {
		return nil, fmt.Errorf("snappy: %w", err)
	}
	if err := checkDecompressed(int64(n), len(src), snappyMaxRatio, max); err != nil {
		return nil, err
	}
	out, err := snappy.Decode(make([]byte, n), src)
	if err != nil {
		return nil, fmt.Errorf("snappy: %w", err)
	}
	return out, nil
}

// Largest expansion of each format: an LZ4 length byte of 255 adds 255
// bytes of match; a 3-byte Snappy copy writes at most 64 bytes.
const (
	lz4MaxRatio    = 255
	snappyMaxRatio = 22
)

// checkDecompressed checks a body's declared decompressed length before
// anything is allocated for it: over the frame limit, or beyond what
// compressed bytes of that format can expand to, it is refused.
func checkDecompressed(declared int64, compressed, ratio, max int) error {
	if declared > int64(max) {
		return &TooBigError{Length: declared, Max: max}
	}
	if declared > int64(compressed)*int64(ratio)+64 {
		return fmt.Errorf("declared decompressed length %d is impossible for %d compressed bytes", declared, compressed)
	}
	return nil
}

// BodyCodecFor maps a STARTUP COMPRESSION option to a codec.
func BodyCodecFor(name string) (BodyCodec, bool) {
	switch name {
	case "lz4":
		return LZ4Body{}, true
	case "snappy":
		return SnappyBody{}, true
	}
	return nil, false
}
