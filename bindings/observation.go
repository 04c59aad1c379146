package bindings

import (
	"encoding/binary"
	"hash/fnv"
	"time"
)

// Source says which front end a request came through.
type Source uint8

// Request sources.
const (
	SourceCQL Source = iota + 1
	SourceGraphQL
)

// String returns "cql" or "graphql".
func (s Source) String() string {
	switch s {
	case SourceCQL:
		return "cql"
	case SourceGraphQL:
		return "graphql"
	}
	return "unknown"
}

// Observation is one executed request and its outcome, as handed to a tap
// (capture) by the coordinator. It lives here, not in proxy, so capture can
// consume it without importing proxy. A tap must not retain the slices after
// it returns unless it copies them: the coordinator may reuse them.
type Observation struct {
	Time     time.Time // when the request arrived
	Session  uint64    // client connection id, unique per proxy process
	Seq      uint64    // request sequence within the session
	Source   Source
	Keyspace string // effective keyspace ("" if none)
	Query    string // statement text (the prepared text for EXECUTE)
	Prepared bool   // arrived as EXECUTE of a prepared statement
	Values   []Value
	Names    []string

	Consistency       Consistency
	SerialConsistency Consistency
	PageSize          int32
	PagingState       []byte
	Timestamp         int64
	HasTimestamp      bool

	// Batch: the child's index and the batch size; BatchSize is 0 outside
	// batches. Each child of a BATCH is observed separately.
	BatchIndex int
	BatchSize  int
	BatchType  uint8

	// Outcome.
	Latency    time.Duration
	ResultKind ResultKind
	ErrCode    ErrorCode // meaningful when Err
	Err        bool
	Rows       int
	Digest     uint64 // RowsDigest of the returned rows
	HasMore    bool   // a paging state was returned
}

// RowsDigest is an order-insensitive digest of result rows: the wrapping sum
// of a 64-bit FNV-1a hash of each row's length-prefixed cells. Equal multisets
// of rows give equal digests whatever their order; capture and replay use it
// to compare results without storing them.
func RowsDigest(rows [][][]byte) uint64 {
	var sum uint64
	var lb [4]byte
	for _, row := range rows {
		h := fnv.New64a()
		for _, cell := range row {
			if cell == nil {
				binary.BigEndian.PutUint32(lb[:], 0xFFFFFFFF)
				h.Write(lb[:])
				continue
			}
			binary.BigEndian.PutUint32(lb[:], uint32(len(cell)))
			h.Write(lb[:])
			h.Write(cell)
		}
		sum += h.Sum64()
	}
	return sum
}
