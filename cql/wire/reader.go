package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Reader reads protocol notations from a body. The first failure sticks: every
// later read returns zero values, and Err reports it. Every length is
// checked against what is left before anything is taken or allocated;
// byte values are slices of the body (capacity clipped), never copies.
type Reader struct {
	b   []byte
	err error
}

// NewReader reads body.
func NewReader(body []byte) *Reader { return &Reader{b: body} }

// ErrShortBody is the error of a read past the end of the body.
var ErrShortBody = errors.New("not enough bytes to read")

// Err is the first failure, or nil.
func (r *Reader) Err() error { return r.err }

// Rest is what is left to read (nil after a failure).
func (r *Reader) Rest() []byte { return r.b }

// Fail records err (unless an earlier failure is recorded) and empties
// the reader.
func (r *Reader) Fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.b = nil
}

// Take reads n bytes (a slice of the body).
func (r *Reader) Take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.Fail(ErrShortBody)
		return nil
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}

// Byte reads a [byte].
func (r *Reader) Byte() byte {
	if b := r.Take(1); b != nil {
		return b[0]
	}
	return 0
}

// Short reads a [short].
func (r *Reader) Short() uint16 {
	if b := r.Take(2); b != nil {
		return binary.BigEndian.Uint16(b)
	}
	return 0
}

// Int reads an [int].
func (r *Reader) Int() int32 {
	if b := r.Take(4); b != nil {
		return int32(binary.BigEndian.Uint32(b))
	}
	return 0
}

// Long reads a [long].
func (r *Reader) Long() int64 {
	if b := r.Take(8); b != nil {
		return int64(binary.BigEndian.Uint64(b))
	}
	return 0
}

// Str reads a [string].
func (r *Reader) Str() string {
	n := int(r.Short())
	return string(r.Take(n))
}

// LongStr reads a [long string], which must be UTF-8.
func (r *Reader) LongStr() string {
	n := r.Int()
	if n < 0 {
		r.Fail(fmt.Errorf("negative [long string] length %d", n))
		return ""
	}
	b := r.Take(int(n))
	if r.err == nil && !utf8.Valid(b) {
		r.Fail(errors.New("invalid UTF-8 in [long string]"))
	}
	return string(b)
}

// Bytes reads [bytes]: nil for a negative length.
func (r *Reader) Bytes() []byte {
	n := r.Int()
	if n < 0 || r.err != nil {
		return nil
	}
	b := r.Take(int(n))
	if b == nil && r.err == nil {
		return []byte{}
	}
	return b
}

// ShortBytes reads [short bytes]: an empty slice, never nil, when empty.
func (r *Reader) ShortBytes() []byte {
	n := int(r.Short())
	b := r.Take(n)
	if b == nil && r.err == nil {
		return []byte{}
	}
	return b
}

// Value reads a [value]: b is nil for null (-1; in v3 every negative
// length), an empty slice for an empty value; unset is true for v4+'s
// unset (-2).
func (r *Reader) Value(version byte) (b []byte, unset bool) {
	n := r.Int()
	if r.err != nil {
		return nil, false
	}
	switch {
	case n >= 0:
		b := r.Take(int(n))
		if b == nil && r.err == nil {
			b = []byte{}
		}
		return b, false
	case n == -1:
		return nil, false
	case n == -2 && version >= 4:
		return nil, true
	case version < 4:
		return nil, false // v3: every negative length is null
	}
	r.Fail(fmt.Errorf("invalid [value] length %d", n))
	return nil, false
}

// StringList reads a [string list]; its count is checked against what
// is left before the list is allocated.
func (r *Reader) StringList() []string {
	n := int(r.Short())
	if n*2 > len(r.b) {
		r.Fail(ErrShortBody)
		return nil
	}
	out := make([]string, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		out = append(out, r.Str())
	}
	return out
}

// StringMap reads a [string map]; its count is checked against what is
// left before the map is allocated.
func (r *Reader) StringMap() map[string]string {
	n := int(r.Short())
	if n*4 > len(r.b) {
		r.Fail(ErrShortBody)
		return nil
	}
	out := make(map[string]string, n)
	for i := 0; i < n && r.err == nil; i++ {
		k := r.Str()
		out[k] = r.Str()
	}
	return out
}

// BytesMap reads a [bytes map] (custom payloads); a null value is nil.
func (r *Reader) BytesMap() map[string][]byte {
	n := int(r.Short())
	if n*6 > len(r.b) { // a key length, a value length
		r.Fail(ErrShortBody)
		return nil
	}
	m := make(map[string][]byte, n)
	for i := 0; i < n && r.err == nil; i++ {
		k := string(r.Take(int(r.Short())))
		var v []byte
		if l := r.Int(); l > 0 {
			v = r.Take(int(l))
		}
		m[k] = v
	}
	return m
}
