package cql

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// FuzzValueRoundTrip feeds arbitrary bytes to every value function. Nothing
// may panic; bytes that Validate accepts must decode to Go and re-encode to
// a value that formats identically (and re-encodes stably), and their
// FormatValue text must parse and encode back to the same value.
func FuzzValueRoundTrip(f *testing.F) {
	types := sampleTypes()
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range types {
		f.Add(uint8(i), randValue(rng, types[i], 0))
		f.Add(uint8(i), []byte{})
		f.Add(uint8(i), []byte{0, 0, 0, 1, 0, 0, 0, 4, 1, 2, 3, 4})
	}
	f.Fuzz(func(t *testing.T, sel uint8, b []byte) {
		typ := types[int(sel)%len(types)]
		_ = FormatValue(typ, b)
		_ = Compare(typ, b, b[:len(b)/2])
		if err := Validate(typ, b); err != nil {
			if _, err := DecodeGo(typ, b); err == nil {
				t.Fatalf("DecodeGo accepted bytes Validate rejects: %s %x", typ, b)
			}
			if _, err := Canonicalize(typ, b); err == nil {
				t.Fatalf("Canonicalize accepted bytes Validate rejects: %s %x", typ, b)
			}
			return
		}
		if Compare(typ, b, b) != 0 {
			t.Fatalf("Compare(x, x) != 0 for %s %x", typ, b)
		}
		text := FormatValue(typ, b)
		v, err := DecodeGo(typ, b)
		if err != nil {
			t.Fatalf("DecodeGo(%s, %x): %v", typ, b, err)
		}
		b2, err := EncodeGo(typ, v)
		if err != nil {
			t.Fatalf("EncodeGo(%s, %#v): %v", typ, v, err)
		}
		if got := FormatValue(typ, b2); got != text {
			t.Fatalf("%s: %x formats as %s but its Go round trip %x as %s", typ, b, text, b2, got)
		}
		v2, err := DecodeGo(typ, b2)
		if err != nil {
			t.Fatalf("DecodeGo(re-encoded %x): %v", b2, err)
		}
		b3, err := EncodeGo(typ, v2)
		if err != nil || !bytes.Equal(b3, b2) {
			t.Fatalf("%s: Go round trip not stable: %x then %x (%v)", typ, b2, b3, err)
		}

		canon, err := Canonicalize(typ, b)
		if err != nil {
			t.Fatalf("Canonicalize(%s, %x): %v", typ, b, err)
		}
		ctext := FormatValue(typ, canon)
		p, err := Parse("INSERT INTO t (v) VALUES (" + ctext + ")")
		if err != nil {
			t.Fatalf("FormatValue output does not parse: %s: %v", ctext, err)
		}
		enc, err := EncodeTerm(typ, p.Stmt.(*Insert).Values[0], "v", nil)
		if err != nil {
			t.Fatalf("EncodeTerm(%s, %s): %v", typ, ctext, err)
		}
		if got := FormatValue(typ, enc); got != ctext {
			t.Fatalf("%s: %s encodes to %x which formats as %s", typ, ctext, enc, got)
		}
	})
}
