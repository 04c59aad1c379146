package wire

import (
	"encoding/binary"
	"math"
)

// Writers for the protocol's notations: each appends to b and returns the
// extended slice, allocating only when b must grow.

// AppendShort writes a [short].
func AppendShort(b []byte, v uint16) []byte { return binary.BigEndian.AppendUint16(b, v) }

// AppendInt writes an [int].
func AppendInt(b []byte, v int32) []byte { return binary.BigEndian.AppendUint32(b, uint32(v)) }

// AppendLong writes a [long].
func AppendLong(b []byte, v int64) []byte { return binary.BigEndian.AppendUint64(b, uint64(v)) }

// AppendLongString writes a [long string].
func AppendLongString(b []byte, s string) []byte {
	return append(AppendInt(b, int32(len(s))), s...)
}

// AppendString writes a [string]; longer strings are truncated at 65535
// bytes (only error messages can be that long).
func AppendString(b []byte, s string) []byte {
	if len(s) > math.MaxUint16 {
		s = s[:math.MaxUint16]
	}
	b = AppendShort(b, uint16(len(s)))
	return append(b, s...)
}

// AppendBytes writes [bytes]: length -1 for nil.
func AppendBytes(b, v []byte) []byte {
	if v == nil {
		return AppendInt(b, -1)
	}
	b = AppendInt(b, int32(len(v)))
	return append(b, v...)
}

// AppendShortBytes writes [short bytes], truncated at 65535 bytes.
func AppendShortBytes(b, v []byte) []byte {
	if len(v) > math.MaxUint16 {
		v = v[:math.MaxUint16]
	}
	b = AppendShort(b, uint16(len(v)))
	return append(b, v...)
}

// AppendStringList writes a [string list].
func AppendStringList(b []byte, l []string) []byte {
	b = AppendShort(b, uint16(len(l)))
	for _, s := range l {
		b = AppendString(b, s)
	}
	return b
}
