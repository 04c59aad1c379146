package wire

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// Blocks written by hand from the LZ4 block format specification.
func TestLZ4DecompressVectors(t *testing.T) {
	lit300 := make([]byte, 300)
	for i := range lit300 {
		lit300[i] = byte(i * 7)
	}
	cases := []struct {
		name  string
		block []byte
		want  []byte
	}{
		{"empty", []byte{0x00}, nil},
		{"literals only", append([]byte{0x50}, "hello"...), []byte("hello")},
		// 'a', then a 14-byte match at offset 1 (overlapping copy), then
		// the 5 mandatory trailing literals.
		{"overlap", []byte{0x1A, 'a', 0x01, 0x00, 0x50, 'a', 'a', 'a', 'a', 'a'}, bytes.Repeat([]byte("a"), 20)},
		// Literal length 300 = 15 + 255 + 30.
		{"long literals", append([]byte{0xF0, 255, 30}, lit300...), lit300},
		// "abcd" then a match of 4+15+255+6 = 280 bytes at offset 4.
		{"long match", []byte{0x4F, 'a', 'b', 'c', 'd', 0x04, 0x00, 255, 6, 0x50, 'a', 'b', 'c', 'd', 'a'},
			[]byte(strings.Repeat("abcd", 72) + "a")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := make([]byte, len(tc.want))
			if err := LZ4Decompress(got, tc.block); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestLZ4DecompressRejectsCorruptInput(t *testing.T) {
	cases := map[string][]byte{
		"no input":          {},
		"literals overrun":  {0x50, 'a'},
		"offset zero":       {0x10, 'a', 0x00, 0x00, 0x50, 1, 2, 3, 4, 5},
		"offset too far":    {0x10, 'a', 0x09, 0x00, 0x50, 1, 2, 3, 4, 5},
		"truncated length":  {0xF0, 255},
		"match past output": {0x1F, 'a', 0x01, 0x00, 200},
	}
	for name, block := range cases {
		if err := LZ4Decompress(make([]byte, 16), block); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// checkLZ4Rules parses a block and enforces the end-of-block rules strict
// decoders rely on: the last 5 bytes are literals and no match starts in
// the last 12 bytes.
func checkLZ4Rules(t *testing.T, block []byte, n int) {
	t.Helper()
	si, di := 0, 0
	for si < len(block) {
		token := block[si]
		si++
		lit := int(token >> 4)
		if lit == 15 {
			l, next, _ := lz4ReadLength(block, si)
			lit, si = lit+l, next
		}
		si += lit
		di += lit
		if si >= len(block) {
			break
		}
		si += 2
		m := int(token & 15)
		if m == 15 {
			l, next, _ := lz4ReadLength(block, si)
			m, si = m+l, next
		}
		if n-di < 12 {
			t.Fatalf("match starts %d bytes before the end", n-di)
		}
		di += m + 4
		if n-di < 5 {
			t.Fatalf("match ends %d bytes before the end", n-di)
		}
	}
}

func TestLZ4RoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	inputs := [][]byte{
		nil, []byte("x"), []byte("0123456789abc"),
		bytes.Repeat([]byte("abc"), 1000),
		[]byte(strings.Repeat("SELECT * FROM ks.t WHERE k = ?;", 50)),
	}
	for i := 0; i < 50; i++ {
		b := make([]byte, rng.IntN(200000))
		for j := range b {
			if rng.IntN(4) == 0 {
				b[j] = byte(rng.IntN(256))
			} else if j > 8 {
				b[j] = b[j-1-rng.IntN(8)]
			}
		}
		inputs = append(inputs, b)
	}
	for _, in := range inputs {
		z := LZ4Compress(nil, in)
		checkLZ4Rules(t, z, len(in))
		out := make([]byte, len(in))
		if err := LZ4Decompress(out, z); err != nil {
			t.Fatalf("len %d: %v", len(in), err)
		}
		if !bytes.Equal(in, out) {
			t.Fatalf("len %d: round trip differs", len(in))
		}
	}
	if z := LZ4Compress(nil, bytes.Repeat([]byte("abc"), 1000)); len(z) > 100 {
		t.Errorf("repetitive input compressed to %d bytes", len(z))
	}
}

func FuzzLZ4Decompress(f *testing.F) {
	f.Add([]byte{0x1A, 'a', 0x01, 0x00, 0x50, 'a', 'a', 'a', 'a', 'a'}, uint16(20))
	f.Add(LZ4Compress(nil, bytes.Repeat([]byte("hello "), 100)), uint16(600))
	f.Fuzz(func(t *testing.T, block []byte, n uint16) {
		out := make([]byte, n)
		LZ4Decompress(out, block) // must not panic
		in := block
		if err := LZ4Decompress(make([]byte, len(in)), LZ4Compress(nil, in)); err != nil {
			t.Fatalf("round trip of %d bytes: %v", len(in), err)
		}
	})
}
