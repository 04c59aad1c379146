package wire

import (
	"bytes"
	"errors"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestReaderHostileLengths: a length prefix larger than what is left
// fails the read with ErrShortBody, and the failure sticks: later reads
// return zero values.
func TestReaderHostileLengths(t *testing.T) {
	huge := AppendInt(nil, 1<<30) // [bytes] claiming 1 GiB
	cases := map[string]func(r *Reader) bool{
		"bytes":       func(r *Reader) bool { return r.Bytes() == nil },
		"long string": func(r *Reader) bool { return r.LongStr() == "" },
		"value":       func(r *Reader) bool { b, _ := r.Value(4); return b == nil },
		"string list": func(r *Reader) bool { return r.StringList() == nil }, // a count of 16384 strings
		"string map":  func(r *Reader) bool { return r.StringMap() == nil },
		"bytes map":   func(r *Reader) bool { return r.BytesMap() == nil },
	}
	for name, read := range cases {
		r := NewReader(huge)
		if !read(r) || !errors.Is(r.Err(), ErrShortBody) {
			t.Errorf("%s: read succeeded or failed with %v, want ErrShortBody", name, r.Err())
		}
		if r.Int() != 0 || r.Rest() != nil || !errors.Is(r.Err(), ErrShortBody) {
			t.Errorf("%s: the failure did not stick", name)
		}
	}
}

// TestReaderZeroCopy: values are slices of the body, clipped so that
// appending to one cannot overwrite the rest of the body.
func TestReaderZeroCopy(t *testing.T) {
	body := AppendBytes(AppendBytes(nil, []byte("abc")), []byte("def"))
	r := NewReader(body)
	v := r.Bytes()
	if &v[0] != &body[4] || cap(v) != 3 {
		t.Fatalf("value is not a clipped slice of the body (cap %d)", cap(v))
	}
	_ = append(v, 'X')
	if got := r.Bytes(); string(got) != "def" || r.Err() != nil {
		t.Fatalf("second value %q, %v", got, r.Err())
	}
}

// TestReaderValue: [value] lengths: -1 is null, -2 is unset from v4 on,
// every negative length is null in v3, and 0 is an empty (non-nil) value.
func TestReaderValue(t *testing.T) {
	cases := []struct {
		length  int32
		version byte
		null    bool
		unset   bool
		fails   bool
	}{
		{-1, 4, true, false, false},
		{-2, 4, true, true, false},
		{-2, 3, true, false, false},
		{-3, 3, true, false, false},
		{-3, 4, false, false, true},
		{0, 4, false, false, false},
	}
	for _, tc := range cases {
		r := NewReader(AppendInt(nil, tc.length))
		b, unset := r.Value(tc.version)
		if (r.Err() != nil) != tc.fails {
			t.Errorf("length %d v%d: error %v", tc.length, tc.version, r.Err())
			continue
		}
		if tc.fails {
			continue
		}
		if (b == nil) != tc.null || unset != tc.unset {
			t.Errorf("length %d v%d: bytes %v (nil %v), unset %v", tc.length, tc.version, b, b == nil, unset)
		}
	}
}

// TestAppendRoundTrip: what the Append writers write, the Reader reads.
func TestAppendRoundTrip(t *testing.T) {
	b := AppendShort(nil, 7)
	b = AppendInt(b, -5)
	b = AppendLong(b, 1<<40)
	b = AppendString(b, "ks")
	b = AppendLongString(b, "SELECT 1")
	b = AppendBytes(b, nil)
	b = AppendShortBytes(b, []byte{1, 2})
	b = AppendStringList(b, []string{"a", "b"})
	r := NewReader(b)
	if r.Short() != 7 || r.Int() != -5 || r.Long() != 1<<40 || r.Str() != "ks" || r.LongStr() != "SELECT 1" ||
		r.Bytes() != nil || !bytes.Equal(r.ShortBytes(), []byte{1, 2}) || strings.Join(r.StringList(), ",") != "a,b" {
		t.Fatal("round trip mismatch")
	}
	if r.Err() != nil || len(r.Rest()) != 0 {
		t.Fatalf("after the round trip: %v, %d bytes left", r.Err(), len(r.Rest()))
	}
}

// TestNoServerImports: the codec imports neither bindings nor proxy
// (docs/ARCHITECTURE.md), so that a binding's relay can use it.
func TestNoServerImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		pf, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range pf.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			if strings.HasPrefix(p, "github.com/dohyo/dohyo/") && p != "github.com/dohyo/dohyo/cql" {
				t.Errorf("%s imports %s", f, p)
			}
		}
	}
}
