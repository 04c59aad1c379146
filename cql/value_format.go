package cql

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"net"
	"strconv"
	"strings"
)

// FormatValue renders a serialized value as a CQL literal that EncodeTerm
// accepts back for type t, giving the same value: 'text' (quotes doubled),
// numbers, true/false, bare uuids, 0x-hex blobs, timestamps as
// 'yyyy-mm-dd hh:mm:ss.fffZ' (UTC), dates 'yyyy-mm-dd', times
// 'hh:mm:ss.fffffffff', durations as 1h2m3s, inet '1.2.3.4', [lists],
// {sets}, {k: v} maps, (tuples) and {field: v} UDTs; null for nil. Values
// with no literal form (empty values, timestamps and dates outside years
// 1583-9999 or 0-9999, IPv4-mapped IPv6 addresses, ...) use an integer
// literal or blobAs<type>(0x...). Invalid bytes never panic: they come out
// as blobAs<type>(0x...) (or bare 0x... for non-scalar types).
func FormatValue(t *Type, b []byte) string {
	var sb strings.Builder
	formatValue(&sb, t, b)
	return sb.String()
}

func formatValue(sb *strings.Builder, t *Type, b []byte) {
	if b == nil {
		sb.WriteString("null")
		return
	}
	if !wellFormed(t) || validate(t, b) != nil {
		writeRaw(sb, t, b)
		return
	}
	switch t.Kind {
	case KindText, KindAscii:
		sb.WriteByte('\'')
		sb.WriteString(strings.ReplaceAll(string(b), "'", "''"))
		sb.WriteByte('\'')
		return
	case KindBlob:
		sb.WriteString("0x")
		sb.WriteString(hex.EncodeToString(b))
		return
	}
	if len(b) == 0 && t.Kind != KindTuple && t.Kind != KindUDT {
		writeRaw(sb, t, b)
		return
	}
	switch t.Kind {
	case KindBigint, KindCounter:
		sb.WriteString(strconv.FormatInt(int64(binary.BigEndian.Uint64(b)), 10))
	case KindInt:
		sb.WriteString(strconv.FormatInt(int64(int32(binary.BigEndian.Uint32(b))), 10))
	case KindSmallint:
		sb.WriteString(strconv.FormatInt(int64(int16(binary.BigEndian.Uint16(b))), 10))
	case KindTinyint:
		sb.WriteString(strconv.FormatInt(int64(int8(b[0])), 10))
	case KindBoolean:
		sb.WriteString(strconv.FormatBool(b[0] != 0))
	case KindFloat:
		sb.WriteString(formatFloat(float64(math.Float32frombits(binary.BigEndian.Uint32(b))), 32))
	case KindDouble:
		sb.WriteString(formatFloat(math.Float64frombits(binary.BigEndian.Uint64(b)), 64))
	case KindVarint:
		sb.WriteString(varintValue(b).String())
	case KindDecimal:
		// A literal beyond double range fails to parse in Cassandra.
		d := decodeDecimal(b)
		s := d.String()
		if f, err := strconv.ParseFloat(s, 64); err != nil && math.IsInf(f, 0) {
			writeRaw(sb, t, encodeDecimal(d)) // canonical bytes: equal values format alike
			return
		}
		sb.WriteString(s)
	case KindTimestamp:
		sb.WriteString(formatTimestamp(int64(binary.BigEndian.Uint64(b))))
	case KindDate:
		raw := binary.BigEndian.Uint32(b)
		days := int64(raw) - 1<<31
		if y, _, _ := civilFromDays(days); y < 0 || y > 9999 {
			sb.WriteString(strconv.FormatUint(uint64(raw), 10))
			return
		}
		sb.WriteString("'" + formatISODate(days) + "'")
	case KindTime:
		ns := int64(binary.BigEndian.Uint64(b))
		if ns < 0 || ns >= nanosPerDay {
			writeRaw(sb, t, b)
			return
		}
		sb.WriteString("'" + formatClock(ns) + "'")
	case KindUUID, KindTimeuuid:
		sb.WriteString(UUID(b).String())
	case KindInet:
		ip := net.IP(b)
		if len(b) == 16 && ip.To4() != nil {
			// Parsing would turn an IPv4-mapped address into 4 bytes.
			writeRaw(sb, t, b)
			return
		}
		sb.WriteString("'" + ip.String() + "'")
	case KindDuration:
		d, _ := decodeDuration(b)
		if !d.textable() {
			writeRaw(sb, t, b)
			return
		}
		sb.WriteString(d.String())
	case KindVector:
		formatVector(sb, t, b)
	case KindList, KindSet, KindMap, KindTuple, KindUDT:
		formatComposite(sb, t, b)
	default:
		writeRaw(sb, t, b)
	}
}

// formatComposite writes a collection, tuple or UDT literal, its elements
// formatted as values of their own types.
func formatComposite(sb *strings.Builder, t *Type, b []byte) {
	switch t.Kind {
	case KindList, KindSet:
		items, _ := splitCollection(b, 1)
		open, end := "[", "]"
		if t.Kind == KindSet {
			open, end = "{", "}"
		}
		sb.WriteString(open)
		for i, it := range items {
			if i > 0 {
				sb.WriteString(", ")
			}
			formatValue(sb, t.Elems[0], it)
		}
		sb.WriteString(end)
	case KindMap:
		items, _ := splitCollection(b, 2)
		sb.WriteByte('{')
		for i := 0; i+1 < len(items); i += 2 {
			if i > 0 {
				sb.WriteString(", ")
			}
			formatValue(sb, t.Elems[0], items[i])
			sb.WriteString(": ")
			formatValue(sb, t.Elems[1], items[i+1])
		}
		sb.WriteByte('}')
	case KindTuple:
		items, _ := splitTuple(b, len(t.Elems))
		sb.WriteByte('(')
		for i := range t.Elems {
			if i > 0 {
				sb.WriteString(", ")
			}
			var it []byte
			if i < len(items) {
				it = items[i]
			}
			formatValue(sb, t.Elems[i], it)
		}
		sb.WriteByte(')')
	case KindUDT:
		items, _ := splitTuple(b, len(t.Elems))
		sb.WriteByte('{')
		for i := range t.Elems {
			if i > 0 {
				sb.WriteString(", ")
			}
			if i < len(t.Fields) {
				sb.WriteString(QuoteIdent(t.Fields[i]))
			}
			sb.WriteString(": ")
			var it []byte
			if i < len(items) {
				it = items[i]
			}
			formatValue(sb, t.Elems[i], it)
		}
		sb.WriteByte('}')
	}
}

// writeRaw renders bytes through Cassandra's blobAs<type> conversion, the
// one literal form every scalar value has.
func writeRaw(sb *strings.Builder, t *Type, b []byte) {
	if t != nil && t.Kind > KindInvalid && t.Kind < KindList && t.Kind != KindBlob {
		sb.WriteString("blobas")
		sb.WriteString(t.Kind.String())
		sb.WriteString("(0x")
		sb.WriteString(hex.EncodeToString(b))
		sb.WriteByte(')')
		return
	}
	sb.WriteString("0x")
	sb.WriteString(hex.EncodeToString(b))
}

// formatFloat gives the shortest text that parses back to the same float:
// NaN, Infinity, -Infinity, or a CQL integer/float literal.
func formatFloat(f float64, bitSize int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(f, 'g', -1, bitSize)
}

// formatTimestamp renders milliseconds as 'yyyy-mm-dd hh:mm:ss.fffZ', or as
// a bare integer outside years 1583-9999 (where Java's calendar and
// Cassandra's year pattern disagree with the proleptic Gregorian calendar).
func formatTimestamp(ms int64) string {
	days := floorDiv(ms, 86400000)
	rem := ms - days*86400000
	y, _, _ := civilFromDays(days)
	if y < 1583 || y > 9999 {
		return strconv.FormatInt(ms, 10)
	}
	var sb strings.Builder
	sb.WriteByte('\'')
	sb.WriteString(formatISODate(days))
	sb.WriteByte(' ')
	sb.WriteString(pad(rem/3600000, 2))
	sb.WriteByte(':')
	sb.WriteString(pad(rem/60000%60, 2))
	sb.WriteByte(':')
	sb.WriteString(pad(rem/1000%60, 2))
	sb.WriteByte('.')
	sb.WriteString(pad(rem%1000, 3))
	sb.WriteString("Z'")
	return sb.String()
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// formatClock renders nanoseconds since midnight as hh:mm:ss.fffffffff
// (Cassandra's TimeSerializer.toString).
func formatClock(ns int64) string {
	return pad(ns/nanosPerHour, 2) + ":" + pad(ns/nanosPerMinute%60, 2) + ":" +
		pad(ns/nanosPerSecond%60, 2) + "." + pad(ns%nanosPerSecond, 9)
}
