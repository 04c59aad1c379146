package proxy

import (
	"context"
	"strconv"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/telemetry"
)

// Spans of the coordinator: parse, route, the backend call and the capture
// hand-off, children of the front end's request span. Every helper first
// checks whether the request is traced; untraced requests pay one ctx
// lookup per helper and allocate nothing.

// stmtTrace carries what a traced statement's spans share.
type stmtTrace struct {
	on bool
	fp string // fingerprint, computed once
}

func newStmtTrace(ctx context.Context, text string) stmtTrace {
	if telemetry.FromContext(ctx) == nil {
		return stmtTrace{}
	}
	return stmtTrace{on: true, fp: cql.Fingerprint(text)}
}

// parse parses text through the cache, in a "parse" span.
func (s *Session) parse(ctx context.Context, st *stmtTrace, text string) (*cql.Parsed, error) {
	if !st.on {
		return s.c.parse(text)
	}
	_, sp := telemetry.Start(ctx, "parse")
	defer sp.End()
	if sp.Tracing() {
		sp.Event("Parsing " + st.fp)
	}
	p, err := s.c.parse(text)
	if err != nil {
		sp.Fail(bindings.AsError(err).Code.String(), err)
	}
	return p, err
}

// route picks the backend of a statement, in a "route" span.
func (s *Session) route(ctx context.Context, st *stmtTrace, stmt cql.Statement, sessionKS string) (Route, error) {
	if !st.on {
		return s.c.statementRoute(stmt, sessionKS)
	}
	_, sp := telemetry.Start(ctx, "route")
	defer sp.End()
	rt, err := s.c.statementRoute(stmt, sessionKS)
	if err != nil {
		sp.Fail(bindings.AsError(err).Code.String(), err)
		return Route{}, err
	}
	ks, _ := statementKeyspace(stmt, sessionKS)
	label := telemetry.SafeBackend(rt.Name)
	if sp.Exporting() {
		sp.SetStatement(telemetry.Statement{Namespace: ks}, telemetry.AttrBackend.String(label))
	}
	if sp.Tracing() {
		sp.Event("Routing keyspace " + ks + " to " + label)
	}
	return rt, nil
}

// describe renders a statement for span attributes: its kind as CQL
// spells it and the table it addresses (cql.TargetOf).
func describe(stmt cql.Statement, sessionKS, fp string) telemetry.Statement {
	ks, _ := statementKeyspace(stmt, sessionKS)
	t := cql.TargetOf(stmt)
	st := telemetry.Statement{Namespace: ks, Fingerprint: fp, Collection: t.Table}
	if t.Kind != cql.StmtAuth {
		st.Operation = t.Kind.String()
	}
	return st
}

// systemOf is db.system of a backend: its own answer when it has one
// (embedded, hbase), else a guess from its URL.
func systemOf(rt Route) string {
	if rt.Name == VirtualBackendName {
		return "dohyo"
	}
	if s, ok := bindings.Capability[bindings.SystemNamer](rt.Backend); ok {
		return s.DBSystem()
	}
	return telemetry.SystemOf(rt.Name)
}

// backendSpan starts the span of a backend call (named by db.query.summary,
// as the database semantic conventions name client spans); with annotate,
// the request's root span describes the statement too (the first one).
func (s *Session) backendSpan(ctx context.Context, rt Route, info telemetry.Statement, annotate bool) (context.Context, telemetry.Span) {
	backend := rt.Name
	info.System = systemOf(rt)
	ctx, sp := telemetry.StartClient(ctx, info.Summary())
	if sp.Exporting() {
		sp.SetStatement(info, telemetry.AttrBackend.String(telemetry.SafeBackend(backend)))
		if annotate {
			telemetry.FromContext(ctx).AnnotateOnce(info)
		}
	}
	if sp.Tracing() {
		sp.Event("Executing " + info.Summary() + " on " + telemetry.SafeBackend(backend))
	}
	return ctx, sp
}

// endBackendSpan records the call's outcome and ends its span.
func endBackendSpan(sp telemetry.Span, res *bindings.Result, err error) {
	if !sp.Recording() {
		return
	}
	defer sp.End()
	if err != nil {
		e := bindings.AsError(err)
		sp.SetAttributes(telemetry.StatusCode("0x" + strconv.FormatUint(uint64(e.Code), 16)))
		sp.Fail(e.Code.String(), err)
		return
	}
	if res == nil { // PREPARE, or a backend answering nothing
		if sp.Tracing() {
			sp.Event("Backend done")
		}
		return
	}
	sp.SetAttributes(telemetry.AttrReturnedRows.Int(len(res.Rows)))
	if sp.Tracing() {
		sp.Event("Backend returned " + strconv.Itoa(len(res.Rows)) + " rows")
	}
}

// tap hands observations to the tap, in a "capture" span.
func (s *Session) tapSpan(ctx context.Context, st *stmtTrace) telemetry.Span {
	if !st.on {
		return telemetry.Span{}
	}
	_, sp := telemetry.Start(ctx, "capture")
	if sp.Tracing() {
		sp.Event("Handing the request to capture")
	}
	return sp
}
