package wire

import (
	"encoding/binary"
	"errors"
)

// LZ4 block format (lz4_Block_format.md), as Cassandra uses it for frame
// bodies (v3/v4) and segment payloads (v5). Written here because the only
// LZ4 module the native-protocol library knows is not a dependency of this
// project; the block format is small and stable.

const (
	lz4MinMatch     = 4
	lz4LastLiterals = 5  // the last 5 bytes are always literals
	lz4MFLimit      = 12 // no match starts within the last 12 bytes
	lz4HashLog      = 14
	lz4MaxOffset    = 65535
)

var errLZ4Corrupt = errors.New("lz4: corrupt input")

func lz4Hash(v uint32) uint32 { return (v * 2654435761) >> (32 - lz4HashLog) }

// LZ4Compress appends the LZ4 block encoding of src to dst. It is a greedy
// single-pass compressor: fast, and good enough for protocol traffic.
func LZ4Compress(dst, src []byte) []byte {
	n := len(src)
	anchor := 0
	if n > lz4MFLimit {
		var table [1 << lz4HashLog]int32 // position+1 of the last occurrence
		matchLimit := n - lz4LastLiterals
		for i := 0; i+lz4MFLimit < n; {
			seq := binary.LittleEndian.Uint32(src[i:])
			h := lz4Hash(seq)
			ref := int(table[h]) - 1
			table[h] = int32(i + 1)
			if ref < 0 || i-ref > lz4MaxOffset || binary.LittleEndian.Uint32(src[ref:]) != seq {
				i++
				continue
			}
			// Extend backwards over literals, then forwards.
			for i > anchor && ref > 0 && src[i-1] == src[ref-1] {
				i--
				ref--
			}
			m := lz4MinMatch
			for i+m < matchLimit && src[ref+m] == src[i+m] {
				m++
			}
			dst = lz4Sequence(dst, src[anchor:i], i-ref, m)
			i += m
			anchor = i
		}
	}
	return lz4Sequence(dst, src[anchor:], 0, 0)
}

// lz4Sequence appends one sequence: literals, then (when matchLen > 0) a
// match of matchLen bytes at offset back.
func lz4Sequence(dst, literals []byte, offset, matchLen int) []byte {
	lit := len(literals)
	token := byte(min(lit, 15)) << 4
	if matchLen > 0 {
		token |= byte(min(matchLen-lz4MinMatch, 15))
	}
	dst = append(dst, token)
	if lit >= 15 {
		dst = lz4Length(dst, lit-15)
	}
	dst = append(dst, literals...)
	if matchLen == 0 {
		return dst
	}
	dst = append(dst, byte(offset), byte(offset>>8))
	if matchLen-lz4MinMatch >= 15 {
		dst = lz4Length(dst, matchLen-lz4MinMatch-15)
	}
	return dst
}

func lz4Length(dst []byte, n int) []byte {
	for n >= 255 {
		dst = append(dst, 255)
		n -= 255
	}
	return append(dst, byte(n))
}

// LZ4Decompress decodes src into dst, which must have exactly the
// uncompressed length. Every offset and length is bounds-checked.
func LZ4Decompress(dst, src []byte) error {
	n, err := LZ4Block(dst, src)
	if err == nil && n != len(dst) {
		err = errLZ4Corrupt
	}
	return err
}

// LZ4Block decodes src into dst and returns the decoded length; output
// that would not fit in dst is an error.
func LZ4Block(dst, src []byte) (int, error) {
	si, di := 0, 0
	for {
		if si >= len(src) {
			return 0, errLZ4Corrupt
		}
		token := src[si]
		si++
		lit := int(token >> 4)
		if lit == 15 {
			n, next, ok := lz4ReadLength(src, si)
			if !ok {
				return 0, errLZ4Corrupt
			}
			lit += n
			si = next
		}
		if lit > len(src)-si || lit > len(dst)-di {
			return 0, errLZ4Corrupt
		}
		copy(dst[di:], src[si:si+lit])
		si += lit
		di += lit
		if si == len(src) {
			return di, nil
		}
		if len(src)-si < 2 {
			return 0, errLZ4Corrupt
		}
		offset := int(src[si]) | int(src[si+1])<<8
		si += 2
		if offset == 0 || offset > di {
			return 0, errLZ4Corrupt
		}
		m := int(token & 15)
		if m == 15 {
			n, next, ok := lz4ReadLength(src, si)
			if !ok {
				return 0, errLZ4Corrupt
			}
			m += n
			si = next
		}
		m += lz4MinMatch
		if m > len(dst)-di {
			return 0, errLZ4Corrupt
		}
		if offset >= m {
			copy(dst[di:di+m], dst[di-offset:])
		} else {
			for k := 0; k < m; k++ { // overlapping: repeat the pattern
				dst[di+k] = dst[di-offset+k]
			}
		}
		di += m
	}
}

func lz4ReadLength(src []byte, si int) (n, next int, ok bool) {
	for {
		if si >= len(src) || n > len(src)*255 {
			return 0, 0, false
		}
		b := src[si]
		si++
		n += int(b)
		if b != 255 {
			return n, si, true
		}
	}
}
