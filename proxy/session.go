package proxy

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/telemetry"
)

// Session is one client connection's state: its current keyspace and its
// request sequence. Methods are safe for concurrent use (drivers pipeline
// requests on one connection).
type Session struct {
	c      *Coordinator
	id     uint64
	source bindings.Source
	seq    atomic.Uint64

	mu       sync.RWMutex
	keyspace string
	role     string // authz.go
}

// NewSession starts a client session.
func (c *Coordinator) NewSession(source bindings.Source) *Session {
	return &Session{c: c, id: c.sessionIDs.Add(1), source: source}
}

// ID is the session's id, unique within this process.
func (s *Session) ID() uint64 { return s.id }

// Keyspace is the session's current keyspace ("" if none).
func (s *Session) Keyspace() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.keyspace
}

// SetKeyspace changes the current keyspace without checks (drivers send
// USE through Query; this is for front ends that carry the keyspace
// themselves, like GraphQL's /graphql/{keyspace}).
func (s *Session) SetKeyspace(ks string) {
	s.mu.Lock()
	s.keyspace = ks
	s.mu.Unlock()
}

// PreparedStatement is an entry of the prepared-statement registry.
type PreparedStatement struct {
	ID       []byte
	Query    string
	Keyspace string // the session keyspace at PREPARE time
	Parsed   *cql.Parsed
	Meta     *bindings.Prepared
	// ResultMetadataID identifies Meta.Result (protocol v5).
	ResultMetadataID []byte
	// fingerprint is cql.Fingerprint(Query), for spans of traced EXECUTEs
	// (computed once here rather than per traced request).
	fingerprint string
}

// handle is the backend's own form of the statement (Meta.Handle), which
// its executions carry back to it.
func (ps *PreparedStatement) handle() any {
	if ps.Meta == nil {
		return nil
	}
	return ps.Meta.Handle
}

// Query executes one statement text.
func (s *Session) Query(ctx context.Context, req *bindings.Request) (*bindings.Result, error) {
	start := s.c.now()
	r := *req
	r.Keyspace = s.Keyspace()
	st := newStmtTrace(ctx, req.Query)
	res, err := s.query(ctx, &st, &r)
	if r.Parsed != nil {
		r.Query = redactPasswords(r.Parsed.Stmt, r.Query)
	}
	s.observe(ctx, &st, start, &r, false, res, err, 0, 0, 0)
	return res, err
}

// query runs r (a private copy carrying the session keyspace).
func (s *Session) query(ctx context.Context, st *stmtTrace, r *bindings.Request) (*bindings.Result, error) {
	parsed := r.Parsed
	if parsed == nil {
		p, err := s.parse(ctx, st, r.Query)
		if err != nil {
			return nil, err
		}
		parsed = p
	}
	r.Parsed = parsed
	if use, ok := parsed.Stmt.(*cql.Use); ok {
		return s.use(ctx, use.Keyspace)
	}
	if cql.IsAuthStatement(parsed.Stmt) {
		return s.authStatement(ctx, parsed.Stmt, r.Keyspace)
	}
	rt, err := s.route(ctx, st, parsed.Stmt, r.Keyspace)
	if err != nil {
		return nil, err
	}
	if err := s.authorize(ctx, parsed.Stmt, r.Keyspace, rt.Name); err != nil {
		return nil, err
	}
	res, err := s.execute(ctx, st, rt, parsed, r)
	if err == nil && res != nil && res.Change != nil {
		s.schemaChanged(ctx, rt.Name, res.Change)
		if res.Events == nil {
			s.c.notify(res.Change)
		}
		for _, ch := range res.Events {
			s.c.notify(ch)
		}
	}
	return res, err
}

// execute runs a statement on its backend, bounded by the request's
// budget for its keyspace.
func (s *Session) execute(ctx context.Context, st *stmtTrace, rt Route, parsed *cql.Parsed, r *bindings.Request) (*bindings.Result, error) {
	ks, _ := statementKeyspace(parsed.Stmt, r.Keyspace)
	if !r.HasTimestamp && s.c.stamps(ks, parsed.Stmt) {
		r.Timestamp, r.HasTimestamp = s.c.now().UnixMicro(), true
	}
	bctx, cancel, d := budget(ctx, parsed.Stmt, ks)
	if cancel != nil {
		defer cancel()
	}
	var sp telemetry.Span
	if st.on {
		bctx, sp = s.backendSpan(bctx, rt, describe(parsed.Stmt, r.Keyspace, st.fp), true)
	}
	res, err := rt.Backend.Execute(bctx, r)
	if d > 0 && overBudget(ctx, bctx, err, ks) {
		res, err = nil, &BudgetError{Keyspace: ks, Budget: d, Cause: err,
			Timeout: TimeoutError(parsed.Stmt, r.Consistency, r.SerialConsistency, TimeoutMessage(d))}
	}
	endBackendSpan(sp, res, err)
	return res, err
}

// use switches the session keyspace after checking it exists.
func (s *Session) use(ctx context.Context, ks string) (*bindings.Result, error) {
	cat, err := s.c.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	if !isSystemKeyspace(ks) && cat.Keyspace(ks) == nil {
		return nil, bindings.Errorf(bindings.CodeInvalid, "Keyspace '%s' does not exist", ks)
	}
	s.SetKeyspace(ks)
	return &bindings.Result{Kind: bindings.ResultSetKeyspace, Keyspace: ks}, nil
}

func isSystemKeyspace(ks string) bool {
	switch ks {
	case "system", "system_schema", "system_auth", "system_distributed", "system_traces",
		"system_views", "system_virtual_schema":
		return true
	}
	return false
}

// Prepare prepares query on the backend that serves it and registers it.
func (s *Session) Prepare(ctx context.Context, query string) (*PreparedStatement, error) {
	st := newStmtTrace(ctx, query)
	parsed, err := s.parse(ctx, &st, query)
	if err != nil {
		return nil, err
	}
	ks := s.Keyspace()
	if cql.IsAuthStatement(parsed.Stmt) {
		return nil, bindings.Errorf(bindings.CodeInvalid, "dohyo does not prepare role and permission statements: send them as queries")
	}
	rt, err := s.route(ctx, &st, parsed.Stmt, ks)
	if err != nil {
		return nil, err
	}
	if err := s.authorize(ctx, parsed.Stmt, ks, rt.Name); err != nil {
		return nil, err
	}
	p, ok := bindings.Capability[bindings.Preparer](rt.Backend)
	if !ok {
		return nil, bindings.Unsupported("backend %s cannot prepare statements", rt.Name)
	}
	pctx := ctx
	var sp telemetry.Span
	if st.on {
		info := describe(parsed.Stmt, ks, st.fp)
		info.Operation = "PREPARE " + info.Operation
		pctx, sp = s.backendSpan(ctx, rt, info, false)
	}
	meta, err := p.Prepare(pctx, ks, query)
	endBackendSpan(sp, nil, err)
	if err != nil {
		return nil, err
	}
	ps := &PreparedStatement{
		ID:               PreparedID(ks, query),
		Query:            query,
		Keyspace:         ks,
		Parsed:           parsed,
		Meta:             meta,
		ResultMetadataID: resultMetadataID(meta),
		fingerprint:      st.fp,
	}
	if ps.fingerprint == "" {
		ps.fingerprint = cql.Fingerprint(query)
	}
	s.c.prepared.Put(string(ps.ID), ps)
	return ps, nil
}

// resultMetadataID hashes the result columns so v5 clients can tell when a
// prepared statement's result shape changed.
func resultMetadataID(meta *bindings.Prepared) []byte {
	h := md5.New()
	if meta != nil {
		for _, c := range meta.Result {
			fmt.Fprintf(h, "%s.%s.%s:%s;", c.Keyspace, c.Table, c.Name, c.Type)
		}
	}
	return h.Sum(nil)
}

// Lookup returns a registered prepared statement, or an Unprepared error
// that makes drivers re-prepare.
func (c *Coordinator) Lookup(id []byte) (*PreparedStatement, error) {
	if ps, ok := c.prepared.Get(string(id)); ok {
		return ps, nil
	}
	return nil, &bindings.Error{
		Code: bindings.CodeUnprepared,
		Message: fmt.Sprintf("Prepared query with ID %s not found (either the query was not prepared "+
			"on this host (maybe the host has been restarted?) or you have prepared too many queries "+
			"and it has been evicted from the internal cache)", hex.EncodeToString(id)),
		UnpreparedID: append([]byte(nil), id...),
	}
}

// Execute runs a prepared statement by id. It fills req's Query, Parsed,
// Keyspace and Handle in from the statement: req is the caller's request for this
// one execution (copying it cost an allocation per request).
func (s *Session) Execute(ctx context.Context, id []byte, req *bindings.Request) (*bindings.Result, error) {
	start := s.c.now()
	ps, err := s.c.Lookup(id)
	if err != nil {
		st := stmtTrace{}
		s.observe(ctx, &st, start, req, true, nil, err, 0, 0, 0)
		return nil, err
	}
	r := req
	r.Query, r.Parsed, r.Keyspace, r.Handle = ps.Query, ps.Parsed, ps.Keyspace, ps.handle()
	st := stmtTrace{on: telemetry.FromContext(ctx) != nil}
	if st.on {
		st.fp = ps.fingerprint
		if st.fp == "" {
			st.fp = cql.Fingerprint(ps.Query)
		}
	}
	res, err := s.execPrepared(ctx, &st, ps, r)
	s.observe(ctx, &st, start, r, true, res, err, 0, 0, 0)
	return res, err
}

func (s *Session) execPrepared(ctx context.Context, st *stmtTrace, ps *PreparedStatement, r *bindings.Request) (*bindings.Result, error) {
	rt, err := s.route(ctx, st, ps.Parsed.Stmt, ps.Keyspace)
	if err != nil {
		return nil, err
	}
	if err := s.authorize(ctx, ps.Parsed.Stmt, ps.Keyspace, rt.Name); err != nil {
		return nil, err
	}
	res, err := s.execute(ctx, st, rt, ps.Parsed, r)
	if err == nil && res != nil && res.Change != nil {
		s.schemaChanged(ctx, rt.Name, res.Change)
	}
	return res, err
}
