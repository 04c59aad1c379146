package proxy

import (
	"context"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
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
	res, err := s.batch(ctx, req, br)
	for i, e := range br.Entries {
		o := &bindings.Request{
			Query: e.Query, Values: e.Values, Names: e.Names, Keyspace: ks,
			Consistency: req.Consistency, SerialConsistency: req.SerialConsistency,
			Timestamp: req.Timestamp, HasTimestamp: req.HasTimestamp,
		}
		s.observe(start, o, req.Entries[i].PreparedID != nil, res, err, i, len(br.Entries), uint8(req.Type))
	}
	return res, err
}

func (s *Session) batch(ctx context.Context, req *BatchRequest, br *bindings.BatchRequest) (*bindings.Result, error) {
	kss := make([]string, 0, len(req.Entries))
	for i, e := range req.Entries {
		entry := bindings.BatchEntry{Query: e.Query, Values: e.Values, Names: e.Names}
		sessionKS := br.Keyspace
		if e.PreparedID != nil {
			ps, err := s.c.Lookup(e.PreparedID)
			if err != nil {
				return nil, err
			}
			entry.Query, entry.Parsed = ps.Query, ps.Parsed
			sessionKS = ps.Keyspace
		} else {
			p, err := s.c.parse(e.Query)
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
	backend, err := s.c.routeAll(kss)
	if err != nil {
		return nil, err
	}
	return s.c.backends[backend].Batch(ctx, br)
}

// observe hands one request and its outcome to the tap.
func (s *Session) observe(start time.Time, req *bindings.Request, prepared bool,
	res *bindings.Result, err error, batchIndex, batchSize int, batchType uint8) {
	o := &bindings.Observation{
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
		Latency:           s.c.now().Sub(start),
	}
	if err != nil {
		o.Err = true
		o.ErrCode = bindings.AsError(err).Code
	} else if res != nil {
		o.ResultKind = res.Kind
		o.Rows = len(res.Rows)
		o.Digest = bindings.RowsDigest(res.Rows)
		o.HasMore = res.PagingState != nil
	}
	s.c.tap.Observe(o)
}
