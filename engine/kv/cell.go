package kv

import (
	"bytes"
	"encoding/binary"
	"errors"
)

// Cell value layout (what KV stores stay opaque to):
//
//	byte 0      flags: flagTombstone | flagExpiring
//	[expiring]  uint32 ttl seconds, int64 expiry (unix seconds, big-endian)
//	[tombstone] int64 local deletion time (unix seconds, big-endian)
//	rest        data (CQL-serialized value; empty for markers/tombstones)
const (
	flagTombstone byte = 1 << 0
	flagExpiring  byte = 1 << 1
)

// CellValue is the decoded form of a cell's value.
type CellValue struct {
	Tombstone bool
	TTL       int32 // seconds; 0 when not expiring
	Expiry    int64 // unix seconds when an expiring cell dies; tombstone: deletion time
	Data      []byte
}

// Encode returns the stored form.
func (v CellValue) Encode() []byte {
	return v.AppendEncode(make([]byte, 0, v.EncodedLen()))
}

// EncodedLen is the length of the stored form.
func (v CellValue) EncodedLen() int {
	n := 1 + len(v.Data)
	if v.TTL > 0 && !v.Tombstone {
		n += 12
	} else if v.Tombstone {
		n += 8
	}
	return n
}

// AppendEncode appends the stored form to b.
func (v CellValue) AppendEncode(b []byte) []byte {
	var f byte
	if v.Tombstone {
		f |= flagTombstone
	}
	if v.TTL > 0 && !v.Tombstone {
		f |= flagExpiring
	}
	b = append(b, f)
	switch {
	case f&flagExpiring != 0:
		b = binary.BigEndian.AppendUint32(b, uint32(v.TTL))
		b = binary.BigEndian.AppendUint64(b, uint64(v.Expiry))
	case v.Tombstone:
		b = binary.BigEndian.AppendUint64(b, uint64(v.Expiry))
	}
	return append(b, v.Data...)
}

var errBadCell = errors.New("widecolumn: corrupt cell value")

// DecodeCellValue parses a stored cell value. Data aliases b.
func DecodeCellValue(b []byte) (CellValue, error) {
	if len(b) < 1 {
		return CellValue{}, errBadCell
	}
	f, rest := b[0], b[1:]
	var v CellValue
	switch {
	case f&flagExpiring != 0:
		if len(rest) < 12 {
			return CellValue{}, errBadCell
		}
		v.TTL = int32(binary.BigEndian.Uint32(rest))
		v.Expiry = int64(binary.BigEndian.Uint64(rest[4:]))
		rest = rest[12:]
	case f&flagTombstone != 0:
		if len(rest) < 8 {
			return CellValue{}, errBadCell
		}
		v.Tombstone = true
		v.Expiry = int64(binary.BigEndian.Uint64(rest))
		rest = rest[8:]
	}
	v.Data = rest
	return v, nil
}

// Live reports whether the cell is live at now (unix seconds).
func (v CellValue) Live(now int64) bool {
	if v.Tombstone {
		return false
	}
	return v.TTL == 0 || now < v.Expiry
}

// Resolve returns the winner of two versions of the same cell, by
// Cassandra's reconciliation rules: the higher timestamp wins; on a tie a
// tombstone beats a live cell, then the greater value wins, then the later
// expiry. The rule does not depend on the current time, so stores may apply
// it lazily (Pebble merges).
func Resolve(a, b Cell) Cell {
	if a.Timestamp != b.Timestamp {
		if a.Timestamp > b.Timestamp {
			return a
		}
		return b
	}
	av, aerr := DecodeCellValue(a.Value)
	bv, berr := DecodeCellValue(b.Value)
	if aerr != nil || berr != nil {
		if aerr != nil {
			return b
		}
		return a
	}
	if av.Tombstone != bv.Tombstone {
		if av.Tombstone {
			return a
		}
		return b
	}
	if c := bytes.Compare(av.Data, bv.Data); c != 0 {
		if c > 0 {
			return a
		}
		return b
	}
	if bv.Expiry > av.Expiry {
		return b
	}
	return a
}
