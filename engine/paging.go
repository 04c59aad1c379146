package engine

import (
	"encoding/binary"

	"github.com/dohyo/dohyo/bindings"
)

// pagingState is where a paged SELECT resumes. It is opaque to clients:
//
//	byte     version (1)
//	uvarint  remaining LIMIT + 1 (0: no LIMIT)
//	uvarint  index of the current partition in an IN list
//	uvarint  rows already returned from the current partition
//	byte     flags: 1 = the current partition is finished
//	uvarint  length, then the row key of the last returned row (the
//	         header key for a static or DISTINCT row)
type pagingState struct {
	remaining int // -1: no LIMIT
	partIdx   int
	partCount int
	partDone  bool
	lastKey   []byte
}

const pagingVersion = 1

func (p *pagingState) encode() []byte {
	b := make([]byte, 0, 16+len(p.lastKey))
	b = append(b, pagingVersion)
	b = binary.AppendUvarint(b, uint64(p.remaining+1))
	b = binary.AppendUvarint(b, uint64(p.partIdx))
	b = binary.AppendUvarint(b, uint64(p.partCount))
	var f byte
	if p.partDone {
		f |= 1
	}
	b = append(b, f)
	b = binary.AppendUvarint(b, uint64(len(p.lastKey)))
	return append(b, p.lastKey...)
}

var errBadPagingState = bindings.Errorf(bindings.CodeProtocolError, "Invalid value for the paging state")

func decodePagingState(b []byte) (*pagingState, error) {
	if len(b) < 1 || b[0] != pagingVersion {
		return nil, errBadPagingState
	}
	b = b[1:]
	var vals [3]uint64
	for i := range vals {
		v, n := binary.Uvarint(b)
		if n <= 0 || v > 1<<40 {
			return nil, errBadPagingState
		}
		vals[i] = v
		b = b[n:]
	}
	if len(b) < 1 {
		return nil, errBadPagingState
	}
	f := b[0]
	b = b[1:]
	l, n := binary.Uvarint(b)
	if n <= 0 || uint64(len(b)-n) != l || l == 0 {
		return nil, errBadPagingState
	}
	return &pagingState{
		remaining: int(vals[0]) - 1,
		partIdx:   int(vals[1]),
		partCount: int(vals[2]),
		partDone:  f&1 != 0,
		lastKey:   append([]byte(nil), b[n:]...),
	}, nil
}
