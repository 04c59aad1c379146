package capture

import (
	"time"

	"github.com/dohyo/dohyo/bindings"
)

// Redaction says what capture did to a bound value of a redacted column.
type Redaction uint8

// Redactions of a bound value.
const (
	NotRedacted  Redaction = iota
	RedactDrop             // the value was dropped; nothing is kept
	RedactHash             // Bytes hold HMAC-SHA256(key, original value), 32 bytes
	RedactLength           // only the original length is kept (Value.Len)
)

// String returns "none", "drop", "hash" or "length".
func (r Redaction) String() string {
	switch r {
	case NotRedacted:
		return "none"
	case RedactDrop:
		return "drop"
	case RedactHash:
		return "hash"
	case RedactLength:
		return "length"
	}
	return "unknown"
}

// Value is one captured bound value: CQL-serialized bytes, null (Bytes nil)
// or unset, possibly redacted.
type Value struct {
	Bytes    []byte // nil means null (unless Unset or redacted)
	Unset    bool
	Redacted Redaction
	Len      int // RedactLength: the original length in bytes
}

// Record is one captured request and its outcome. Records returned by a
// Reader share their Query, Keyspace and Fingerprint strings and may share
// byte slices with other records of the same frame; treat them as read-only.
type Record struct {
	Time    int64  // arrival time, Unix nanoseconds
	Node    string // the segment's node id (filled by readers)
	Session uint64 // client connection id, unique per node process
	Seq     uint64 // request sequence within the session
	Source  bindings.Source

	// The statement, interned per segment.
	StatementID   uint32 // id within its segment; compare Query, not ids, across segments
	Keyspace      string // effective (session) keyspace, "" if none
	Query         string // statement text (the prepared text for EXECUTE)
	Fingerprint   string // cql.Fingerprint(Query)
	Prepared      bool
	QueryRedacted bool // Query was replaced by its fingerprint (redacted literals)

	Values []Value
	Names  []string // non-nil for named values: Values[i] binds Names[i]

	Consistency       bindings.Consistency
	SerialConsistency bindings.Consistency
	PageSize          int32
	Paging            bool   // the request carried a paging state (a continuation page)
	PagingState       []byte // its bytes, unless omitted or redacted
	Timestamp         int64  // client timestamp (µs) when HasTimestamp
	HasTimestamp      bool

	// Batch child: index, size (0 outside batches) and type of the batch.
	BatchIndex int
	BatchSize  int
	BatchType  uint8

	// Outcome.
	Latency    time.Duration
	ResultKind bindings.ResultKind
	Err        bool
	ErrCode    bindings.ErrorCode // meaningful when Err
	Rows       int
	Digest     uint64 // bindings.RowsDigest of the returned rows
	HasMore    bool
}

// At returns the record's arrival time in UTC.
func (r *Record) At() time.Time { return time.Unix(0, r.Time).UTC() }

// less orders records by time, then node, session and sequence: the stable
// order Merge produces.
func (r *Record) less(o *Record) bool {
	if r.Time != o.Time {
		return r.Time < o.Time
	}
	if r.Node != o.Node {
		return r.Node < o.Node
	}
	if r.Session != o.Session {
		return r.Session < o.Session
	}
	return r.Seq < o.Seq
}
