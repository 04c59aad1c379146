package graphql

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/faulty"
	"github.com/dohyo/dohyo/httpsec"
	"github.com/dohyo/dohyo/proxy"
	"github.com/dohyo/dohyo/telemetry"
)

// postWith sends a GraphQL request with extra headers.
func (e *testEnv) postWith(path, query string, header map[string]string) *gqlResponse {
	e.t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query})
	req, _ := http.NewRequest(http.MethodPost, e.http.URL+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return e.send(req)
}

func spanAttrs(s sdktrace.ReadOnlySpan) map[string]string {
	out := map[string]string{}
	for _, kv := range s.Attributes() {
		out[string(kv.Key)] = kv.Value.Emit()
	}
	return out
}

// TestMutationSpans: a GraphQL mutation carrying a client's traceparent is
// traced under the client's trace: the HTTP request span, then the
// coordinator's parse, route, backend and capture spans.
func TestMutationSpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	// Only requests whose client sampled them are traced.
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.NeverSample())))
	e := newEnv(t, testBackend{name: "embedded://memory", open: openEmbedded}, func(c *Config) {
		c.Tracer = telemetry.New(telemetry.Options{Provider: tp})
	})
	e.cql("CREATE TABLE books (title text PRIMARY KEY, author text, pages int)")
	const traceID, parentID = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	r := e.postWith("/graphql/"+e.ks, `mutation { insertbooks(value: {title: "Secret title", author: "Anon", pages: 7}) { applied } }`,
		map[string]string{"traceparent": "00-" + traceID + "-" + parentID + "-01"})
	if len(r.Errors) > 0 {
		t.Fatalf("mutation: %s", r.errorText())
	}
	spans := rec.Ended()
	var root sdktrace.ReadOnlySpan
	for _, s := range spans {
		if s.Name() == "POST /graphql/{keyspace}" {
			root = s
		}
	}
	if root == nil {
		t.Fatalf("no request span among %d spans", len(spans))
	}
	if got := root.SpanContext().TraceID().String(); got != traceID {
		t.Errorf("trace id %s, want the client's %s", got, traceID)
	}
	if got := root.Parent().SpanID().String(); got != parentID {
		t.Errorf("parent %s, want the client's %s", got, parentID)
	}
	children := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		if s.Parent().SpanID() == root.SpanContext().SpanID() {
			children[s.Name()] = s
		}
		for _, kv := range s.Attributes() {
			if strings.Contains(kv.Value.Emit(), "Secret title") {
				t.Errorf("span %s attribute %s carries a bound value: %s", s.Name(), kv.Key, kv.Value.Emit())
			}
		}
	}
	for _, name := range []string{"parse", "route", "PREPARE INSERT " + e.ks + ".books", "INSERT " + e.ks + ".books", "capture"} {
		if children[name] == nil {
			t.Errorf("no child span %q; children: %v", name, keys(children))
		}
	}
	if ins := children["INSERT "+e.ks+".books"]; ins != nil {
		got := spanAttrs(ins)
		want := map[string]string{
			"db.system": "pebble", "db.namespace": e.ks, "db.operation.name": "INSERT", "db.collection.name": "books",
			"dohyo.backend": "embedded://memory",
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("backend span %s = %q, want %q", k, got[k], v)
			}
		}
		if q := got["db.query.text"]; !strings.HasPrefix(q, "INSERT INTO") || !strings.Contains(q, "?") {
			t.Errorf("db.query.text %q: want the statement's fingerprint", q)
		}
	}
	if got := spanAttrs(root); got["db.namespace"] != e.ks || got["db.operation.name"] != "INSERT" {
		t.Errorf("root attributes %v", got)
	}
	// Without a sampled parent nothing is traced.
	rec.Reset()
	e.dml(`mutation { insertbooks(value: {title: "B", author: "x"}) { applied } }`, nil)
	if n := len(rec.Ended()); n != 0 {
		t.Errorf("%d spans for an unsampled request", n)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// holdFor is how long the deadline tests' backend holds a statement.
const holdFor = time.Minute

// answeredByDeadline checks when a request held past its deadline was
// answered, as facts rather than a latency: not before the deadline (the
// server starts it when it reads the request, after the client started
// its clock), and before the held backend call would have returned — so
// the answer came from the deadline, not from the backend. A loaded
// machine may answer seconds late; that is not what is tested.
func answeredByDeadline(t *testing.T, elapsed, deadline, held time.Duration) {
	t.Helper()
	if elapsed < deadline {
		t.Errorf("answered after %v, before the %v deadline", elapsed, deadline)
	}
	if elapsed >= held {
		t.Errorf("answered after %v: not before the backend's %v hold ended, so not by the %v deadline", elapsed, held, deadline)
	}
}

// TestBudgetHeader: X-Dohyo-Budget-Ms tightens the budget; a statement
// held by the backend past it fails with a timeout error (not before the
// budget, and before the backend's hold ended), its backend call is
// cancelled through ctx, and the budget is counted.
func TestBudgetHeader(t *testing.T) {
	var be *faulty.Backend
	var mu sync.Mutex
	var exceeded []string
	e := newEnv(t, testBackend{name: "embedded", open: func(t testing.TB) bindings.Backend {
		be = faulty.Wrap(openEmbedded(t))
		return be
	}}, func(c *Config) {
		c.planCheck = nil // one statement: the fault answers once
		c.Budgets = proxy.Budgets{Default: 30 * time.Second}
		c.OnBudgetExceeded = func(ks string) {
			mu.Lock()
			exceeded = append(exceeded, ks)
			mu.Unlock()
		}
	})
	e.cql("CREATE TABLE books (title text PRIMARY KEY, author text, pages int)")
	done := make(chan error, 1)
	remove := be.InjectFault(faulty.Fault{Match: "SELECT", Delay: holdFor, Done: func(err error) { done <- err }})
	defer remove()

	start := time.Now()
	r := e.postWith("/graphql/"+e.ks, `{ books(value: {title: "A"}) { values { title } } }`,
		map[string]string{proxy.BudgetHeader: "200"})
	elapsed := time.Since(start)
	if len(r.Errors) == 0 || r.Errors[0].Extensions["code"] != "ReadTimeout" {
		t.Fatalf("want a ReadTimeout error, got %s", r.Raw)
	}
	if msg := r.Errors[0].Message; !strings.Contains(msg, "budget 200ms") { // the header's, not the 30s default
		t.Errorf("timeout message %q: want it to name the header's 200ms budget", msg)
	}
	answeredByDeadline(t, elapsed, 200*time.Millisecond, holdFor)
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("backend delay ended with %v, want the budget's deadline", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the backend call was not cancelled")
	}
	mu.Lock()
	if len(exceeded) != 1 || exceeded[0] != e.ks {
		t.Errorf("budgets exceeded %v, want [%s]", exceeded, e.ks)
	}
	mu.Unlock()

	if r := e.postWith("/graphql/"+e.ks, `{ books { values { title } } }`, map[string]string{proxy.BudgetHeader: "soon"}); r.Status != http.StatusBadRequest {
		t.Errorf("malformed budget: status %d, want 400", r.Status)
	}
}

// TestRequestDeadline: the guard's request deadline (http-request-timeout)
// ends a DML request's statements — folded into their budget ctx, and not
// counted as an exceeded budget — and a schema request as a whole; the
// backend call is cancelled through ctx in both.
func TestRequestDeadline(t *testing.T) {
	var be *faulty.Backend
	var exceeded atomic.Int32
	e := newEnvWith(t, testBackend{name: "embedded", open: func(t testing.TB) bindings.Backend {
		be = faulty.Wrap(openEmbedded(t))
		return be
	}}, func(c *Config) {
		c.planCheck = nil // one statement: the fault answers once
		c.Budgets = proxy.Budgets{Default: 30 * time.Second}
		c.OnBudgetExceeded = func(string) { exceeded.Add(1) }
	}, &httpsec.Config{RequestTimeout: 300 * time.Millisecond}, nil)
	e.cql("CREATE TABLE books (title text PRIMARY KEY, author text)")
	for _, c := range []struct{ name, match, path, doc string }{
		{"dml", "SELECT", "/graphql/" + e.ks, `{ books(value: {title: "A"}) { values { title } } }`},
		{"schema", "CREATE TABLE", "/graphql-schema",
			`mutation { createTable(keyspaceName: "` + e.ks + `", tableName: "slow", partitionKeys: [{name: "k", type: {basic: INT}}]) }`},
	} {
		t.Run(c.name, func(t *testing.T) {
			done := make(chan error, 1)
			remove := be.InjectFault(faulty.Fault{Match: c.match, Delay: holdFor, Done: func(err error) { done <- err }})
			defer remove()
			start := time.Now()
			r := e.post(c.path, c.doc, nil)
			answeredByDeadline(t, time.Since(start), 300*time.Millisecond, holdFor)
			if len(r.Errors) == 0 {
				t.Fatalf("want an error at the request deadline, got %s", r.Raw)
			}
			select {
			case err := <-done:
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("backend delay ended with %v, want the request's deadline", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the backend call was not cancelled")
			}
		})
	}
	if n := exceeded.Load(); n != 0 {
		t.Errorf("%d budgets counted as exceeded: the request deadline is the caller's, not a budget", n)
	}
}
