package cqlserver

import (
	"context"
	"net"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql/wire"
	"github.com/dohyo/dohyo/proxy/systemks"
	"github.com/dohyo/dohyo/telemetry"
)

// Request tracing on the CQL port: an OpenTelemetry span per request (its
// trace context read from the custom payload's traceparent/tracestate),
// and Cassandra's request tracing. A request with the TRACING flag is
// answered with flag 0x02 and its session id first in the body (protocol
// spec §2.2); the session and its events, built from dohyo's spans, are
// then served from system_traces.sessions and system_traces.events, with
// Cassandra 5.0's schemas, so cqlsh's TRACING ON prints them.

// traceRequests are the request kinds of system_traces.sessions, in
// Cassandra's words.
var traceRequests = map[byte]string{
	wire.OpQuery:   "Execute CQL3 query",
	wire.OpExecute: "Execute CQL3 prepared query",
	wire.OpBatch:   "Execute batch of CQL3 queries",
	wire.OpPrepare: "Preparing CQL3 query",
}

// traced runs a request with what the plain path leaves out: a malformed
// client budget is refused, per-keyspace budgets go into ctx, and the
// request is traced when OpenTelemetry samples it or the client set the
// TRACING flag. The Cassandra relay can wrap its run function with it too.
func (c *conn) traced(ctx context.Context, req *request, run func(context.Context, *request) []byte) []byte {
	start := time.Now() // deadlines are real time, whatever Config.Clock says
	client, err := clientBudget(req)
	if err != nil {
		return c.errorFrame(req.stream, bindings.Errorf(bindings.CodeInvalid, "custom payload %s: %v", "dohyo-budget-ms", err))
	}
	ctx = c.withBudget(ctx, req, client, start)
	tracing := req.flags&wire.FlagTracing != 0
	if !tracing && !c.srv.tel.tracer.Exporting() {
		return run(ctx, req)
	}
	ctx, rt := c.startTrace(ctx, req, tracing)
	frame := run(ctx, req)
	rt.End() // completes the trace session before the client can read it
	if id, ok := rt.SessionID(); ok {
		frame = withTracingID(frame, id)
	}
	return frame
}

// startTrace starts the request's root span and, with TRACING, its trace
// session.
func (c *conn) startTrace(ctx context.Context, req *request, tracing bool) (context.Context, *telemetry.Request) {
	tr := c.srv.tel.tracer
	rs := telemetry.RequestStart{Name: "cql " + wire.OpName(req.op)}
	if req.payload != nil {
		rs.Carrier = telemetry.PayloadCarrier(req.payload)
	}
	peer, _ := c.nc.RemoteAddr().(*net.TCPAddr)
	if tracing {
		ts := &telemetry.TraceStart{Request: traceRequests[req.op], CoordinatorPort: systemks.StoragePort, Parameters: c.traceParameters(req)}
		if peer != nil {
			ts.Client = peer.IP
		}
		if local, ok := c.nc.LocalAddr().(*net.TCPAddr); ok {
			ts.Coordinator = local.IP
		}
		rs.Trace = ts
	}
	ctx, rt := tr.StartRequest(ctx, rs)
	if rt.Exporting() { // sampled: worth describing
		rt.SetAttributes(telemetry.SystemAttributes("cassandra")...)
		rt.SetAttributes(attribute.String("cassandra.consistency.level", strings.ToLower(req.consistency().String())))
		if peer != nil {
			rt.SetAttributes(attribute.String("network.peer.address", peer.IP.String()), attribute.Int("network.peer.port", peer.Port))
		}
	}
	return ctx, rt
}

// consistency is the request's consistency level.
func (req *request) consistency() bindings.Consistency {
	if req.op == wire.OpBatch && req.batch != nil {
		return req.batch.Consistency
	}
	return req.params.consistency
}

// traceParameters are system_traces.sessions.parameters, as Cassandra
// fills them (bound values are left out).
func (c *conn) traceParameters(req *request) map[string]string {
	p := map[string]string{"consistency_level": req.consistency().String()}
	switch req.op {
	case wire.OpQuery, wire.OpPrepare:
		p["query"] = req.query
	case wire.OpExecute:
		if ps, err := c.srv.coord.Lookup(req.id); err == nil {
			p["query"] = ps.Query
		}
	}
	if req.op == wire.OpQuery || req.op == wire.OpExecute {
		if req.params.pageSize > 0 {
			p["page_size"] = strconv.Itoa(int(req.params.pageSize))
		}
		if req.params.serial != 0 {
			p["serial_consistency_level"] = req.params.serial.String()
		}
	}
	if req.op == wire.OpBatch && req.batch != nil {
		p["batch_type"] = [...]string{"LOGGED", "UNLOGGED", "COUNTER"}[min(int(req.batch.Type), 2)]
		if req.batch.SerialConsistency != 0 {
			p["serial_consistency_level"] = req.batch.SerialConsistency.String()
		}
	}
	return p
}

// withTracingID sets the tracing flag on an encoded response and puts the
// session id first in its body (before warnings and custom payload). A
// response that carries a tracing id already (one relayed from Cassandra
// with the flag left on) gets dohyo's instead, whose session it can read.
func withTracingID(frame []byte, id [16]byte) []byte {
	if len(frame) < wire.HeaderLen {
		return frame
	}
	if frame[1]&wire.FlagTracing != 0 {
		if len(frame) >= wire.HeaderLen+16 {
			copy(frame[wire.HeaderLen:], id[:])
		}
		return frame
	}
	out := append(getBuf(), frame[:wire.HeaderLen]...)
	out[1] |= wire.FlagTracing
	out = append(out, id[:]...)
	out = append(out, frame[wire.HeaderLen:]...)
	putBuf(frame)
	return out
}
