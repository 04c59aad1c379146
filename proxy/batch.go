package proxy

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/telemetry"
)

// BatchEntry is one child of a BATCH message: a query text or the id of a
// prepared statement, with its bound values.
type BatchEntry struct {
	Query      string
	PreparedID []byte
	Values     []bindings.Value
	Names      []string
}

// BatchRequest is a BATCH message as the CQL server decodes it.
type BatchRequest struct {
	Type              cql.BatchType
	Entries           []BatchEntry
	Consistency       bindings.Consistency
	SerialConsistency bindings.Consistency
	Timestamp         int64
	HasTimestamp      bool
}

// Batch executes a BATCH message. Every child must route to one backend;
// each child is observed separately with the batch's outcome.
func (s *Session) Batch(ctx context.Context, req *BatchRequest) (*bindings.Result, error) {
	start := s.c.now()
	ks := s.Keyspace()
	br := &bindings.BatchRequest{
		Keyspace:          ks,
		Type:              req.Type,
		Consistency:       req.Consistency,
		SerialConsistency: req.SerialConsistency,
		Timestamp:         req.Timestamp,
		HasTimestamp:      req.HasTimestamp,
		Entries:           make([]bindings.BatchEntry, len(req.Entries)),
	}
	st := stmtTrace{on: telemetry.FromContext(ctx) != nil}
	res, err := s.batch(ctx, &st, req, br)
	sp := s.tapSpan(ctx, &st)
	defer sp.End()
	for i, e := range br.Entries {
		o := &bindings.Request{
			Query: e.Query, Values: e.Values, Names: e.Names, Keyspace: ks,
			Consistency: req.Consistency, SerialConsistency: req.SerialConsistency,
			Timestamp: br.Timestamp, HasTimestamp: br.HasTimestamp,
		}
		s.record(start, o, req.Entries[i].PreparedID != nil, res, err, i, len(br.Entries), uint8(req.Type))
	}
	return res, err
}

func (s *Session) batch(ctx context.Context, st *stmtTrace, req *BatchRequest, br *bindings.BatchRequest) (*bindings.Result, error) {
	kss := make([]string, 0, len(req.Entries))
	for i, e := range req.Entries {
		entry := bindings.BatchEntry{Query: e.Query, Values: e.Values, Names: e.Names}
		sessionKS := br.Keyspace
		if e.PreparedID != nil {
			ps, err := s.c.Lookup(e.PreparedID)
			if err != nil {
				return nil, err
			}
			entry.Query, entry.Parsed, entry.Handle = ps.Query, ps.Parsed, ps.handle()
			sessionKS = ps.Keyspace
		} else {
			cst := *st
			if st.on {
				cst.fp = cql.Fingerprint(e.Query)
			}
			p, err := s.parse(ctx, &cst, e.Query)
			if err != nil {
				return nil, err
			}
			entry.Parsed = p
		}
		br.Entries[i] = entry
		switch entry.Parsed.Stmt.(type) {
		case *cql.Insert, *cql.Update, *cql.Delete:
		default:
			return nil, bindings.Errorf(bindings.CodeInvalid,
				"Invalid statement in batch: only UPDATE, INSERT and DELETE statements are allowed.")
		}
		ks, err := statementKeyspace(entry.Parsed.Stmt, sessionKS)
		if err != nil {
			return nil, err
		}
		kss = append(kss, ks)
	}
	if len(kss) == 0 {
		return &bindings.Result{Kind: bindings.ResultVoid}, nil
	}
	rt, err := s.routeBatch(ctx, st, kss)
	if err != nil {
		return nil, err
	}
	if s.c.stamp != nil && !br.HasTimestamp && s.stampBatch(br, kss) {
		br.Timestamp, br.HasTimestamp = s.c.now().UnixMicro(), true
	}
	for i, e := range br.Entries {
		sessionKS := br.Keyspace
		if req.Entries[i].PreparedID != nil {
			sessionKS = kss[i] // the child resolved to its prepared keyspace
		}
		if err := s.authorize(ctx, e.Parsed.Stmt, sessionKS, rt.Name); err != nil {
			return nil, err
		}
	}
	bctx, cancel, d := budget(ctx, nil, kss[0])
	if cancel != nil {
		defer cancel()
	}
	var sp telemetry.Span
	if st.on {
		info := telemetry.Statement{Namespace: kss[0], Operation: "BATCH"}
		if len(br.Entries) > 0 {
			info.Fingerprint = batchFingerprint(br)
		}
		bctx, sp = s.backendSpan(bctx, rt, info, true)
	}
	res, err := rt.Backend.Batch(bctx, br)
	if d > 0 && overBudget(ctx, bctx, err, kss[0]) {
		res, err = nil, &BudgetError{Keyspace: kss[0], Budget: d, Cause: err,
			Timeout: BatchTimeoutError(req.Type, req.Consistency, TimeoutMessage(d))}
	}
	endBackendSpan(sp, res, err)
	return res, err
}

// routeBatch routes a batch's keyspaces to their one backend, in a
// "route" span.
func (s *Session) routeBatch(ctx context.Context, st *stmtTrace, kss []string) (Route, error) {
	if !st.on {
		return s.c.routeAll(kss)
	}
	_, sp := telemetry.Start(ctx, "route")
	defer sp.End()
	rt, err := s.c.routeAll(kss)
	if err != nil {
		sp.Fail(bindings.AsError(err).Code.String(), err)
		return Route{}, err
	}
	label := telemetry.SafeBackend(rt.Name)
	if sp.Exporting() {
		sp.SetStatement(telemetry.Statement{Namespace: kss[0]}, telemetry.AttrBackend.String(label))
	}
	if sp.Tracing() {
		sp.Event("Routing batch of " + strconv.Itoa(len(kss)) + " statements to " + label)
	}
	return rt, nil
}

// batchFingerprint is "BEGIN BATCH <child fingerprints> APPLY BATCH".
func batchFingerprint(br *bindings.BatchRequest) string {
	var b strings.Builder
	b.WriteString("BEGIN BATCH ")
	for _, e := range br.Entries {
		text := e.Query
		if e.Parsed != nil && e.Parsed.Text != "" {
			text = e.Parsed.Text
		}
		b.WriteString(cql.Fingerprint(text))
		b.WriteString("; ")
	}
	b.WriteString("APPLY BATCH")
	return b.String()
}

// observe hands one request and its outcome to the tap, in a "capture"
// span.
func (s *Session) observe(ctx context.Context, st *stmtTrace, start time.Time, req *bindings.Request, prepared bool,
	res *bindings.Result, err error, batchIndex, batchSize int, batchType uint8) {
	sp := s.tapSpan(ctx, st)
	s.record(start, req, prepared, res, err, batchIndex, batchSize, batchType)
	sp.End()
}

// record builds the observation of one request and hands it to the tap.
// Result rows are digested only while the tap uses them (a capture or a
// mirror: TapWantsRows); the observation is pooled, since a Tap keeps no
// reference to it after Observe.
func (s *Session) record(start time.Time, req *bindings.Request, prepared bool,
	res *bindings.Result, err error, batchIndex, batchSize int, batchType uint8) {
	o := s.observation(start, req, prepared, batchIndex, batchSize, batchType)
	if err != nil {
		o.Err = true
		o.ErrCode = bindings.AsError(err).Code
	} else if res != nil {
		o.ResultKind = res.Kind
		o.Rows = len(res.Rows)
		if s.c.TapWantsRows() {
			o.Digest = bindings.RowsDigest(res.Rows)
		}
		o.HasMore = res.PagingState != nil
	}
	s.c.tap.Observe(o)
	*o = bindings.Observation{}
	observationPool.Put(o)
}

var observationPool = sync.Pool{New: func() any { return new(bindings.Observation) }}

// observation is the request part of an observation (outcome unset).
func (s *Session) observation(start time.Time, req *bindings.Request, prepared bool,
	batchIndex, batchSize int, batchType uint8) *bindings.Observation {
	o := observationPool.Get().(*bindings.Observation)
	*o = bindings.Observation{
		Time:              start,
		Session:           s.id,
		Seq:               s.seq.Add(1),
		Source:            s.source,
		Keyspace:          req.Keyspace,
		Query:             req.Query,
		Prepared:          prepared,
		Values:            req.Values,
		Names:             req.Names,
		Consistency:       req.Consistency,
		SerialConsistency: req.SerialConsistency,
		PageSize:          req.PageSize,
		PagingState:       req.PagingState,
		Timestamp:         req.Timestamp,
		HasTimestamp:      req.HasTimestamp,
		BatchIndex:        batchIndex,
		BatchSize:         batchSize,
		BatchType:         batchType,
		Latency:           s.c.since(start),
	}
	return o
}

// stampBatch tells whether every child of a batch may get the
// coordinator's timestamp (Config.Stamp).
func (s *Session) stampBatch(br *bindings.BatchRequest, kss []string) bool {
	for i, e := range br.Entries {
		if !s.c.stamps(kss[i], e.Parsed.Stmt) {
			return false
		}
	}
	return true
}
