package embedded

import (
	"encoding/binary"
	"errors"
	"math"
)

// Pebble key layout (all keys are bytewise ordered):
//
//	0x00 'M' <key>                    engine metadata (GetMeta/PutMeta)
//	0x00 'T' <TableSpec.ID>           table number (uint32, big-endian)
//	0x00 'N'                          next table number to allocate
//	0x00 'C' <key>                    coordination cells (CellGet/CellSwap)
//	0x01 <table no. uint32> <row> <qualifier> <uint16 len(qualifier)>
//
// Table numbers are fixed width, so a table's data is one contiguous range
// that prefix scans and DeleteRange cover cheaply. Row keys from the engine
// are prefix-free, so a row's cells are contiguous and rows sort by row key;
// the trailing qualifier length lets a key be split back into row and
// qualifier.
//
// A value is an 8-byte big-endian timestamp followed by the cell value.
const (
	sysByte   = 0x00
	dataByte  = 0x01
	metaTag   = 'M'
	tableTag  = 'T'
	nextTag   = 'N'
	cellTag   = 'C'
	prefixLen = 5 // dataByte + uint32 table number
	tsLen     = 8
	qlenLen   = 2
)

var errCorruptKey = errors.New("embedded: corrupt key")

func metaKey(key string) []byte {
	return append([]byte{sysByte, metaTag}, key...)
}

func coordKey(key []byte) []byte {
	return append([]byte{sysByte, cellTag}, key...)
}

func tableKey(id string) []byte {
	return append([]byte{sysByte, tableTag}, id...)
}

var nextTableKey = []byte{sysByte, nextTag}

// tablePrefix returns the data prefix of table number n.
func tablePrefix(n uint32) []byte {
	p := make([]byte, prefixLen)
	p[0] = dataByte
	binary.BigEndian.PutUint32(p[1:], n)
	return p
}

// prefixEnd returns the smallest key greater than every key with prefix p,
// or nil when there is none (p is all 0xff).
func prefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] != 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// appendCellKey appends the key of (row, qualifier) in the table with the
// given prefix.
func appendCellKey(dst, prefix, row, qual []byte) []byte {
	dst = append(dst, prefix...)
	dst = append(dst, row...)
	dst = append(dst, qual...)
	return binary.BigEndian.AppendUint16(dst, uint16(len(qual)))
}

func cellKeyLen(row, qual []byte) int {
	return prefixLen + len(row) + len(qual) + qlenLen
}

// splitCellKey splits a data key into row and qualifier (both alias key).
func splitCellKey(key []byte) (row, qual []byte, err error) {
	if len(key) < prefixLen+qlenLen {
		return nil, nil, errCorruptKey
	}
	n := int(binary.BigEndian.Uint16(key[len(key)-qlenLen:]))
	end := len(key) - qlenLen
	if end-n < prefixLen {
		return nil, nil, errCorruptKey
	}
	return key[prefixLen : end-n], key[end-n : end], nil
}

const maxQualifier = math.MaxUint16

// encodeValue writes ts and the cell value into dst, which must have length
// tsLen+len(v).
func encodeValue(dst []byte, ts int64, v []byte) {
	binary.BigEndian.PutUint64(dst, uint64(ts))
	copy(dst[tsLen:], v)
}

// decodeValue splits a stored value into timestamp and cell value (which
// aliases b).
func decodeValue(b []byte) (int64, []byte, bool) {
	if len(b) < tsLen {
		return 0, nil, false
	}
	return int64(binary.BigEndian.Uint64(b)), b[tsLen:], true
}
