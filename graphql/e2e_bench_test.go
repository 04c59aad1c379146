package graphql

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/httpsec"
	"github.com/dohyo/dohyo/internal/gctune"
	"github.com/dohyo/dohyo/internal/rawnet"
	"github.com/dohyo/dohyo/proxy/cqlserver"
)

// BenchmarkPointReadEndToEnd compares, end to end over loopback with Go
// clients, a point read of one row as CQL (gocql, prepared, through
// dohyo's CQL listener) and as GraphQL (net/http with keep-alive, POST
// /graphql/{keyspace}), on the same coordinator and embedded store. Each
// iteration runs one of each (the order alternates), so both see the
// same machine load; graphql/cql is the ratio issue 21 bounds by 1.3.
// "typename" is the same HTTP request for `{ __typename }`: the HTTP and
// GraphQL floor without any statement. "graphql-go" is the point read on
// a second GraphQL server of the same coordinator with
// Config.NoCompiledPlans (graphql-go's executor, no compiled plan).
//
// Both servers run with dohyo serve's defaults: the CQL listener's request
// timeout, the HTTP listener's guard and timeouts, sockets through
// internal/rawnet, the garbage collector's heap floor.
func BenchmarkPointReadEndToEnd(b *testing.B) {
	b.Cleanup(gctune.Start(gctune.DefaultFloor, 100).Stop)
	e := newBenchEnv(b, testBackend{name: "embedded", open: openEmbedded})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv, err := cqlserver.New(cqlserver.Config{Coordinator: e.coord, ListenAddr: ln.Addr().String(),
		RequestTimeout: cqlserver.DefaultRequestTimeout})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _ = srv.Serve(ctx, ln) }()
	b.Cleanup(func() {
		cancel()
		sctx, c := context.WithTimeout(context.Background(), 5*time.Second)
		defer c()
		_ = srv.Shutdown(sctx)
	})
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	cluster := gocql.NewCluster(host)
	cluster.Port, _ = strconv.Atoi(port)
	cluster.Keyspace = e.ks
	cluster.ProtoVersion = 4
	cluster.NumConns = 1
	cluster.Consistency = gocql.LocalQuorum
	cluster.DisableInitialHostLookup = true
	cluster.Timeout = 10 * time.Second
	cluster.WriteCoalesceWaitTime = 0 // gocql waits 200 µs by default to batch writes
	sess, err := cluster.CreateSession()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(sess.Close)

	var k int
	var v string
	readCQL := func() {
		if err := sess.Query("SELECT k, v FROM kv WHERE k = ?", 42).Scan(&k, &v); err != nil || v != "forty-two" {
			b.Fatalf("cql read: %v (%q)", err, v)
		}
	}
	// HTTP/1.1 with keep-alive, and HTTP/2 without TLS (h2c, prior
	// knowledge) on a server that speaks both and reads and writes its
	// connections through internal/rawnet, as dohyo serve's does (the CQL
	// listener above does too).
	hs := servedLikeDohyo(b, e.http.Config.Handler)
	slow := slowServer(b, e)
	h1 := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	h2 := &http.Client{Transport: &http.Transport{Protocols: h2cOnly()}}
	b.Cleanup(h1.CloseIdleConnections)
	b.Cleanup(h2.CloseIdleConnections)
	client, url := h1, hs.URL
	post := func(body []byte, want string) {
		res, err := client.Post(url+"/graphql/"+e.ks, "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		out, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || string(out) != want {
			b.Fatalf("graphql: %d %s", res.StatusCode, out)
		}
	}
	read, _ := json.Marshal(map[string]any{"query": `query($k: Int) { kv(value: {k: $k}) { values { k v } } }`, "variables": map[string]any{"k": 42}})
	typename, _ := json.Marshal(map[string]any{"query": `{ __typename }`})
	readGraphQL := func() { post(read, `{"data":{"kv":{"values":[{"k":42,"v":"forty-two"}]}}}`) }
	readTypename := func() { post(typename, `{"data":{"__typename":"Query"}}`) }
	readH2C := func() {
		client = h2
		readGraphQL()
		client = h1
	}
	readSlow := func() {
		url = slow.URL
		readGraphQL()
		url = hs.URL
	}
	steps := []func(){readCQL, readGraphQL, readTypename, readH2C, readSlow}
	for i := 0; i < 100; i++ { // warm: prepare, schema, document cache, connections
		for _, s := range steps {
			s()
		}
	}
	var spent [5]time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range steps {
			s := (i + j) % len(steps) // rotate the order every iteration
			start := time.Now()
			steps[s]()
			spent[s] += time.Since(start)
		}
	}
	b.StopTimer()
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N) }
	b.ReportMetric(per(spent[0]), "cql-ns/op")
	b.ReportMetric(per(spent[1]), "graphql-ns/op")
	b.ReportMetric(per(spent[2]), "typename-ns/op")
	b.ReportMetric(per(spent[1])/per(spent[0]), "graphql/cql")
	b.ReportMetric(per(spent[2])/per(spent[0]), "typename/cql")
	b.ReportMetric(per(spent[3])/per(spent[0]), "h2c-graphql/cql")
	b.ReportMetric(per(spent[4])/per(spent[0]), "graphqlgo/cql")
}

// slowServer serves e's keyspaces with a second GraphQL server of the same
// coordinator that never uses compiled plans.
func slowServer(b *testing.B, e *testEnv) *httptest.Server {
	srv, err := New(Config{Coordinator: e.coord, NoCompiledPlans: true})
	if err != nil {
		b.Fatal(err)
	}
	mux := http.NewServeMux()
	srv.Register(mux)
	return servedLikeDohyo(b, mux)
}

// servedLikeDohyo serves h on loopback the way dohyo serve's HTTP listener
// does with its defaults: behind the guard (authentication off), with its
// timeouts, HTTP/1.1 and h2c, connections through internal/rawnet.
func servedLikeDohyo(b *testing.B, h http.Handler) *httptest.Server {
	g, err := httpsec.New(httpsec.Config{})
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(g.Handler(h))
	hs.Listener = rawnet.Listener{Listener: hs.Listener}
	hs.Config.Protocols = httpsec.ServerProtocols()
	hs.Config.ReadHeaderTimeout, hs.Config.ReadTimeout = httpsec.DefaultReadHeaderTimeout, httpsec.DefaultReadTimeout
	hs.Config.WriteTimeout, hs.Config.IdleTimeout = httpsec.DefaultWriteTimeout, httpsec.DefaultIdleTimeout
	hs.Start()
	b.Cleanup(hs.Close)
	return hs
}

// BenchmarkHandlerPointRead runs the /graphql/{keyspace} handler in
// process (no sockets): what one point read costs dohyo's GraphQL layer,
// with its allocations; "read-graphql-go" is the same read with
// Config.NoCompiledPlans, "typename" is `{ __typename }` (which a plan
// answers too).
func BenchmarkHandlerPointRead(b *testing.B) {
	e := newBenchEnv(b, testBackend{name: "embedded", open: openEmbedded})
	mux := http.NewServeMux()
	e.gql.Register(mux)
	slow, err := New(Config{Coordinator: e.coord, NoCompiledPlans: true})
	if err != nil {
		b.Fatal(err)
	}
	slowMux := http.NewServeMux()
	slow.Register(slowMux)
	read := `{"query":"query($k: Int) { kv(value: {k: $k}) { values { k v } } }","variables":{"k":42}}`
	for _, c := range []struct {
		name, body, want string
		mux              *http.ServeMux
	}{
		{"read", read, `{"data":{"kv":{"values":[{"k":42,"v":"forty-two"}]}}}`, mux},
		{"read-graphql-go", read, `{"data":{"kv":{"values":[{"k":42,"v":"forty-two"}]}}}`, slowMux},
		{"typename", `{"query":"{ __typename }"}`, `{"data":{"__typename":"Query"}}`, mux},
		{"typename-graphql-go", `{"query":"{ __typename }"}`, `{"data":{"__typename":"Query"}}`, slowMux},
	} {
		mux := c.mux
		b.Run(c.name, func(b *testing.B) {
			body := []byte(c.body)
			w := &discardWriter{h: http.Header{}}
			do := func() {
				req, _ := http.NewRequest(http.MethodPost, "/graphql/"+e.ks, bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				w.buf.Reset()
				mux.ServeHTTP(w, req)
				if w.buf.String() != c.want {
					b.Fatalf("got %s", w.buf.String())
				}
			}
			do()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				do()
			}
		})
	}
}

// discardWriter is an http.ResponseWriter keeping only the body.
type discardWriter struct {
	h   http.Header
	buf bytes.Buffer
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(p []byte) (int, error) { return w.buf.Write(p) }
func (w *discardWriter) WriteHeader(int)             {}

// h2cOnly makes a client Transport speak HTTP/2 without TLS.
func h2cOnly() *http.Protocols {
	p := new(http.Protocols)
	p.SetUnencryptedHTTP2(true)
	return p
}
