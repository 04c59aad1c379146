package graphql

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/cassandra"
	"github.com/dohyo/dohyo/bindings/embedded"
	"github.com/dohyo/dohyo/bindings/stores"
	"github.com/dohyo/dohyo/capture/control"
	"github.com/dohyo/dohyo/engine"
	"github.com/dohyo/dohyo/httpsec"
	"github.com/dohyo/dohyo/metrics"
	"github.com/dohyo/dohyo/proxy"
)

// testBackend opens a fresh backend for one test. Tests run against every
// entry of testBackends; real Cassandra and HBase entries can be added
// next to embedded (the keyspace names tests use are unique per test).
type testBackend struct {
	name string
	open func(t testing.TB) bindings.Backend
}

func testBackends() []testBackend {
	out := []testBackend{{name: "embedded", open: openEmbedded}}
	// Real HBase when scripts/with-backends.sh exported its address.
	if zk := os.Getenv("DOHYO_TEST_HBASE_ZK"); zk != "" {
		out = append(out, testBackend{name: "hbase", open: func(t testing.TB) bindings.Backend {
			t.Helper()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			url := fmt.Sprintf("hbase://%s?salt=2&catalog=gql%d", zk, time.Now().UnixNano())
			be, err := stores.OpenURL(ctx, url, engine.Options{})
			if err != nil {
				t.Fatalf("open %s: %v", url, err)
			}
			return be
		}})
	} else if os.Getenv("CI") == "true" {
		out = append(out, testBackend{name: "hbase", open: func(t testing.TB) bindings.Backend {
			t.Fatal("DOHYO_TEST_HBASE_ZK is not set: CI runs the GraphQL tests on HBase too")
			return nil
		}})
	}
	// Real Cassandra through the gocql binding (dohyo as the client).
	if addr := os.Getenv("DOHYO_TEST_CASSANDRA"); addr != "" {
		out = append(out, testBackend{name: "cassandra", open: func(t testing.TB) bindings.Backend {
			t.Helper()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			be, err := cassandra.OpenURL(ctx, "cassandra://"+addr+"?consistency=ONE")
			if err != nil {
				t.Fatalf("open cassandra %s: %v", addr, err)
			}
			return be
		}})
	} else if os.Getenv("CI") == "true" {
		out = append(out, testBackend{name: "cassandra", open: func(t testing.TB) bindings.Backend {
			t.Fatal("DOHYO_TEST_CASSANDRA is not set: CI runs the GraphQL tests on Cassandra too")
			return nil
		}})
	}
	return out
}

func openEmbedded(t testing.TB) bindings.Backend {
	t.Helper()
	be, err := stores.Embedded(context.Background(), embedded.Config{}, engine.Options{})
	if err != nil {
		t.Fatalf("open embedded backend: %v", err)
	}
	return be
}

// forEachBackend runs fn as a subtest per backend.
func forEachBackend(t *testing.T, fn func(t *testing.T, tb testBackend)) {
	t.Helper()
	for _, tb := range testBackends() {
		t.Run(tb.name, func(t *testing.T) { fn(t, tb) })
	}
}

// recordingTap keeps every observation (to check what GraphQL sent).
type recordingTap struct {
	mu  sync.Mutex
	obs []bindings.Observation
}

func (r *recordingTap) Observe(o *bindings.Observation) {
	r.mu.Lock()
	c := *o
	c.Values = append([]bindings.Value(nil), o.Values...)
	r.obs = append(r.obs, c)
	r.mu.Unlock()
}

// last returns the last observation whose query contains substr.
func (r *recordingTap) last(substr string) (bindings.Observation, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.obs) - 1; i >= 0; i-- {
		if strings.Contains(r.obs[i].Query, substr) {
			return r.obs[i], true
		}
	}
	return bindings.Observation{}, false
}

// servingTap is the Tap dohyo serve installs by default: request metrics
// (keyspace ks known, backend labels from backend) in front of a capture
// switch with no capture running. Benchmarks observe through it instead of
// recordingTap, so they measure what production runs and their memory
// does not grow with every request.
func servingTap(t testing.TB, ks string, backend func(keyspace string) string) proxy.Tap {
	t.Helper()
	m, err := metrics.New(metrics.NewRegistry(), "bench")
	if err != nil {
		t.Fatalf("request metrics: %v", err)
	}
	known := &metrics.KeyspaceSet{}
	known.Set([]string{ks})
	return m.Tap(metrics.TapConfig{Next: control.New(control.Config{}), Keyspaces: known, Backend: backend})
}

// testEnv is a GraphQL server over a coordinator over one backend.
type testEnv struct {
	t     testing.TB
	coord *proxy.Coordinator
	gql   *Server
	http  *httptest.Server
	tap   *recordingTap // nil in benchmarks (servingTap)
	ks    string
	token string
	guard *httpsec.Guard
}

// keyspaceSeq and runID make keyspace names unique per test and per run,
// so real backends that keep data between runs never see a name twice.
var (
	keyspaceSeq atomic.Int64
	runID       = time.Now().UnixNano() & 0xffffff
)

func newEnv(t *testing.T, tb testBackend, mutate func(*Config)) *testEnv {
	t.Helper()
	return newEnvTB(t, tb, mutate)
}

func newEnvTB(t testing.TB, tb testBackend, mutate func(*Config)) *testEnv {
	t.Helper()
	return newEnvWith(t, tb, mutate, nil, nil)
}

// newEnvWith serves the GraphQL routes behind an httpsec.Guard built from
// guard (none when nil), as dohyo serve does; wrap, when set, wraps the
// whole handler (to observe what reaches the server).
func newEnvWith(t testing.TB, tb testBackend, mutate func(*Config), guard *httpsec.Config, wrap func(http.Handler) http.Handler) *testEnv {
	t.Helper()
	ks := fmt.Sprintf("gq%x_%d", runID, keyspaceSeq.Add(1))
	var coord *proxy.Coordinator
	var tap proxy.Tap
	var rec *recordingTap
	if _, bench := t.(*testing.B); bench {
		tap = servingTap(t, ks, func(ks string) string { return coord.Route(ks).Name })
	} else {
		rec = &recordingTap{}
		tap = rec
	}
	coord, err := proxy.New(proxy.Config{
		Backends: map[string]bindings.Backend{tb.name: tb.open(t)},
		Default:  tb.name,
		Tap:      tap,
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Coordinator: coord, planCheck: planChecker(t)}
	if mutate != nil {
		mutate(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	srv.Register(mux)
	var h http.Handler = mux
	var g *httpsec.Guard
	if guard != nil {
		if g, err = httpsec.New(*guard); err != nil {
			t.Fatal(err)
		}
		h = g.Handler(mux)
	}
	if wrap != nil {
		h = wrap(h)
	}
	hs := httptest.NewServer(h)
	e := &testEnv{t: t, coord: coord, gql: srv, http: hs, tap: rec, guard: g, ks: ks}
	t.Cleanup(func() {
		hs.Close()
		_ = srv.Close()
		s := coord.NewSession(bindings.SourceCQL)
		for _, ks := range []string{e.ks, e.ks + "_ddl", e.ks + "_other"} {
			_, _ = s.Query(context.Background(), &bindings.Request{Query: "DROP KEYSPACE IF EXISTS " + ks})
		}
		_ = coord.Close()
	})
	e.cql(fmt.Sprintf("CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", e.ks))
	return e
}

// planChecker makes every request a compiled plan answers also run
// through graphql-go, and fails t unless both answered byte for byte the
// same (so every query of every test compares the two paths).
func planChecker(t testing.TB) func(query string, vars map[string]any, fast, slow []byte) {
	return func(query string, vars map[string]any, fast, slow []byte) {
		if !bytes.Equal(fast, slow) {
			t.Errorf("compiled plan and graphql-go differ for %s %v:\nplan:      %s\ngraphql-go: %s", query, vars, fast, slow)
		}
	}
}

// cql runs statements directly through the coordinator.
func (e *testEnv) cql(stmts ...string) {
	e.t.Helper()
	s := e.coord.NewSession(bindings.SourceCQL)
	s.SetKeyspace(e.ks)
	for _, q := range stmts {
		if _, err := s.Query(context.Background(), &bindings.Request{Query: q}); err != nil {
			e.t.Fatalf("%s: %v", q, err)
		}
	}
}

// gqlResponse is a decoded GraphQL response.
type gqlResponse struct {
	Status int
	Data   map[string]any
	Errors []struct {
		Message    string         `json:"message"`
		Extensions map[string]any `json:"extensions"`
	}
	Raw string
}

func (r *gqlResponse) errorText() string {
	var msgs []string
	for _, e := range r.Errors {
		msgs = append(msgs, e.Message)
	}
	return strings.Join(msgs, " | ")
}

// post sends a JSON POST to path.
func (e *testEnv) post(path, query string, vars map[string]any) *gqlResponse {
	e.t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, e.http.URL+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if e.token != "" {
		req.Header.Set(httpsec.TokenHeader, e.token)
	}
	return e.send(req)
}

// postWithin is post bounded by limit: a request still unanswered then
// fails the test instead of hanging it.
func (e *testEnv) postWithin(limit time.Duration, path, query string) *gqlResponse {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	body, _ := json.Marshal(map[string]any{"query": query})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, e.http.URL+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if e.token != "" {
		req.Header.Set(httpsec.TokenHeader, e.token)
	}
	return e.send(req)
}

func (e *testEnv) send(req *http.Request) *gqlResponse {
	e.t.Helper()
	res, err := e.http.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := &gqlResponse{Status: res.StatusCode, Raw: string(raw)}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		e.t.Fatalf("decode %q: %v", raw, err)
	}
	return out
}

// dml runs a request on the test keyspace and fails on errors.
func (e *testEnv) dml(query string, vars map[string]any) map[string]any {
	e.t.Helper()
	r := e.post("/graphql/"+e.ks, query, vars)
	if r.Status != http.StatusOK || len(r.Errors) > 0 {
		e.t.Fatalf("query %s: status %d, errors: %s (%s)", query, r.Status, r.errorText(), r.Raw)
	}
	return r.Data
}

// ddl runs a request on /graphql-schema and fails on errors.
func (e *testEnv) ddl(query string, vars map[string]any) map[string]any {
	e.t.Helper()
	r := e.post("/graphql-schema", query, vars)
	if r.Status != http.StatusOK || len(r.Errors) > 0 {
		e.t.Fatalf("query %s: status %d, errors: %s", query, r.Status, r.errorText())
	}
	return r.Data
}

// dmlError runs a request expected to fail and returns the error text.
func (e *testEnv) dmlError(query string, vars map[string]any) string {
	e.t.Helper()
	r := e.post("/graphql/"+e.ks, query, vars)
	if len(r.Errors) == 0 {
		e.t.Fatalf("query %s: want an error, got %s", query, r.Raw)
	}
	return r.errorText()
}

// path walks decoded JSON: keys for objects, ints for arrays.
func path(v any, steps ...any) any {
	for _, s := range steps {
		switch k := s.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// jsonText renders v compactly with sorted keys (for comparisons).
func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
