package cqlserver

import (
	"context"
	"errors"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/cql/wire"
	"github.com/dohyo/dohyo/proxy"
	"github.com/dohyo/dohyo/telemetry"
)

// Client side of the relay: a request the coordinator routes to a
// backend's raw-frame relayer (proxy.Session.RouteFrame) is handed over as
// its frame, and the answer is written back to the client as it came.

// relayPlan is the routing decision for one relayed request.
type relayPlan = proxy.FrameRoute

// planRelay asks the coordinator where req goes (a plan without a
// Relayer when dohyo executes it), or an error for a BATCH spanning a
// relayed and another backend.
func (c *conn) planRelay(req *request) (relayPlan, error) {
	if len(c.srv.relays) == 0 {
		return relayPlan{}, nil
	}
	r := proxy.FrameRequest{Query: req.query, PreparedID: req.id, Batch: req.batch, HasTimestamp: req.params.hasTimestamp}
	switch req.op {
	case wire.OpQuery:
		r.Kind, r.Keyspace = proxy.FrameQuery, req.params.keyspace
	case wire.OpPrepare:
		r.Kind, r.Keyspace = proxy.FramePrepare, req.keyspace
	case wire.OpExecute:
		r.Kind = proxy.FrameExecute
	case wire.OpBatch:
		r.Kind, r.Keyspace = proxy.FrameBatch, req.keyspace
	}
	return c.session.RouteFrame(c.srv.relays, &r)
}

// relay runs a relayed request with the connection's in-flight limit,
// request timeout, budgets and tracing, like a local one.
func (c *conn) relay(plan relayPlan, req *request) {
	c.stampRelayed(&plan, req)
	if c.plain(req) && c.relayAsync(&plan, req) {
		return
	}
	p := new(relayPlan) // kept by the general path's closures
	*p = plan
	run := func(ctx context.Context, req *request) []byte { return c.relayRun(ctx, p, req) }
	c.dispatch(req.stream, c.srv.timeoutFor(req),
		func(ctx context.Context) []byte {
			if c.plain(req) {
				return run(ctx, req)
			}
			return c.traced(ctx, req, run)
		},
		func() error { return c.timeoutError(req) })
}

func (c *conn) relayRun(ctx context.Context, p *relayPlan, req *request) []byte {
	start := c.srv.coord.Now()
	ks := p.Keyspace
	bctx, cancel, exceeded := ctx, func() {}, func(error) bool { return false }
	if req.op != wire.OpPrepare && !(req.op == wire.OpQuery && isSchemaStatement(req.query)) {
		bctx, cancel, exceeded = proxy.Bound(ctx, ks)
	}
	defer cancel()
	sctx, sp := telemetry.StartClient(bctx, "relay round trip")
	if sp.Exporting() {
		sp.SetStatement(telemetry.Statement{System: "cassandra", Namespace: ks, Operation: wire.OpName(req.op)})
	}
	var rreq bindings.RelayRequest
	c.relayRequest(&rreq, p, req)
	var got syncAnswer
	p.Relayer.RelayFrame(sctx, &rreq, &got)
	ans, err := got.ans, got.err
	if err != nil && exceeded(err) {
		err = c.timeoutError(req)
	}
	if err != nil {
		sp.Fail(bindings.AsError(err).Code.String(), err)
	} else {
		sp.Event("Relayed to Cassandra node " + ans.Node)
		if src, ok := p.Relayer.(bindings.TraceEventSource); ok && ans.Flags&wire.FlagTracing != 0 && len(ans.Body) >= 16 {
			c.srv.relayTraces.link(ctx, src, ans.Body[:16])
		}
	}
	sp.End()
	return c.relayAnswer(ctx, start, p, req, ans, err)
}

// lostError is the answer to a relayed request whose connection to its
// Cassandra node was lost before the answer, when the relay could not send
// it again (not idempotent, or no other node took it): what a coordinator
// answers when it cannot know whether a request was applied, a timeout,
// WriteTimeout with the statement's write type (CAS, COUNTER, BATCH,
// UNLOGGED_BATCH, SIMPLE) for a write, ReadTimeout for a read. Drivers'
// default retry policies (gocql, the Python driver, the Java driver 4)
// send neither again on their own, except a BATCH_LOG write timeout
// (never answered here) and a read timeout whose replicas answered
// without data (received 0 < block_for here): the application decides,
// as it does when a coordinator times out. docs/ARCHITECTURE.md, "Node
// loss behind the relay", says why not ServerError, Overloaded or
// Unavailable.
func (c *conn) lostError(req *request, p *relayPlan, lost *bindings.RelayLostError) error {
	msg := "dohyo relay: connection to Cassandra node " + lost.Node +
		" lost before its answer (the request may or may not have been applied): " + lost.Err.Error()
	if req.op == wire.OpBatch {
		return proxy.BatchTimeoutError(req.batch.Type, req.batch.Consistency, msg)
	}
	text := req.query
	if req.op == wire.OpExecute {
		text = p.Prepared.Query
	}
	var stmt cql.Statement
	if parsed, err := c.srv.coord.Parse(text); err == nil {
		stmt = parsed.Stmt
	}
	return proxy.TimeoutError(stmt, req.params.consistency, req.params.serial, msg)
}

// syncAnswer receives the answer of a relay that waits for it.
type syncAnswer struct {
	ans bindings.RelayAnswer
	err error
}

func (s *syncAnswer) Relayed(ans bindings.RelayAnswer, err error) { s.ans, s.err = ans, err }
func (*syncAnswer) Expire() bool                                  { return false }
func (*syncAnswer) Expired()                                      {}

// relayAnswer turns the relayed server's answer (or the error that stands
// for it) into the client's frame, and hands the request to the Tap.
func (c *conn) relayAnswer(ctx context.Context, start time.Time, p *relayPlan, req *request, ans bindings.RelayAnswer, err error) []byte {
	var frame []byte
	var out proxy.Relayed
	if err != nil {
		var lost *bindings.RelayLostError
		if errors.As(err, &lost) {
			err = c.lostError(req, p, lost)
		}
		frame = c.failFrame(ctx, req, err)
		out.Err = bindings.AsError(err)
	} else {
		frame = wire.StartFrame(getBuf(), c.version, ans.Flags&^wire.FlagCompressed, req.stream, ans.Op)
		frame = append(frame, ans.Body...)
		out = summarize(ans, c.srv.coord.TapWantsRows())
	}
	c.observeRelayed(start, p, req, out)
	return frame
}

// observeRelayed hands a relayed request to the Tap (PREPARE is not a
// request the Tap records, as for local requests).
func (c *conn) observeRelayed(start time.Time, p *relayPlan, req *request, out proxy.Relayed) {
	switch req.op {
	case wire.OpQuery, wire.OpExecute:
		query := req.query
		if req.op == wire.OpExecute {
			query = p.Prepared.Query
		}
		r := bindingsRequest(query, &req.params)
		r.Keyspace = p.Keyspace
		if req.params.lazy != nil && c.srv.coord.TapWantsValues() {
			r.Values, r.Names = req.params.lazyValues(c.version)
		}
		c.session.ObserveRelayed(start, r, req.op == wire.OpExecute, out, 0, 0, 0)
	case wire.OpBatch:
		b := req.batch
		for i, e := range b.Entries {
			r := &bindings.Request{Query: e.Query, Values: e.Values, Names: e.Names, Keyspace: p.Keyspace,
				Consistency: b.Consistency, SerialConsistency: b.SerialConsistency,
				Timestamp: b.Timestamp, HasTimestamp: b.HasTimestamp}
			if e.PreparedID != nil {
				if rp, ok := proxy.PreparedBy(p.Relayer, e.PreparedID); ok {
					r.Query, r.Keyspace = rp.Query, rp.Keyspace
				}
			}
			c.session.ObserveRelayed(start, r, e.PreparedID != nil, out, i, len(b.Entries), uint8(b.Type))
		}
	}
}
