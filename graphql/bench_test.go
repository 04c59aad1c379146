package graphql

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/httpsec"
	"github.com/dohyo/dohyo/proxy"
)

// BenchmarkPointRead reads the same row through the same coordinator as CQL
// (a proxy.Session query) and as GraphQL (an HTTP request to the
// /graphql/{keyspace} endpoint), interleaved, and reports both latencies
// and their ratio side by side.
func BenchmarkPointRead(b *testing.B) {
	for _, tb := range testBackends() {
		b.Run(tb.name, func(b *testing.B) {
			e := newBenchEnv(b, tb)
			ctx := context.Background()
			sess := e.coord.NewSession(bindings.SourceCQL)
			sess.SetKeyspace(e.ks)
			cqlReq := &bindings.Request{Query: "SELECT k, v FROM kv WHERE k = 42", Consistency: bindings.LocalQuorum}
			body, _ := json.Marshal(map[string]any{"query": `{ kv(value: {k: 42}) { values { k v } } }`})
			url := e.http.URL + "/graphql/" + e.ks
			client := e.http.Client()

			readCQL := func() {
				res, err := sess.Query(ctx, cqlReq)
				if err != nil || len(res.Rows) != 1 {
					b.Fatalf("cql read: %v (%v rows)", err, res)
				}
			}
			readGraphQL := func() {
				res, err := client.Post(url, "application/json", bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				out, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != 200 || !bytes.Contains(out, []byte(`"v":"forty-two"`)) {
					b.Fatalf("graphql read: %d %s", res.StatusCode, out)
				}
			}
			readCQL() // warm caches: parse, prepare, schema
			readGraphQL()
			b.ResetTimer()
			var cqlTime, gqlTime time.Duration
			for i := 0; i < b.N; i++ {
				start := time.Now()
				readCQL()
				mid := time.Now()
				readGraphQL()
				cqlTime += mid.Sub(start)
				gqlTime += time.Since(mid)
			}
			b.StopTimer()
			cqlNs := float64(cqlTime.Nanoseconds()) / float64(b.N)
			gqlNs := float64(gqlTime.Nanoseconds()) / float64(b.N)
			b.ReportMetric(cqlNs, "cql-ns/op")
			b.ReportMetric(gqlNs, "graphql-ns/op")
			b.ReportMetric(gqlNs/cqlNs, "graphql/cql")
		})
	}
}

// newBenchEnv is newEnv for benchmarks (no *testing.T there), without
// the tests' second run of every planned request through graphql-go and
// with dohyo serve's Tap instead of the tests' recording one (servingTap).
func newBenchEnv(b *testing.B, tb testBackend) *testEnv {
	b.Helper()
	e := newEnvTB(b, tb, func(c *Config) { c.planCheck = nil })
	e.cql(`CREATE TABLE kv (k int PRIMARY KEY, v text)`, `INSERT INTO kv (k, v) VALUES (42, 'forty-two')`)
	return e
}

// TestConcurrentRequests runs queries, mutations and DDL at once (for the
// race detector: schemas are shared by concurrent requests and rebuilt
// while others use them).
func TestConcurrentRequests(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tb testBackend) {
		e := newEnv(t, tb, nil)
		e.cql(`CREATE TABLE t (k int, c int, v text, PRIMARY KEY (k, c))`)
		var wg sync.WaitGroup
		errs := make(chan string, 100)
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 20; i++ {
					r := e.post("/graphql/"+e.ks, `mutation($k: Int, $c: Int) { insertt(value: {k: $k, c: $c, v: "x"}) { applied } }`,
						map[string]any{"k": w, "c": i})
					if len(r.Errors) > 0 {
						errs <- r.errorText()
						return
					}
					r = e.post("/graphql/"+e.ks, `query($k: Int) { t(value: {k: $k}, orderBy: [c_DESC]) { values { c v } } }`, map[string]any{"k": w})
					if len(r.Errors) > 0 {
						errs <- r.errorText()
						return
					}
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5; i++ {
				r := e.post("/graphql-schema", `mutation($ks: String!, $t: String!) { createTable(keyspaceName: $ks, tableName: $t,
					partitionKeys: [{name: "k", type: {basic: INT}}]) }`, map[string]any{"ks": e.ks, "t": "extra" + itoa(i)})
				if len(r.Errors) > 0 {
					errs <- r.errorText()
					return
				}
			}
		}()
		wg.Wait()
		close(errs)
		for msg := range errs {
			if !strings.Contains(msg, "Cannot query field") { // a request may race a rebuild
				t.Error(msg)
			}
		}
		got := e.dml(`{ t(filter: {k: {in: [0, 1, 2, 3]}}) { values { c } } }`, nil)
		if n := len(path(got, "t", "values").([]any)); n != 80 {
			t.Errorf("rows = %d, want 80", n)
		}
	})
}

// BenchmarkPointReadAuth reads one row over GraphQL through three HTTP
// servers on the same GraphQL server, interleaved in one run: without the
// httpsec guard, behind the guard with authentication off (Host, Origin,
// in-flight, body and deadline checks only), and behind the guard with a
// token. It reports each latency and the guard's overheads.
//
// The GraphQL server runs with dohyo serve's default statement budget
// (request-timeout 5s), so statements derive their deadline ctx as they
// do in production; the guard's request deadline folds into it.
func BenchmarkPointReadAuth(b *testing.B) {
	e := newEnvTB(b, testBackends()[0], func(c *Config) { c.Budgets = proxy.Budgets{Default: 5 * time.Second} })
	e.cql(`CREATE TABLE kv (k int PRIMARY KEY, v text)`, `INSERT INTO kv (k, v) VALUES (42, 'forty-two')`)
	mux := http.NewServeMux()
	e.gql.Register(mux)
	serve := func(cfg *httpsec.Config) *httptest.Server {
		var h http.Handler = mux
		if cfg != nil {
			g, err := httpsec.New(*cfg)
			if err != nil {
				b.Fatal(err)
			}
			h = g.Handler(mux)
		}
		s := httptest.NewServer(h)
		b.Cleanup(s.Close)
		return s
	}
	plain := serve(nil)
	open := serve(&httpsec.Config{})
	tokens := httpsec.NewTokenStore(0, 0, nil)
	guarded := serve(&httpsec.Config{Passwords: passwordStore(b, "bench"), Tokens: tokens})
	token, _ := tokens.Issue("bench")
	body, _ := json.Marshal(map[string]any{"query": `{ kv(value: {k: 42}) { values { k v } } }`})
	read := func(s *httptest.Server, token string) {
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/graphql/"+e.ks, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set(httpsec.TokenHeader, token)
		}
		res, err := s.Client().Do(req)
		if err != nil {
			b.Fatal(err)
		}
		out, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !bytes.Contains(out, []byte(`"v":"forty-two"`)) {
			b.Fatalf("graphql read: %d %s", res.StatusCode, out)
		}
	}
	for _, s := range []*httptest.Server{plain, open} {
		read(s, "")
	}
	read(guarded, token)
	b.ResetTimer()
	var tPlain, tOpen, tAuth time.Duration
	steps := []func(){
		func() { t := time.Now(); read(plain, ""); tPlain += time.Since(t) },
		func() { t := time.Now(); read(open, ""); tOpen += time.Since(t) },
		func() { t := time.Now(); read(guarded, token); tAuth += time.Since(t) },
	}
	for i := 0; i < b.N; i++ {
		for j := range steps { // rotate the order: no server is always first
			steps[(i+j)%len(steps)]()
		}
	}
	b.StopTimer()
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N) }
	b.ReportMetric(per(tPlain), "noguard-ns/op")
	b.ReportMetric(per(tOpen), "authoff-ns/op")
	b.ReportMetric(per(tAuth), "authon-ns/op")
	b.ReportMetric(per(tOpen)/per(tPlain), "authoff/noguard")
	b.ReportMetric(per(tAuth)/per(tOpen), "authon/authoff")
}
