package telemetry

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Span is a child span of a traced request. The zero Span (request not
// traced) does nothing; check Exporting before building attributes and
// Tracing before building event texts, so untraced requests pay nothing.
type Span struct {
	otel trace.Span // nil: not exported
	req  *Request   // nil: not traced
	name string
}

// Start starts an internal child span of the request in ctx. Without a
// traced request it returns ctx and the zero Span without allocating.
func Start(ctx context.Context, name string) (context.Context, Span) {
	return start(ctx, name, internalKind)
}

// StartClient starts a client child span: a call leaving the process (an
// HBase RPC, the Cassandra relay's round trip).
func StartClient(ctx context.Context, name string) (context.Context, Span) {
	return start(ctx, name, clientKind)
}

func start(ctx context.Context, name string, kind trace.SpanStartOption) (context.Context, Span) {
	r, _ := ctx.Value(requestKey{}).(*Request)
	if r == nil {
		return ctx, Span{}
	}
	s := Span{req: r, name: name}
	if r.span != nil {
		ctx, s.otel = r.t.otel.Start(ctx, name, kind)
	}
	return ctx, s
}

// Recording reports whether the span belongs to a traced request.
func (s Span) Recording() bool { return s.req != nil }

// Exporting reports whether the span is an exported OpenTelemetry span.
func (s Span) Exporting() bool { return s.otel != nil }

// Tracing reports whether the request records a CQL trace session.
func (s Span) Tracing() bool { return s.req != nil && s.req.sess != nil }

// SetAttributes sets attributes on the OpenTelemetry span.
func (s Span) SetAttributes(kv ...attribute.KeyValue) {
	if s.otel != nil {
		s.otel.SetAttributes(kv...)
	}
}

// SetStatement sets the database attributes of a statement, and extra
// ones (in one call: the SDK grows its attribute slice per call).
func (s Span) SetStatement(st Statement, extra ...attribute.KeyValue) {
	if s.otel != nil {
		s.otel.SetAttributes(append(st.attributes(true, len(extra)), extra...)...)
	}
}

// Event adds a CQL trace event (system_traces.events), its thread being
// the span's name.
func (s Span) Event(activity string) {
	if s.req != nil && s.req.sess != nil {
		s.req.sess.add(s.name, activity)
	}
}

// Fail records err on the span (status error, error.type). code is the
// CQL error name when known ("" otherwise).
func (s Span) Fail(code string, err error) {
	if s.req == nil || err == nil {
		return
	}
	if s.otel != nil {
		s.otel.SetStatus(codes.Error, err.Error())
		if code == "" {
			code = errorType(err)
		}
		s.otel.SetAttributes(attrErrorType.String(code))
	}
	if s.req.sess != nil {
		s.req.sess.add(s.name, "Failed: "+err.Error())
	}
}

func errorType(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline_exceeded"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	return "_OTHER"
}

// EndRows ends the span of a store call: it records err and the rows
// read (db.response.returned_rows, and a trace event "Read N rows from
// STORE").
func (s Span) EndRows(store string, rows int, err error) {
	if s.req == nil {
		return
	}
	if err != nil {
		s.Fail("", err)
	}
	s.SetAttributes(AttrReturnedRows.Int(rows))
	if s.Tracing() {
		s.Event("Read " + strconv.Itoa(rows) + " rows from " + store)
	}
	s.End()
}

// EndMutations ends the span of a store write of n mutations: it records
// err, db attributes and, for CQL tracing, activity (e.g. "Applied 3 row
// mutations in one Pebble batch").
func (s Span) EndMutations(n int, err error, activity string) {
	if s.req == nil {
		return
	}
	if err != nil {
		s.Fail("", err)
	}
	s.SetAttributes(AttrMutations.Int(n))
	if s.Tracing() {
		s.Event(activity)
	}
	s.End()
}

// End ends the span.
func (s Span) End() {
	if s.otel != nil {
		s.otel.End()
	}
}

// Attribute keys (OpenTelemetry database semantic conventions). db.system
// is the pre-1.30 key most backends still index; db.system.name its
// successor: both are set.
var (
	attrSystemLegacy = attribute.Key("db.system")
	attrSystem       = attribute.Key("db.system.name")
	attrNamespace    = attribute.Key("db.namespace")
	attrOperation    = attribute.Key("db.operation.name")
	attrCollection   = attribute.Key("db.collection.name")
	attrQueryText    = attribute.Key("db.query.text")
	attrQuerySummary = attribute.Key("db.query.summary")
	attrStatusCode   = attribute.Key("db.response.status_code")
	attrErrorType    = attribute.Key("error.type")
	// AttrReturnedRows is db.response.returned_rows.
	AttrReturnedRows = attribute.Key("db.response.returned_rows")
	// AttrBackend names the dohyo backend (its URL without credentials or
	// options).
	AttrBackend = attribute.Key("dohyo.backend")
)

// Statement describes a statement for span attributes. Fingerprint is
// the statement with literals replaced by ? (cql.Fingerprint): bound
// values and literals never reach a span.
type Statement struct {
	System      string // db.system: cassandra, hbase, pebble, dohyo
	Namespace   string // keyspace
	Operation   string // SELECT, INSERT, BATCH, ...
	Collection  string // table, when one
	Fingerprint string
}

// Summary is db.query.summary: "SELECT ks.t", or the operation alone.
func (st Statement) Summary() string {
	var b strings.Builder
	b.WriteString(st.Operation)
	if st.Collection != "" {
		b.WriteByte(' ')
		if st.Namespace != "" {
			b.WriteString(st.Namespace)
			b.WriteByte('.')
		}
		b.WriteString(st.Collection)
	} else if st.Namespace != "" {
		b.WriteByte(' ')
		b.WriteString(st.Namespace)
	}
	return b.String()
}

func (st Statement) attributes(withSystem bool, extra int) []attribute.KeyValue {
	kv := make([]attribute.KeyValue, 0, 8+extra)
	if withSystem && st.System != "" {
		kv = append(kv, attrSystemLegacy.String(st.System), attrSystem.String(st.System))
	}
	if st.Namespace != "" {
		kv = append(kv, attrNamespace.String(st.Namespace))
	}
	if st.Operation != "" {
		kv = append(kv, attrOperation.String(st.Operation))
	}
	if st.Collection != "" {
		kv = append(kv, attrCollection.String(st.Collection))
	}
	if st.Fingerprint != "" {
		kv = append(kv, attrQueryText.String(st.Fingerprint))
	}
	if st.Operation != "" {
		kv = append(kv, attrQuerySummary.String(st.Summary()))
	}
	return kv
}

// SystemAttributes are db.system and db.system.name set to system.
func SystemAttributes(system string) []attribute.KeyValue {
	return []attribute.KeyValue{attrSystemLegacy.String(system), attrSystem.String(system)}
}

// StatusCode is db.response.status_code.
func StatusCode(code string) attribute.KeyValue { return attrStatusCode.String(code) }

// SafeBackend renders a backend URL without credentials or options, for
// attributes (cassandra://u:p@h:9042?x=1 -> cassandra://h:9042).
func SafeBackend(name string) string {
	if i := strings.IndexAny(name, "?#"); i >= 0 {
		name = name[:i]
	}
	scheme, rest, ok := strings.Cut(name, "://")
	if !ok {
		return name
	}
	authority := rest
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		authority = rest[:i]
	}
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		rest = rest[at+1:]
	}
	return scheme + "://" + rest
}

// SystemOf guesses db.system from a backend URL's scheme.
func SystemOf(backend string) string {
	scheme, _, ok := strings.Cut(backend, "://")
	if !ok {
		return "other"
	}
	switch scheme {
	case "embedded":
		return "pebble"
	case "hbase", "cassandra":
		return scheme
	}
	return scheme
}

// AttrMutations is dohyo.mutations: rows written by one store call.
var AttrMutations = attribute.Key("dohyo.mutations")

// AttrRPCs is dohyo.rpcs: RPCs one store call sends.
var AttrRPCs = attribute.Key("dohyo.rpcs")
