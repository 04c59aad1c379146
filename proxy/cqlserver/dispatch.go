package cqlserver

import (
	"context"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql/wire"
	"github.com/dohyo/dohyo/proxy"
)

// request decodes a QUERY, PREPARE, EXECUTE or BATCH on the reader and
// runs it on its own goroutine. body is the whole (decompressed) body,
// payload the custom payload read from its start (nil without one).
func (c *conn) request(h wire.Header, body []byte, payload map[string][]byte, r *wire.Reader) error {
	// With a relay, bound values are decoded only where they are used: by
	// dohyo's own execution, or by a Tap that wants them (observeRelayed).
	req, err := decodeRequestLazy(h, r, c.version, len(c.srv.relays) > 0)
	if err != nil {
		return err
	}
	req.flags, req.body, req.payload = h.Flags, body, payload
	if p, err := c.planRelay(req); err != nil {
		c.send(c.errorFrame(req.stream, err))
		return nil
	} else if p.Relayer != nil {
		c.relay(p, req)
		return nil
	}
	req.params.decodeValues(c.version)
	c.dispatchWork(work{stream: h.Stream, timeout: c.srv.timeoutFor(req), req: req})
	return nil
}

// plain tells a request without a custom payload, the TRACING flag,
// OpenTelemetry or per-keyspace budgets: it takes the plain path, which
// allocates nothing for tracing or budgets (traces.go has the other).
func (c *conn) plain(req *request) bool {
	return req.payload == nil && req.flags&wire.FlagTracing == 0 && !c.srv.tel.slow
}

// execute runs a request, traced unless it is plain.
func (c *conn) execute(ctx context.Context, req *request) []byte {
	if c.plain(req) {
		return c.run(ctx, req)
	}
	return c.traced(ctx, req, c.run)
}

func (c *conn) run(ctx context.Context, req *request) []byte {
	switch req.op {
	case wire.OpQuery:
		return c.execQuery(ctx, req)
	case wire.OpPrepare:
		return c.execPrepare(ctx, req)
	case wire.OpExecute:
		return c.execExecute(ctx, req)
	default:
		return c.execBatch(ctx, req)
	}
}

// sessionFor returns the connection's session, or for a v5 per-request
// keyspace a session bound to it (the connection's keyspace is unchanged).
func (c *conn) sessionFor(keyspace string) *proxy.Session {
	if keyspace == "" {
		return c.session
	}
	s := c.srv.coord.NewSession(bindings.SourceCQL)
	s.SetKeyspace(keyspace)
	s.SetRole(c.session.Role())
	return s
}

func bindingsRequest(query string, p *queryParams) *bindings.Request {
	return &bindings.Request{
		Query:             query,
		Values:            p.values,
		Names:             p.names,
		Consistency:       p.consistency,
		SerialConsistency: p.serial,
		PageSize:          p.pageSize,
		PagingState:       p.pagingState,
		Timestamp:         p.timestamp,
		HasTimestamp:      p.hasTimestamp,
	}
}

func (c *conn) execQuery(ctx context.Context, req *request) []byte {
	res, err := c.sessionFor(req.params.keyspace).Query(ctx, bindingsRequest(req.query, &req.params))
	if err != nil {
		return c.failFrame(ctx, req, err)
	}
	return c.resultFrame(req.stream, res, resultOpts{})
}

func (c *conn) execPrepare(ctx context.Context, req *request) []byte {
	ps, err := c.sessionFor(req.keyspace).Prepare(ctx, req.query)
	if err != nil {
		return c.failFrame(ctx, req, err)
	}
	return c.preparedFrame(req.stream, ps)
}

func (c *conn) execExecute(ctx context.Context, req *request) []byte {
	breq := bindingsRequest("", &req.params)
	breq.SkipMetadata = req.params.skipMetadata
	res, err := c.session.Execute(ctx, req.id, breq)
	if err != nil {
		return c.failFrame(ctx, req, err)
	}
	o := resultOpts{skipMetadata: req.params.skipMetadata, execute: true, clientMetaID: req.resultMetaID}
	if res != nil && res.Kind == bindings.ResultRows {
		// The statement was just found; it can only be missing here if the
		// registry evicted it meanwhile, and then res.Columns describes it.
		if ps, err := c.srv.coord.Lookup(req.id); err == nil {
			o.prepared = ps
		}
	}
	return c.resultFrame(req.stream, res, o)
}

func (c *conn) execBatch(ctx context.Context, req *request) []byte {
	res, err := c.sessionFor(req.keyspace).Batch(ctx, req.batch)
	if err != nil {
		return c.failFrame(ctx, req, err)
	}
	return c.resultFrame(req.stream, res, resultOpts{})
}
