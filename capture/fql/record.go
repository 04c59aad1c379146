package fql

import (
	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/capture"
	"github.com/dohyo/dohyo/cql/wire"
)

// batchTypes maps FQL's batch-type names to the protocol's codes.
var batchTypes = map[string]uint8{"LOGGED": 0, "UNLOGGED": 1, "COUNTER": 2}

// Time is the entry's start time in Unix nanoseconds (FQL records
// milliseconds).
func (e *Entry) Time() int64 { return e.StartTime * 1_000_000 }

// WriteTimestamp is the write timestamp (µs) the statement used: the
// client's, else the one Cassandra generated; ok is false when there is
// neither (reads, conditional updates, counters keep the server's choice).
func (e *Entry) WriteTimestamp() (ts int64, ok bool) {
	if e.Options.HasTimestamp {
		return e.Options.Timestamp, true
	}
	if e.GeneratedTimestamp != noValue {
		return e.GeneratedTimestamp, true
	}
	return 0, false
}

// Records turns the entry into capture records: one for a single
// statement, one per child for a batch (BatchIndex, BatchSize and
// BatchType set). Session and Seq are left for the caller, Node for the
// capture writer. FQL records no outcome: Latency, ResultKind, Rows and
// Digest stay zero, which replay treats as "no captured result" (reads
// are compared between targets only). FQL does not say whether a
// statement was prepared; a statement with bound values is marked
// prepared, which is how drivers send them.
func (e *Entry) Records() []capture.Record {
	base := capture.Record{
		Time:              e.Time(),
		Source:            bindings.SourceCQL,
		Keyspace:          e.Keyspace,
		Consistency:       e.Options.Consistency,
		SerialConsistency: e.Options.SerialConsistency,
	}
	if e.Options.Keyspace != "" {
		base.Keyspace = e.Options.Keyspace
	}
	if ts, ok := e.WriteTimestamp(); ok {
		base.Timestamp, base.HasTimestamp = ts, true
	}
	if e.Type == TypeSingle {
		r := base
		r.Query = e.Query
		r.Values = captureValues(e.Options.Values)
		r.Prepared = len(r.Values) > 0
		if e.Options.Flags&wire.QueryFlagPageSize != 0 {
			r.PageSize = e.Options.PageSize
		}
		if e.Options.PagingState != nil {
			r.Paging, r.PagingState = true, e.Options.PagingState
		}
		return []capture.Record{r}
	}
	out := make([]capture.Record, len(e.Queries))
	bt := batchTypes[e.BatchType]
	for i, q := range e.Queries {
		r := base
		r.Query = q
		r.Values = captureValues(e.Values[i])
		r.Prepared = len(r.Values) > 0
		r.BatchIndex, r.BatchSize, r.BatchType = i, len(e.Queries), bt
		out[i] = r
	}
	return out
}

func captureValues(vs []Value) []capture.Value {
	if len(vs) == 0 {
		return nil
	}
	out := make([]capture.Value, len(vs))
	for i, v := range vs {
		out[i] = capture.Value{Bytes: v.Bytes, Unset: v.Unset}
	}
	return out
}
