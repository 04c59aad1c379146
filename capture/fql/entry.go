package fql

import (
	"fmt"
	"math"
	"strings"
)

// Field names and types written by org.apache.cassandra.fql.FullQueryLogger
// (and BinLog's version and type, first in every entry).
const (
	fieldVersion         = "version"
	fieldType            = "type"
	fieldStartTime       = "query-start-time"
	fieldProtocolVersion = "protocol-version"
	fieldQueryOptions    = "query-options"
	fieldGeneratedTS     = "generated-timestamp"
	fieldGeneratedNow    = "generated-now-in-seconds"
	fieldKeyspace        = "keyspace"
	fieldQuery           = "query"
	fieldBatchType       = "batch-type"
	fieldQueries         = "queries"
	fieldValues          = "values"

	TypeSingle = "single-query"
	TypeBatch  = "batch"
)

// noValue is what FQL writes for "not generated" (Java's Long.MIN_VALUE).
const noValue = math.MinInt64

// Entry is one decoded full-query-log entry: a single statement (QUERY or
// EXECUTE: FQL does not say which) or a whole batch.
type Entry struct {
	File   string // the cycle file
	Offset int64  // of the document's header in the file

	Version         int64  // BinLog entry version (0)
	Type            string // TypeSingle or TypeBatch
	StartTime       int64  // query-start-time: Unix milliseconds
	ProtocolVersion byte
	// GeneratedTimestamp is the write timestamp (µs) Cassandra generated
	// for the statement, or math.MinInt64 when it generated none (reads,
	// conditional updates, a client-supplied timestamp).
	GeneratedTimestamp int64
	// GeneratedNowInSeconds is the "now" (s) Cassandra used for TTLs and
	// now(), or math.MinInt64 when none was generated (FQL writes
	// Integer.MIN_VALUE for that).
	GeneratedNowInSeconds int64
	// Keyspace is the connection's keyspace when the statement ran ("" if
	// none; a v5 per-request keyspace is in Options.Keyspace).
	Keyspace string

	Query     string    // TypeSingle: the statement text (the prepared text for EXECUTE)
	BatchType string    // TypeBatch: LOGGED, UNLOGGED or COUNTER
	Queries   []string  // TypeBatch: the children's texts
	Values    [][]Value // TypeBatch: the children's bound values (unused for TypeSingle)
	Options   Options   // the native-protocol <query_parameters>
}

// Value is one bound value: nil Bytes is null (unless Unset).
type Value struct {
	Bytes []byte
	Unset bool
}

// SkipError says why an entry was skipped; Reason is a short stable
// category for counting ("unknown type audit", "malformed entry", ...).
type SkipError struct {
	Reason string
	Err    error
}

func (e *SkipError) Error() string {
	if e.Err == nil {
		return e.Reason
	}
	return e.Reason + ": " + e.Err.Error()
}

func (e *SkipError) Unwrap() error { return e.Err }

func skip(reason string, err error) *SkipError { return &SkipError{Reason: reason, Err: err} }

// decodeEntry decodes one data document. Unknown fields are skipped
// (with every value after them up to the next field name, since FQL
// writes lists as a count followed by bare values). The returned entry
// shares no memory with doc.
func decodeEntry(doc []byte) (*Entry, error) {
	r := &wireReader{b: doc}
	e := &Entry{GeneratedTimestamp: noValue, GeneratedNowInSeconds: noValue, ProtocolVersion: 0}
	var (
		seen    = map[string]bool{}
		options []byte
		err     error
	)
	for {
		if err := r.skipPadding(); err != nil {
			return nil, skip("malformed entry", err)
		}
		if !r.more() {
			break
		}
		name, err := r.field()
		if err != nil {
			return nil, skip("malformed entry", err)
		}
		if seen[name] {
			return nil, skip("malformed entry", fmt.Errorf("field %q twice", name))
		}
		seen[name] = true
		if err := e.decodeField(r, name, &options); err != nil {
			return nil, skip("malformed entry", fmt.Errorf("field %q: %w", name, err))
		}
	}
	if !seen[fieldType] {
		return nil, skip("malformed entry", fmt.Errorf("no %q field", fieldType))
	}
	if e.Type != TypeSingle && e.Type != TypeBatch {
		return nil, skip("unknown type "+e.Type, nil)
	}
	for _, f := range []string{fieldStartTime, fieldProtocolVersion, fieldQueryOptions} {
		if !seen[f] {
			return nil, skip("malformed entry", fmt.Errorf("no %q field", f))
		}
	}
	want := fieldQuery
	if e.Type == TypeBatch {
		want = fieldQueries
	}
	if !seen[want] {
		return nil, skip("malformed entry", fmt.Errorf("no %q field", want))
	}
	if e.Type == TypeBatch && len(e.Values) != len(e.Queries) {
		return nil, skip("malformed entry", fmt.Errorf("batch of %d queries with %d value lists", len(e.Queries), len(e.Values)))
	}
	if e.ProtocolVersion < 3 || e.ProtocolVersion > 5 {
		return nil, skip(fmt.Sprintf("protocol version %d", e.ProtocolVersion), nil)
	}
	if e.GeneratedNowInSeconds == math.MinInt32 {
		// QueryState's "not generated" for now-in-seconds is an int's
		// minimum, not a long's.
		e.GeneratedNowInSeconds = noValue
	}
	if e.Options, err = decodeOptions(options, e.ProtocolVersion); err != nil {
		return nil, skip("bad query options", err)
	}
	return e, nil
}

func (e *Entry) decodeField(r *wireReader, name string, options *[]byte) error {
	var err error
	switch name {
	case fieldVersion:
		e.Version, err = r.int64v()
	case fieldType:
		e.Type, _, err = r.text()
	case fieldStartTime:
		e.StartTime, err = r.int64v()
	case fieldProtocolVersion:
		var v int64
		v, err = r.int64v()
		if err == nil && (v < 0 || v > 255) {
			err = fmt.Errorf("protocol version %d", v)
		}
		e.ProtocolVersion = byte(v)
	case fieldQueryOptions:
		var b []byte
		b, err = r.bytesv()
		*options = append([]byte(nil), b...)
	case fieldGeneratedTS:
		e.GeneratedTimestamp, err = r.int64v()
	case fieldGeneratedNow:
		e.GeneratedNowInSeconds, err = r.int64v()
	case fieldKeyspace:
		e.Keyspace, _, err = r.text()
	case fieldQuery:
		e.Query, _, err = r.text()
	case fieldBatchType:
		e.BatchType, _, err = r.text()
		e.BatchType = strings.ToUpper(e.BatchType)
	case fieldQueries:
		err = e.decodeQueries(r)
	case fieldValues:
		err = e.decodeValues(r)
	default:
		// A field this reader does not know (a newer Cassandra): skip its
		// value and any bare values that follow it.
		for err == nil && r.more() && !r.isField() {
			err = r.skipValue(0)
			if err == nil {
				err = r.skipPadding()
			}
		}
	}
	return err
}

// count reads a list count, bounded by the bytes left (every element
// takes at least one byte).
func (r *wireReader) count() (int, error) {
	n, err := r.int64v()
	if err != nil {
		return 0, err
	}
	if n < 0 || n > int64(len(r.b)-r.off) {
		return 0, r.errorf("count %d with %d bytes left", n, len(r.b)-r.off)
	}
	return int(n), nil
}

func (e *Entry) decodeQueries(r *wireReader) error {
	n, err := r.count()
	if err != nil {
		return err
	}
	e.Queries = make([]string, n)
	for i := range e.Queries {
		if e.Queries[i], _, err = r.text(); err != nil {
			return err
		}
	}
	return nil
}

func (e *Entry) decodeValues(r *wireReader) error {
	n, err := r.count()
	if err != nil {
		return err
	}
	e.Values = make([][]Value, n)
	for i := range e.Values {
		m, err := r.count()
		if err != nil {
			return err
		}
		vs := make([]Value, m)
		for j := range vs {
			b, err := r.bytesv()
			if err != nil {
				return err
			}
			if b != nil {
				b = append([]byte{}, b...)
			}
			vs[j] = Value{Bytes: b}
		}
		e.Values[i] = vs
	}
	return nil
}
