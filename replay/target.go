package replay

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/capture"
	"github.com/dohyo/dohyo/cql"
)

// Outcome is what a target answered to one op.
type Outcome struct {
	Pages    []uint64 // bindings.RowsDigest of each page read
	PageRows []int    // rows of each page
	Err      bool
	Code     bindings.ErrorCode
	Msg      string
}

// Rows is the total row count over the first n pages (all when n <= 0).
func (o *Outcome) Rows(n int) int {
	t := 0
	for i, r := range o.PageRows {
		if n > 0 && i >= n {
			break
		}
		t += r
	}
	return t
}

// Digest is the digest over the first n pages (all when n <= 0); digests
// are sums, so pages add up.
func (o *Outcome) Digest(n int) uint64 {
	var t uint64
	for i, d := range o.Pages {
		if n > 0 && i >= n {
			break
		}
		t += d
	}
	return t
}

// Target is a system ops are replayed against.
type Target interface {
	// Do executes op (one statement or one batch) and reports the outcome.
	Do(ctx context.Context, op *Op) Outcome
	// ApplySchema runs DDL statements, ignoring AlreadyExists.
	ApplySchema(ctx context.Context, ddl string) error
	Close() error
}

// Versioner is implemented by targets that can name the server version
// they talk to (reported with the run's conditions).
type Versioner interface {
	Version(ctx context.Context) (string, error)
}

// maxPages bounds re-paging of one read on the target.
const maxPages = 100000

// BackendTarget replays through a bindings.Backend (embedded, hbase,
// cassandra).
type BackendTarget struct {
	b bindings.Backend

	prepared sync.Map // prepKey → error (nil value: prepared)
}

type prepKey struct{ keyspace, query string }

// NewBackendTarget wraps b; Close closes b.
func NewBackendTarget(b bindings.Backend) *BackendTarget {
	return &BackendTarget{b: b}
}

var (
	_ Target    = (*BackendTarget)(nil)
	_ Versioner = (*BackendTarget)(nil)
)

// Close closes the backend.
func (t *BackendTarget) Close() error { return t.b.Close() }

// Backend returns the wrapped backend (to describe it in reports).
func (t *BackendTarget) Backend() bindings.Backend { return t.b }

// Version asks the backend's server for its version; ErrNoVersion when
// the backend cannot tell (embedded: it is dohyo itself).
func (t *BackendTarget) Version(ctx context.Context) (string, error) {
	if v, ok := bindings.Capability[bindings.ServerVersioner](t.b); ok {
		return v.ServerVersion(ctx)
	}
	return "", ErrNoVersion
}

// ErrNoVersion is returned by Versioner.Version when the target cannot
// name a server version.
var ErrNoVersion = errors.New("replay: target has no server version")

// ApplySchema executes each statement of ddl; AlreadyExists is ignored so
// it behaves as IF NOT EXISTS. A capture's schema describes every keyspace
// of the captured cluster, including ones the target cannot hold (a table
// with a user-defined type, on a store without them) and that the replayed
// traffic may never touch: a statement that fails does not stop the
// others, and the failures come back as a *SchemaError (statements the
// traffic does use then fail visibly in the report).
func (t *BackendTarget) ApplySchema(ctx context.Context, ddl string) error {
	stmts, err := cql.ParseScript(ddl)
	if err != nil {
		return fmt.Errorf("replay: schema: %w", err)
	}
	var se SchemaError
	for _, p := range stmts {
		_, err := t.b.Execute(ctx, &bindings.Request{Query: p.Text, Parsed: p, Consistency: bindings.One})
		if err != nil && !isAlreadyExists(err) {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			se.Failed = append(se.Failed, fmt.Sprintf("%s: %v", short(p.Text), err))
		}
	}
	if len(se.Failed) > 0 {
		return &se
	}
	return nil
}

// SchemaError lists the schema statements a target could not apply.
type SchemaError struct{ Failed []string }

func (e *SchemaError) Error() string {
	return fmt.Sprintf("%d schema statements could not be applied (first: %s)", len(e.Failed), e.Failed[0])
}

func isAlreadyExists(err error) bool {
	var e *bindings.Error
	return errors.As(err, &e) && e.Code == bindings.CodeAlreadyExists
}

// prepare re-prepares a captured prepared statement once per target
// (cached, like a driver's prepared cache).
func (t *BackendTarget) prepare(ctx context.Context, ks, q string) error {
	p, ok := bindings.Capability[bindings.Preparer](t.b)
	if !ok {
		return nil
	}
	key := prepKey{ks, q}
	if v, done := t.prepared.Load(key); done {
		err, _ := v.(error)
		return err
	}
	_, err := p.Prepare(ctx, ks, q)
	t.prepared.Store(key, err)
	return err
}

// Do executes op. A read whose captured first page said "more" is re-paged
// on the target with the captured page size until the end, so every
// captured page has a counterpart.
func (t *BackendTarget) Do(ctx context.Context, op *Op) Outcome {
	var out Outcome
	r := op.Recs[0]
	if r.BatchSize > 0 {
		req := &bindings.BatchRequest{
			Keyspace:          r.Keyspace,
			Type:              cql.BatchType(r.BatchType),
			Consistency:       r.Consistency,
			SerialConsistency: r.SerialConsistency,
			Timestamp:         r.Timestamp,
			HasTimestamp:      r.HasTimestamp,
		}
		for _, c := range op.Recs {
			if c.Prepared {
				if err := t.prepare(ctx, c.Keyspace, c.Query); err != nil {
					return fail(err)
				}
			}
			req.Entries = append(req.Entries, bindings.BatchEntry{Query: c.Query, Values: bindValues(c.Values), Names: c.Names})
		}
		if _, err := t.b.Batch(ctx, req); err != nil {
			return fail(err)
		}
		return out
	}
	if r.Prepared {
		if err := t.prepare(ctx, r.Keyspace, r.Query); err != nil {
			return fail(err)
		}
	}
	req := &bindings.Request{
		Keyspace:          r.Keyspace,
		Query:             r.Query,
		Values:            bindValues(r.Values),
		Names:             r.Names,
		Consistency:       r.Consistency,
		SerialConsistency: r.SerialConsistency,
		PageSize:          r.PageSize,
		Timestamp:         r.Timestamp,
		HasTimestamp:      r.HasTimestamp,
	}
	for page := 0; page < maxPages; page++ {
		res, err := t.b.Execute(ctx, req)
		if err != nil {
			f := fail(err)
			f.Pages, f.PageRows = out.Pages, out.PageRows
			return f
		}
		if res.Kind != bindings.ResultRows {
			return out
		}
		out.Pages = append(out.Pages, bindings.RowsDigest(res.Rows))
		out.PageRows = append(out.PageRows, len(res.Rows))
		if res.PagingState == nil || !r.HasMore || r.PageSize <= 0 {
			return out
		}
		req.PagingState = res.PagingState
	}
	return out
}

func bindValues(vs []capture.Value) []bindings.Value {
	if vs == nil {
		return nil
	}
	out := make([]bindings.Value, len(vs))
	for i, v := range vs {
		out[i] = v.Binding()
	}
	return out
}

func fail(err error) Outcome {
	var e *bindings.Error
	if errors.As(err, &e) {
		return Outcome{Err: true, Code: e.Code, Msg: e.Message}
	}
	return Outcome{Err: true, Code: bindings.CodeServerError, Msg: err.Error()}
}

func short(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// RedactURL strips user info and secret-looking query parameters from a
// target URL, for reports.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable URL)"
	}
	if u.User != nil {
		u.User = url.User("REDACTED")
	}
	q := u.Query()
	changed := false
	for k := range q {
		if SecretParam(k) {
			q.Set(k, "REDACTED")
			changed = true
		}
	}
	if changed {
		u.RawQuery = q.Encode()
	}
	return u.String()
}
