package telemetry

import (
	"context"
	"net"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

type ctxKey struct{}

func TestUntracedCostsNothing(t *testing.T) {
	ctx := context.WithValue(context.Background(), ctxKey{}, 1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	allocs := testing.AllocsPerRun(1000, func() {
		c, sp := Start(ctx, "parse")
		if sp.Recording() || sp.Tracing() || sp.Exporting() {
			t.Fatal("span of an untraced request records")
		}
		sp.Event("never")
		sp.End()
		_, sp = StartClient(c, "hbase Get")
		sp.End()
		FromContext(c).AnnotateOnce(Statement{Operation: "SELECT"})
	})
	if allocs != 0 {
		t.Errorf("untraced spans allocate %v times per request, want 0", allocs)
	}
	var nilTracer *Tracer
	if c, r := nilTracer.StartRequest(ctx, RequestStart{Name: "x"}); r != nil || c != ctx {
		t.Errorf("nil tracer started a request")
	}
	// OpenTelemetry off and no TRACING: nothing to record either.
	if c, r := New(Options{}).StartRequest(ctx, RequestStart{Name: "x"}); r != nil || c != ctx {
		t.Errorf("tracer without provider started a request")
	}
}

func recorder(sampler sdktrace.Sampler) (*tracetest.SpanRecorder, *sdktrace.TracerProvider) {
	rec := tracetest.NewSpanRecorder()
	return rec, sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec), sdktrace.WithSampler(sampler))
}

func TestSpanTreeAndPropagation(t *testing.T) {
	rec, tp := recorder(sdktrace.ParentBased(sdktrace.NeverSample()))
	tr := New(Options{Provider: tp})
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	const parentID = "00f067aa0ba902b7"
	payload := PayloadCarrier{"traceparent": []byte("00-" + traceID + "-" + parentID + "-01")}
	ctx, r := tr.StartRequest(context.Background(), RequestStart{Name: "cql QUERY", Carrier: payload,
		Attributes: SystemAttributes("cassandra")})
	if r == nil || !r.Exporting() || r.Tracing() {
		t.Fatalf("request %+v: want exported (sampled parent), no trace session", r)
	}
	r.AnnotateOnce(Statement{Namespace: "ks", Operation: "SELECT", Collection: "t", Fingerprint: "SELECT * FROM ks.t WHERE k = ?"})
	r.AnnotateOnce(Statement{Namespace: "other"}) // only the first counts
	cctx, sp := StartClient(ctx, "SELECT ks.t")
	sp.SetStatement(Statement{System: "pebble", Namespace: "ks", Operation: "SELECT", Collection: "t"})
	_, kv := Start(cctx, "pebble get")
	kv.End()
	sp.End()
	r.End()

	spans := rec.Ended()
	if len(spans) != 3 {
		t.Fatalf("got %d spans, want 3", len(spans))
	}
	byName := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		byName[s.Name()] = s
	}
	root, backend, get := byName["cql QUERY"], byName["SELECT ks.t"], byName["pebble get"]
	if root == nil || backend == nil || get == nil {
		t.Fatalf("span names: %v", byName)
	}
	if got := root.SpanContext().TraceID().String(); got != traceID {
		t.Errorf("trace id %s, want the client's %s", got, traceID)
	}
	if got := root.Parent().SpanID().String(); got != parentID || !root.Parent().IsRemote() {
		t.Errorf("root's parent %s (remote %v), want the client's %s", got, root.Parent().IsRemote(), parentID)
	}
	if root.SpanKind() != trace.SpanKindServer || backend.SpanKind() != trace.SpanKindClient || get.SpanKind() != trace.SpanKindInternal {
		t.Errorf("kinds %v %v %v", root.SpanKind(), backend.SpanKind(), get.SpanKind())
	}
	if backend.Parent().SpanID() != root.SpanContext().SpanID() || get.Parent().SpanID() != backend.SpanContext().SpanID() {
		t.Errorf("tree: backend's parent %v, get's parent %v", backend.Parent().SpanID(), get.Parent().SpanID())
	}
	want := map[attribute.Key]string{
		"db.system": "cassandra", "db.system.name": "cassandra", "db.namespace": "ks", "db.operation.name": "SELECT",
		"db.collection.name": "t", "db.query.text": "SELECT * FROM ks.t WHERE k = ?", "db.query.summary": "SELECT ks.t",
	}
	got := map[attribute.Key]string{}
	for _, kv := range root.Attributes() {
		got[kv.Key] = kv.Value.Emit()
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("root %s = %q, want %q", k, got[k], v)
		}
	}
}

func TestUnsampledRequestIsNotRecorded(t *testing.T) {
	rec, tp := recorder(sdktrace.NeverSample())
	tr := New(Options{Provider: tp})
	ctx := context.Background()
	if c, r := tr.StartRequest(ctx, RequestStart{Name: "cql QUERY"}); r != nil || c != ctx {
		t.Fatalf("unsampled request gave %v", r)
	}
	// The TRACING flag still records a session, without spans.
	c, r := tr.StartRequest(ctx, RequestStart{Name: "cql QUERY", Trace: &TraceStart{Request: "Execute CQL3 query"}})
	if r == nil || r.Exporting() || !r.Tracing() {
		t.Fatalf("traced request %+v", r)
	}
	_, sp := Start(c, "route")
	if !sp.Tracing() || sp.Exporting() {
		t.Errorf("child of a traced, unsampled request: tracing %v exporting %v", sp.Tracing(), sp.Exporting())
	}
	sp.Event("Routing")
	sp.End()
	r.End()
	if n := len(rec.Ended()); n != 0 {
		t.Errorf("%d spans exported, want 0", n)
	}
	id, _ := r.SessionID()
	if _, evs, ok := tr.Sessions().Get(id); !ok || len(evs) != 1 || evs[0].Activity != "Routing" || evs[0].Thread != "route" {
		t.Errorf("session events %+v (found %v)", evs, ok)
	}
}

func TestSessions(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time { return now }
	ss := NewSessions(2, clock)
	tr := New(Options{Sessions: ss})
	start := func(q string) *Request {
		_, r := tr.StartRequest(context.Background(), RequestStart{Trace: &TraceStart{
			Request: "Execute CQL3 query", Client: net.IPv4(10, 0, 0, 1), Coordinator: net.IPv4(127, 0, 0, 1),
			CoordinatorPort: 7000, Parameters: map[string]string{"query": q}}})
		return r
	}
	r1 := start("q1")
	now = now.Add(150 * time.Microsecond)
	r1.Event("coordinator", "first")
	list := ss.List()
	if len(list) != 1 || list[0].Done || list[0].Parameters["query"] != "q1" || list[0].Command != "QUERY" {
		t.Fatalf("before End: %+v", list)
	}
	now = now.Add(100 * time.Microsecond)
	r1.End()
	r1.End() // idempotent
	got, evs, ok := ss.Get(list[0].ID)
	if !ok || !got.Done || got.Duration != 250*time.Microsecond {
		t.Errorf("after End: %+v", got)
	}
	if len(evs) != 1 || evs[0].Elapsed != 150*time.Microsecond || !evs[0].Source.Equal(net.IPv4(127, 0, 0, 1)) ||
		evs[0].SourcePort != 7000 || evs[0].ID.Version() != 1 {
		t.Errorf("events %+v", evs)
	}
	if id, _ := r1.SessionID(); id.Version() != 1 {
		t.Errorf("session id %v is not a time UUID", id)
	}
	start("q2")
	start("q3") // evicts q1
	var qs []string
	for _, s := range ss.List() {
		qs = append(qs, s.Parameters["query"])
	}
	if len(qs) != 2 || qs[0] != "q2" || qs[1] != "q3" {
		t.Errorf("kept sessions %v, want [q2 q3]", qs)
	}
	if _, _, ok := ss.Get(list[0].ID); ok {
		t.Error("evicted session still found")
	}
	if n := len(ss.Events()); n != 0 {
		t.Errorf("%d events left after eviction", n)
	}
}

func TestSafeBackendAndSystem(t *testing.T) {
	for _, tc := range []struct{ in, safe, system string }{
		{"cassandra://u:secret@h1,h2:9042?consistency=ONE", "cassandra://h1,h2:9042", "cassandra"},
		{"hbase://zk:2181?salt=4", "hbase://zk:2181", "hbase"},
		{"embedded://memory", "embedded://memory", "pebble"},
		{"main", "main", "other"},
	} {
		if got := SafeBackend(tc.in); got != tc.safe {
			t.Errorf("SafeBackend(%q) = %q, want %q", tc.in, got, tc.safe)
		}
		if got := SystemOf(tc.in); got != tc.system {
			t.Errorf("SystemOf(%q) = %q, want %q", tc.in, got, tc.system)
		}
	}
}

func TestProviderConfig(t *testing.T) {
	for _, tc := range []struct {
		c  ProviderConfig
		ok bool
	}{
		{ProviderConfig{Endpoint: "http://127.0.0.1:4317", SampleRatio: 0.5}, true},
		{ProviderConfig{Endpoint: "https://collector:4318", Protocol: ProtocolHTTP, SampleRatio: 1}, true},
		{ProviderConfig{Endpoint: "127.0.0.1:4317"}, false},
		{ProviderConfig{Endpoint: "http://x:1", SampleRatio: 2}, false},
		{ProviderConfig{Endpoint: "http://x:1", Protocol: "thrift"}, false},
		{ProviderConfig{}, false},
		{ProviderConfig{Exporter: tracetest.NewNoopExporter()}, true},
	} {
		if err := tc.c.Validate(); (err == nil) != tc.ok {
			t.Errorf("%+v: err %v, want ok %v", tc.c, err, tc.ok)
		}
	}
	if got := httpTracesURL("http://c:4318"); got != "http://c:4318/v1/traces" {
		t.Errorf("httpTracesURL = %s", got)
	}
	if got := httpTracesURL("http://c:4318/custom"); got != "http://c:4318/custom" {
		t.Errorf("httpTracesURL kept path = %s", got)
	}
	tp, err := NewProvider(context.Background(), ProviderConfig{Exporter: tracetest.NewNoopExporter(), SampleRatio: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Error(err)
	}
}
