package telemetry

import (
	"context"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/dohyo/dohyo/cql"
)

// ScopeName is the instrumentation scope of dohyo's spans.
const ScopeName = "github.com/dohyo/dohyo"

// Options configures a Tracer.
type Options struct {
	// Provider supplies the OpenTelemetry tracer; nil turns OpenTelemetry
	// off (CQL request tracing still works).
	Provider trace.TracerProvider
	// Propagator reads inbound trace context; nil means W3C Trace Context
	// (traceparent, tracestate).
	Propagator propagation.TextMapPropagator
	// Sessions keeps CQL trace sessions; nil means a new store of
	// DefaultSessions.
	Sessions *Sessions
	// Clock is the time source of CQL trace sessions (tests); nil means
	// time.Now.
	Clock func() time.Time
}

// Tracer starts traced requests. A nil *Tracer traces nothing.
type Tracer struct {
	otel     trace.Tracer // nil: OpenTelemetry off
	prop     propagation.TextMapPropagator
	sessions *Sessions
}

// New builds a Tracer.
func New(o Options) *Tracer {
	t := &Tracer{prop: o.Propagator, sessions: o.Sessions}
	if o.Provider != nil {
		t.otel = o.Provider.Tracer(ScopeName)
	}
	if t.prop == nil {
		t.prop = propagation.TraceContext{}
	}
	if t.sessions == nil {
		t.sessions = NewSessions(DefaultSessions, o.Clock)
	}
	return t
}

// Exporting reports whether OpenTelemetry spans are produced at all; front
// ends check it before building a request's attributes.
func (t *Tracer) Exporting() bool { return t != nil && t.otel != nil }

// Sessions returns the CQL trace session store (nil for a nil Tracer).
func (t *Tracer) Sessions() *Sessions {
	if t == nil {
		return nil
	}
	return t.sessions
}

// RequestStart describes a request about to be traced.
type RequestStart struct {
	// Name is the root span's name ("cql QUERY", "POST /graphql/{keyspace}").
	Name string
	// Kind is the root span's kind; zero means server.
	Kind trace.SpanKind
	// Carrier holds inbound trace context (CQL custom payload, HTTP
	// headers); nil for none.
	Carrier propagation.TextMapCarrier
	// Attributes are set on the root span, before the sampling decision
	// (cheaper: set them on the Request once Exporting).
	Attributes []attribute.KeyValue
	// Trace, when set, records a CQL trace session (the TRACING flag).
	Trace *TraceStart
}

// Request is one traced client request: its root span and, for CQL
// TRACING, its trace session. Its methods are safe on a nil *Request.
type Request struct {
	t         *Tracer
	span      trace.Span // nil: not exported (off or not sampled)
	sess      *session   // nil: no CQL trace session
	annotated atomic.Bool
}

type requestKey struct{}

// Span start options, built once (they are immutable values).
var (
	serverKind   = trace.WithSpanKind(trace.SpanKindServer)
	internalKind = trace.WithSpanKind(trace.SpanKindInternal)
	clientKind   = trace.WithSpanKind(trace.SpanKindClient)
)

// StartRequest starts tracing a request. It returns ctx unchanged and a
// nil Request when nothing is to be recorded: OpenTelemetry off or the
// request not sampled, and no CQL trace session asked for.
func (t *Tracer) StartRequest(ctx context.Context, rs RequestStart) (context.Context, *Request) {
	if t == nil {
		return ctx, nil
	}
	var r *Request
	out := ctx
	if t.otel != nil {
		parent := ctx
		if rs.Carrier != nil {
			parent = t.prop.Extract(ctx, rs.Carrier)
		}
		opts := []trace.SpanStartOption{serverKind}
		if rs.Kind != trace.SpanKindUnspecified {
			opts[0] = trace.WithSpanKind(rs.Kind)
		}
		if len(rs.Attributes) > 0 {
			opts = append(opts, trace.WithAttributes(rs.Attributes...))
		}
		sctx, sp := t.otel.Start(parent, rs.Name, opts...)
		if sp.IsRecording() {
			r = &Request{t: t, span: sp}
			out = sctx
		}
	}
	if rs.Trace != nil {
		if r == nil {
			r = &Request{t: t}
		}
		r.sess = t.sessions.begin(rs.Trace)
	}
	if r == nil {
		return ctx, nil
	}
	return context.WithValue(out, requestKey{}, r), r
}

// FromContext returns the traced request ctx belongs to, or nil.
func FromContext(ctx context.Context) *Request {
	r, _ := ctx.Value(requestKey{}).(*Request)
	return r
}

// Exporting reports whether the request's spans are exported.
func (r *Request) Exporting() bool { return r != nil && r.span != nil }

// Tracing reports whether the request records a CQL trace session.
func (r *Request) Tracing() bool { return r != nil && r.sess != nil }

// SessionID is the CQL trace session's id (the tracing id of the response).
func (r *Request) SessionID() (cql.UUID, bool) {
	if r == nil || r.sess == nil {
		return cql.UUID{}, false
	}
	return r.sess.id, true
}

// SpanContext is the root span's context (invalid when not exported).
func (r *Request) SpanContext() trace.SpanContext {
	if r == nil || r.span == nil {
		return trace.SpanContext{}
	}
	return r.span.SpanContext()
}

// SetAttributes sets attributes on the root span.
func (r *Request) SetAttributes(kv ...attribute.KeyValue) {
	if r != nil && r.span != nil {
		r.span.SetAttributes(kv...)
	}
}

// AnnotateOnce sets the statement's attributes on the root span the first
// time it is called for the request (a GraphQL request runs several
// statements; the root describes the first).
func (r *Request) AnnotateOnce(st Statement) {
	if r == nil || r.span == nil || !r.annotated.CompareAndSwap(false, true) {
		return
	}
	r.span.SetAttributes(st.attributes(false, 0)...)
}

// Event records a CQL trace event on the request itself (thread names
// the front end's stage).
func (r *Request) Event(thread, activity string) {
	if r != nil && r.sess != nil {
		r.sess.add(thread, activity)
	}
}

// Fail marks the request failed: code is the error's name (the CQL
// error's, e.g. ReadTimeout), msg its message.
func (r *Request) Fail(code, msg string) {
	if r == nil {
		return
	}
	if r.span != nil {
		r.span.SetStatus(codes.Error, msg)
		r.span.SetAttributes(attrErrorType.String(code))
	}
	if r.sess != nil {
		r.sess.add("coordinator", "Request failed: "+code+": "+msg)
	}
}

// End ends the root span and completes the trace session (its duration
// becomes visible, which is what cqlsh polls for).
func (r *Request) End() {
	if r == nil {
		return
	}
	if r.sess != nil {
		r.sess.finish()
	}
	if r.span != nil {
		r.span.End()
	}
}
