package mirror

import (
	"context"
	"errors"
	"io"
	"slices"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/capture"
	"github.com/dohyo/dohyo/cql"
)

// ReapplyFilter selects the captured writes to re-apply.
type ReapplyFilter struct {
	Keyspaces    []string  // only these keyspaces (required)
	Since, Until time.Time // arrival-time window; zero: open
}

// ReapplyStats says what a Reapply did with every record it read.
type ReapplyStats struct {
	Read    int64 `json:"read"`
	Applied int64 `json:"applied"`
	Failed  int64 `json:"failed"`
	// Skipped: not a successful write of the keyspaces in the window.
	Skipped int64 `json:"skipped"`
	// NotIdempotent: LWT, counter and read-modify-write statements, and
	// writes captured without a timestamp; applying them again could
	// change what the mirror already has, so they are left out and counted.
	NotIdempotent int64            `json:"not_idempotent"`
	Redacted      int64            `json:"redacted"` // values or statement redacted in the capture
	Errors        map[string]int64 `json:"errors,omitempty"`
}

// Reapply sends the captured writes selected by f to b, in capture order,
// each with its captured timestamp: the writes a mirror missed while it
// was down or behind. Re-applying a write the mirror already has changes
// nothing (same values, same timestamp), so a window may be generous.
// next yields records until io.EOF (capture.Merger.Next).
func Reapply(ctx context.Context, next func() (*capture.Record, error), b bindings.Backend, f ReapplyFilter) (ReapplyStats, error) {
	st := ReapplyStats{Errors: map[string]int64{}}
	if len(f.Keyspaces) == 0 {
		return st, errors.New("mirror: reapply needs the keyspaces to re-apply")
	}
	cache := map[string]*cql.Parsed{}
	for {
		r, err := next()
		if errors.Is(err, io.EOF) {
			return st, nil
		}
		if err != nil {
			return st, err
		}
		st.Read++
		at := r.At()
		if r.Err || (!f.Since.IsZero() && at.Before(f.Since)) || (!f.Until.IsZero() && at.After(f.Until)) {
			st.Skipped++
			continue
		}
		p, ok := cache[r.Query]
		if !ok {
			p, _ = cql.Parse(r.Query)
			cache[r.Query] = p
		}
		if p == nil {
			st.Skipped++
			continue
		}
		ks, _, k := classify(p.Stmt, r.Keyspace)
		if k != kindWrite || !slices.Contains(f.Keyspaces, ks) {
			st.Skipped++
			continue
		}
		if !Stampable(p.Stmt) || !r.HasTimestamp {
			st.NotIdempotent++
			continue
		}
		vals, ok := recordValues(r)
		if !ok || r.QueryRedacted {
			st.Redacted++
			continue
		}
		_, err = b.Execute(ctx, &bindings.Request{Keyspace: r.Keyspace, Query: r.Query, Parsed: p, Values: vals,
			Names: r.Names, Consistency: r.Consistency, Timestamp: r.Timestamp, HasTimestamp: true})
		if err != nil {
			if ctx.Err() != nil {
				return st, ctx.Err()
			}
			st.Failed++
			st.Errors[bindings.AsError(err).Code.String()]++
			continue
		}
		st.Applied++
	}
}

// recordValues are a record's bound values, unless one was redacted.
func recordValues(r *capture.Record) ([]bindings.Value, bool) {
	out := make([]bindings.Value, len(r.Values))
	for i, v := range r.Values {
		if v.Redacted != capture.NotRedacted {
			return nil, false
		}
		out[i] = bindings.Value{Bytes: v.Bytes, Unset: v.Unset}
	}
	return out, true
}
