package capture

import (
	"context"
	"fmt"
	"time"

	"github.com/dohyo/dohyo/bindings"
)

// Append writes a record read from another capture (dohyo capture merge).
// Unlike Observe it never drops: when the queue is full it flushes and
// retries until ctx ends. Session ids are kept as given; callers merging
// several nodes remap them so they stay distinct.
func (w *Writer) Append(ctx context.Context, rec *Record) error {
	o := recordObservation(rec)
	size := len(o.PagingState)
	for i := range o.Values {
		size += len(o.Values[i].Bytes)
	}
	if size > maxRecordBytes {
		return fmt.Errorf("capture append: record of %d bytes exceeds the %d byte limit", size, maxRecordBytes)
	}
	for {
		ok, closed := w.enqueue(o, size)
		if ok {
			return nil
		}
		if closed {
			return ErrClosed
		}
		if err := w.Flush(ctx); err != nil {
			return fmt.Errorf("capture append: %w", err)
		}
	}
}

// recordObservation turns a read record back into the observation that
// produced it.
func recordObservation(r *Record) *bindings.Observation {
	o := &bindings.Observation{
		Time:              time.Unix(0, r.Time),
		Session:           r.Session,
		Seq:               r.Seq,
		Source:            r.Source,
		Keyspace:          r.Keyspace,
		Query:             r.Query,
		Prepared:          r.Prepared,
		Names:             r.Names,
		Consistency:       r.Consistency,
		SerialConsistency: r.SerialConsistency,
		PageSize:          r.PageSize,
		PagingState:       r.PagingState,
		Timestamp:         r.Timestamp,
		HasTimestamp:      r.HasTimestamp,
		BatchIndex:        r.BatchIndex,
		BatchSize:         r.BatchSize,
		BatchType:         r.BatchType,
		Latency:           r.Latency,
		ResultKind:        r.ResultKind,
		ErrCode:           r.ErrCode,
		Err:               r.Err,
		Rows:              r.Rows,
		Digest:            r.Digest,
		HasMore:           r.HasMore,
	}
	if r.Paging && o.PagingState == nil {
		o.PagingState = []byte{}
	}
	o.Values = make([]bindings.Value, len(r.Values))
	for i, v := range r.Values {
		o.Values[i] = v.Binding()
	}
	return o
}

// Binding returns the value as a bound protocol value. Redacted values come
// back as what was stored (hash bytes, or null for dropped and length-only
// values): the redaction itself is not carried by an observation.
func (v Value) Binding() bindings.Value {
	return bindings.Value{Bytes: v.Bytes, Unset: v.Unset}
}
