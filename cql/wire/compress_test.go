package wire

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// FuzzDecompress decodes arbitrary LZ4 and Snappy bodies under a limit.
func FuzzDecompress(f *testing.F) {
	f.Add(LZ4Body{}.Compress(nil, bytes.Repeat([]byte("dohyo "), 500)), 4096)
	f.Add(SnappyBody{}.Compress(nil, bytes.Repeat([]byte("dohyo "), 500)), 4096)
	f.Add(binary.BigEndian.AppendUint32(nil, 256<<20), 1<<20)
	f.Add(binary.AppendUvarint(nil, 200<<10), 1<<20)
	f.Fuzz(func(t *testing.T, data []byte, limit int) {
		limit = min(max(limit, 0), 1<<20)
		for _, codec := range []BodyCodec{LZ4Body{}, SnappyBody{}} {
			out, err := codec.Decompress(data, limit)
			if err == nil && len(out) > limit {
				t.Fatalf("%s: %d bytes over the limit %d", codec.Name(), len(out), limit)
			}
		}
	})
}
