package fql

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Chronicle Wire's binary encoding (BinaryWire), the subset a full query
// log uses plus enough of the rest to skip any value. Every value starts
// with a code byte; field names and values are self-describing, so a
// reader can skip what it does not know.
const (
	codeBytesLength8  = 0x80 // u8 length, then the content
	codeBytesLength16 = 0x81 // u16 LE length
	codeBytesLength32 = 0x82 // u32 LE length
	codeU8Array       = 0x8A // inside a length: the bytes follow
	codeI64Array      = 0x8D // capacity i64, used i64, capacity × i64
	codePadding32     = 0x8E // u32 LE length of padding to skip
	codePadding       = 0x8F // one byte of padding
	codeFloat32       = 0x90
	codeFloat64       = 0x91
	codeFloatStop2    = 0x92 // stop-bit value / 10^2
	codeFloatStop4    = 0x94
	codeFloatStop6    = 0x96
	codeFloatSetLow0  = 0x9A
	codeFloatSetLow2  = 0x9B
	codeFloatSetLow4  = 0x9C
	codeUUID          = 0xA0
	codeUint8         = 0xA1
	codeUint16        = 0xA2
	codeUint32        = 0xA3
	codeInt8          = 0xA4
	codeInt16         = 0xA5
	codeInt32         = 0xA6
	codeInt64         = 0xA7
	codeSetLowInt8    = 0xA8
	codeSetLowInt16   = 0xA9
	codeInt64x        = 0xAF
	codeFalse         = 0xB0
	codeTrue          = 0xB1
	codeTime          = 0xB2
	codeDate          = 0xB3
	codeDateTime      = 0xB4
	codeZonedDateTime = 0xB5
	codeTypePrefix    = 0xB6
	codeFieldNameAny  = 0xB7
	codeStringAny     = 0xB8
	codeEventName     = 0xB9
	codeFieldNumber   = 0xBA
	codeNull          = 0xBB
	codeTypeLiteral   = 0xBC
	codeComment       = 0xBE
	codeFieldName0    = 0xC0 // 0xC0+n: a field name of n (< 32) bytes
	codeString0       = 0xE0 // 0xE0+n: a string of n (< 32) bytes
)

// maxNesting bounds the recursion of skipValue into nested documents.
const maxNesting = 32

var errShort = errors.New("value runs past the end of the document")

// wireReader reads one document's BinaryWire bytes. Every length is checked
// against what is left; strings and byte slices are copies only where the
// caller keeps them.
type wireReader struct {
	b   []byte
	off int
}

func (r *wireReader) more() bool { return r.off < len(r.b) }

func (r *wireReader) errorf(format string, args ...any) error {
	return fmt.Errorf("at document byte %d: %s", r.off, fmt.Sprintf(format, args...))
}

func (r *wireReader) take(n int) ([]byte, error) {
	if n < 0 || n > len(r.b)-r.off {
		return nil, r.errorf("%v (%d bytes wanted, %d left)", errShort, n, len(r.b)-r.off)
	}
	out := r.b[r.off : r.off+n : r.off+n]
	r.off += n
	return out, nil
}

func (r *wireReader) byte1() (byte, error) {
	b, err := r.take(1)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

// stopBit reads Chronicle's stop-bit encoding: 7 bits per byte, low
// groups first, the high bit set on every byte but the last. A negative
// number (its complement followed by a 0x80 0x00 pair) is rejected: no
// length or field number is negative.
func (r *wireReader) stopBit() (int64, error) {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		c, err := r.byte1()
		if err != nil {
			return 0, err
		}
		v |= uint64(c&0x7F) << shift
		if c&0x80 == 0 {
			if c == 0 && shift > 0 {
				return 0, r.errorf("negative stop-bit number")
			}
			if v > math.MaxInt32 {
				return 0, r.errorf("stop-bit number %d too large", v)
			}
			return int64(v), nil
		}
	}
	return 0, r.errorf("stop-bit number longer than 64 bits")
}

// skipPadding skips padding codes before a field or value.
func (r *wireReader) skipPadding() error {
	for r.more() {
		switch r.b[r.off] {
		case codePadding:
			r.off++
		case codePadding32:
			r.off++
			b, err := r.take(4)
			if err != nil {
				return err
			}
			if _, err := r.take(int(binary.LittleEndian.Uint32(b))); err != nil {
				return err
			}
		default:
			return nil
		}
	}
	return nil
}

// isField says whether the next code starts a field name.
func (r *wireReader) isField() bool {
	if !r.more() {
		return false
	}
	c := r.b[r.off]
	return c == codeFieldNameAny || c == codeFieldNumber || (c >= codeFieldName0 && c < codeString0)
}

// field reads a field name (a numbered field comes back as its decimal
// number, as Chronicle names it).
func (r *wireReader) field() (string, error) {
	if err := r.skipPadding(); err != nil {
		return "", err
	}
	c, err := r.byte1()
	if err != nil {
		return "", err
	}
	switch {
	case c >= codeFieldName0 && c < codeString0:
		b, err := r.take(int(c - codeFieldName0))
		return string(b), err
	case c == codeFieldNameAny:
		n, err := r.stopBit()
		if err != nil {
			return "", err
		}
		b, err := r.take(int(n))
		return string(b), err
	case c == codeFieldNumber:
		n, err := r.stopBit()
		return fmt.Sprint(n), err
	}
	r.off--
	return "", r.errorf("code 0x%02X where a field name was expected", c)
}

// int64v reads any numeric value as an integer: BinaryWire writes the
// smallest encoding that holds the number, including a float32 for values
// a float represents exactly (Long.MIN_VALUE, the FQL's "none" marker,
// is written as the float -2⁶³).
func (r *wireReader) int64v() (int64, error) {
	if err := r.skipPadding(); err != nil {
		return 0, err
	}
	c, err := r.byte1()
	if err != nil {
		return 0, err
	}
	if c < 0x80 { // a small non-negative number written as itself
		return int64(c), nil
	}
	fixed := func(n int) (uint64, error) {
		b, err := r.take(n)
		if err != nil {
			return 0, err
		}
		var v uint64
		for i := n - 1; i >= 0; i-- {
			v = v<<8 | uint64(b[i])
		}
		return v, nil
	}
	switch c {
	case codeUint8:
		v, err := fixed(1)
		return int64(v), err
	case codeUint16:
		v, err := fixed(2)
		return int64(v), err
	case codeUint32:
		v, err := fixed(4)
		return int64(v), err
	case codeInt8, codeSetLowInt8:
		v, err := fixed(1)
		return int64(int8(v)), err
	case codeInt16, codeSetLowInt16:
		v, err := fixed(2)
		return int64(int16(v)), err
	case codeInt32:
		v, err := fixed(4)
		return int64(int32(v)), err
	case codeInt64, codeInt64x:
		v, err := fixed(8)
		return int64(v), err
	case codeFloat32:
		v, err := fixed(4)
		if err != nil {
			return 0, err
		}
		return r.integral(float64(math.Float32frombits(uint32(v))))
	case codeFloat64:
		v, err := fixed(8)
		if err != nil {
			return 0, err
		}
		return r.integral(math.Float64frombits(v))
	}
	r.off--
	return 0, r.errorf("code 0x%02X where a number was expected", c)
}

// integral converts a float holding an integer exactly.
func (r *wireReader) integral(f float64) (int64, error) {
	if f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
		return 0, r.errorf("number %g is not a 64-bit integer", f)
	}
	return int64(f), nil
}

// text reads a string; null reports a null (Java null) string.
func (r *wireReader) text() (s string, null bool, err error) {
	if err := r.skipPadding(); err != nil {
		return "", false, err
	}
	c, err := r.byte1()
	if err != nil {
		return "", false, err
	}
	switch {
	case c == codeNull:
		return "", true, nil
	case c >= codeString0:
		b, err := r.take(int(c - codeString0))
		return string(b), false, err
	case c == codeStringAny:
		n, err := r.stopBit()
		if err != nil {
			return "", false, err
		}
		b, err := r.take(int(n))
		return string(b), false, err
	}
	r.off--
	return "", false, r.errorf("code 0x%02X where a string was expected", c)
}

// bytesv reads a byte array (a length, U8_ARRAY, the bytes); the result
// is a slice of the document, nil for null.
func (r *wireReader) bytesv() ([]byte, error) {
	if err := r.skipPadding(); err != nil {
		return nil, err
	}
	c, err := r.byte1()
	if err != nil {
		return nil, err
	}
	if c == codeNull {
		return nil, nil
	}
	if c == codeTypePrefix { // a typed byte array: skip the type name
		if _, err := r.typeName(); err != nil {
			return nil, err
		}
		return r.bytesv()
	}
	n, err := r.lengthOf(c)
	if err != nil {
		return nil, err
	}
	body, err := r.take(n)
	if err != nil {
		return nil, err
	}
	if len(body) == 0 || body[0] != codeU8Array {
		return nil, r.errorf("length-prefixed value is not a byte array")
	}
	return body[1:], nil
}

// lengthOf reads the length after a BYTES_LENGTH code c.
func (r *wireReader) lengthOf(c byte) (int, error) {
	var w int
	switch c {
	case codeBytesLength8:
		w = 1
	case codeBytesLength16:
		w = 2
	case codeBytesLength32:
		w = 4
	default:
		r.off--
		return 0, r.errorf("code 0x%02X where a length-prefixed value was expected", c)
	}
	b, err := r.take(w)
	if err != nil {
		return 0, err
	}
	var n uint64
	for i := w - 1; i >= 0; i-- {
		n = n<<8 | uint64(b[i])
	}
	if n > math.MaxInt32 {
		return 0, r.errorf("length %d too large", n)
	}
	return int(n), nil
}

func (r *wireReader) typeName() (string, error) {
	n, err := r.stopBit()
	if err != nil {
		return "", err
	}
	b, err := r.take(int(n))
	return string(b), err
}

// skipValue skips one value of any kind.
func (r *wireReader) skipValue(depth int) error {
	if depth > maxNesting {
		return r.errorf("values nested deeper than %d", maxNesting)
	}
	if err := r.skipPadding(); err != nil {
		return err
	}
	c, err := r.byte1()
	if err != nil {
		return err
	}
	switch {
	case c < 0x80, c == codeNull, c == codeTrue, c == codeFalse:
		return nil
	case c >= codeString0:
		_, err := r.take(int(c - codeString0))
		return err
	case c == codeBytesLength8, c == codeBytesLength16, c == codeBytesLength32:
		n, err := r.lengthOf(c)
		if err != nil {
			return err
		}
		_, err = r.take(n)
		return err
	case c == codeUint8, c == codeInt8, c == codeSetLowInt8:
		_, err := r.take(1)
		return err
	case c == codeUint16, c == codeInt16, c == codeSetLowInt16:
		_, err := r.take(2)
		return err
	case c == codeUint32, c == codeInt32, c == codeFloat32:
		_, err := r.take(4)
		return err
	case c == codeInt64, c == codeInt64x, c == codeFloat64:
		_, err := r.take(8)
		return err
	case c == codeUUID:
		_, err := r.take(16)
		return err
	case c == codeFloatStop2, c == codeFloatStop4, c == codeFloatStop6,
		c == codeFloatSetLow0, c == codeFloatSetLow2, c == codeFloatSetLow4:
		_, err := r.stopBit()
		return err
	case c == codeStringAny, c == codeTime, c == codeDate, c == codeDateTime,
		c == codeZonedDateTime, c == codeTypeLiteral, c == codeComment, c == codeEventName:
		_, err := r.typeName()
		return err
	case c == codeTypePrefix:
		if _, err := r.typeName(); err != nil {
			return err
		}
		return r.skipValue(depth + 1)
	case c == codeI64Array:
		b, err := r.take(16)
		if err != nil {
			return err
		}
		capacity := binary.LittleEndian.Uint64(b)
		if capacity > uint64(len(r.b)-r.off)/8 {
			return r.errorf("%v (array of %d longs)", errShort, capacity)
		}
		_, err = r.take(int(capacity) * 8)
		return err
	}
	r.off--
	return r.errorf("unknown value code 0x%02X", c)
}
