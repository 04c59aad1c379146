package graphql

import (
	"bytes"
	"context"
	"errors"

	"sync"
	"time"

	"github.com/graphql-go/graphql"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/proxy"
)

// requestState is what one HTTP request's resolvers share: the coordinator
// session its statements run in (so capture sees them as one client
// session) and, for @atomic mutations, the batch being assembled.
type requestState struct {
	session *proxy.Session

	mu    sync.Mutex
	batch *atomicBatch
}

type stateKey struct{}

// withState returns a context of ctx carrying a new requestState of
// session.
func withState(ctx context.Context, session *proxy.Session) context.Context {
	return &stateCtx{Context: ctx, rs: requestState{session: session}}
}

// stateCtx is context.WithValue(ctx, stateKey{}, &rs) in one allocation
// instead of two.
type stateCtx struct {
	context.Context
	rs requestState
}

// Value returns the request state for stateKey, else what the parent holds.
func (c *stateCtx) Value(key any) any {
	if key == any(stateKey{}) {
		return &c.rs
	}
	return c.Context.Value(key)
}

func stateFrom(ctx context.Context) (*requestState, error) {
	rs, ok := ctx.Value(stateKey{}).(*requestState)
	if !ok {
		return nil, errors.New("internal error: no request state")
	}
	return rs, nil
}

// prepCache remembers prepared statements of one keyspace schema; it is
// dropped with the schema when the keyspace changes, so bind types never
// go stale.
type prepCache struct {
	max int
	mu  sync.Mutex
	m   map[string]*proxy.PreparedStatement
}

func newPrepCache(max int) *prepCache {
	return &prepCache{max: max, m: map[string]*proxy.PreparedStatement{}}
}

func (c *prepCache) get(ctx context.Context, sess *proxy.Session, query string) (*proxy.PreparedStatement, error) {
	c.mu.Lock()
	ps, ok := c.m[query]
	c.mu.Unlock()
	if ok {
		return ps, nil
	}
	ps, err := sess.Prepare(ctx, query)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.m) >= c.max {
		clear(c.m) // simple bound: statements are cheap to prepare again
	}
	c.m[query] = ps
	c.mu.Unlock()
	return ps, nil
}

// text returns the cached statement whose text is query, without
// allocating; "" when none is.
func (c *prepCache) text(query []byte) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ps, ok := c.m[string(query)]; ok && ps.Query == string(query) {
		return ps.Query
	}
	return ""
}

func (c *prepCache) forget(query string) {
	c.mu.Lock()
	delete(c.m, query)
	c.mu.Unlock()
}

// atomicBatch collects the mutations of an @atomic operation. Resolvers
// run one after the other and return thunks; graphql-go calls the thunks
// only after every mutation field resolved, so the first thunk executes
// the whole LOGGED batch and every thunk reads its share of the outcome.
type atomicBatch struct {
	d        *dmlSchema
	entries  []proxy.BatchEntry
	opts     *mutationOptions
	optsSet  bool
	buildErr error

	once   sync.Once
	res    *bindings.Result
	resErr error
}

// addToBatch registers the statements of one mutation field in the
// request's @atomic batch and returns the thunk that yields its result.
func (s *Server) addToBatch(p graphql.ResolveParams, d *dmlSchema, ti *tableInfo, rs *requestState,
	sts []*statement, values []map[string]any, opts *mutationOptions, buildErr error, bulk bool) (any, error) {
	rs.mu.Lock()
	if rs.batch == nil {
		rs.batch = &atomicBatch{d: d, opts: &mutationOptions{consistency: bindings.LocalQuorum, serial: bindings.Serial}}
	}
	b := rs.batch
	if buildErr == nil && p.Args["options"] != nil {
		if b.optsSet {
			buildErr = errors.New("options can only be defined once in an @atomic mutation selection")
		} else {
			b.opts, b.optsSet = opts, true
		}
	}
	rs.mu.Unlock()
	if buildErr == nil {
		for _, st := range sts {
			ps, err := d.prep.get(p.Context, rs.session, st.query)
			if err != nil {
				buildErr = err
				break
			}
			vals := make([]bindings.Value, len(st.values))
			for i, v := range st.values {
				vals[i] = bindings.Value{Bytes: v}
			}
			rs.mu.Lock()
			b.entries = append(b.entries, proxy.BatchEntry{PreparedID: ps.ID, Values: vals})
			rs.mu.Unlock()
		}
	}
	if buildErr != nil {
		rs.mu.Lock()
		if b.buildErr == nil {
			b.buildErr = buildErr
		}
		rs.mu.Unlock()
	}
	async := hasDirective(operationOf(p.Info), "async")
	ctx := p.Context
	return func() (any, error) {
		if async {
			b.once.Do(func() { s.runBatchAsync(ctx, rs, b) })
			out := make([]any, len(values))
			for i, v := range values {
				out[i] = acceptedResult(ti, v)
			}
			if bulk {
				return out, nil
			}
			return out[0], nil
		}
		b.once.Do(func() { b.res, b.resErr = s.runBatch(ctx, rs, b) })
		if b.resErr != nil {
			return nil, b.resErr
		}
		out := make([]any, len(values))
		for i, v := range values {
			r, err := batchResult(ti, b.res, v)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		if bulk {
			return out, nil
		}
		return out[0], nil
	}, nil
}

func (s *Server) runBatch(ctx context.Context, rs *requestState, b *atomicBatch) (*bindings.Result, error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if b.buildErr != nil {
		return nil, b.buildErr
	}
	return rs.session.Batch(ctx, &proxy.BatchRequest{
		Type:              cql.BatchLogged,
		Entries:           b.entries,
		Consistency:       b.opts.consistency,
		SerialConsistency: b.opts.serial,
	})
}

func (s *Server) runBatchAsync(ctx context.Context, rs *requestState, b *atomicBatch) {
	s.async.Add(1)
	go func() {
		defer s.async.Done()
		actx, cancel := context.WithTimeout(proxy.WithoutBudget(context.WithoutCancel(ctx)), s.cfg.AsyncTimeout)
		defer cancel()
		if _, err := s.runBatch(actx, rs, b); err != nil {
			s.log.Warn("graphql: @async @atomic batch failed", "err", err)
		}
	}()
}

// executeAsync runs an @async mutation in the background.
func (s *Server) executeAsync(ctx context.Context, d *dmlSchema, rs *requestState, st *statement, req *bindings.Request) {
	s.async.Add(1)
	go func() {
		defer s.async.Done()
		actx, cancel := context.WithTimeout(proxy.WithoutBudget(context.WithoutCancel(ctx)), s.cfg.AsyncTimeout)
		defer cancel()
		if _, err := s.execute(actx, d, rs, st, req); err != nil {
			s.log.Warn("graphql: @async mutation failed", "query", st.query, "err", err)
		}
	}()
}

// batchResult is one mutation's result in an executed batch: applied with
// its input when the batch applied; otherwise the row that made the batch
// fail when it is this mutation's, or just applied=false.
func batchResult(ti *tableInfo, res *bindings.Result, value map[string]any) (map[string]any, error) {
	if res == nil || len(res.Rows) == 0 || isApplied(res.Columns, res.Rows[0]) {
		return map[string]any{"applied": true, "value": echoValue(ti, value)}, nil
	}
	for _, row := range res.Rows {
		if matchesKey(ti, res.Columns, row, value) {
			v, err := rowToGraphQL(ti, res.Columns, row)
			if err != nil {
				return nil, err
			}
			return map[string]any{"applied": false, "value": v}, nil
		}
	}
	return map[string]any{"applied": false}, nil
}

// matchesKey reports whether a batch result row carries the primary key of
// a mutation's input value.
func matchesKey(ti *tableInfo, cols []bindings.ColumnSpec, row [][]byte, value map[string]any) bool {
	for i, c := range cols {
		col := ti.t.Column(c.Name)
		if col == nil || !ti.isPrimaryKey(col) {
			continue
		}
		f := ti.fname[col.Name]
		want, err := encodeInput(col.Type, f, value[f])
		if err != nil || i >= len(row) || !bytes.Equal(want, row[i]) {
			return false
		}
	}
	return true
}

// defaultAsyncTimeout is how long an @async mutation may take by default.
const defaultAsyncTimeout = 30 * time.Second
