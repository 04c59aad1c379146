package httpfloor

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// BenchmarkHTTPServerFloor measures what net/http's server adds to one
// keep-alive request of a Go client: the same POST of a small JSON body,
// answered with the same 31 bytes, by net/http and by the minimal
// responder. The difference is the server's own cost per request (issue
// 21: a GraphQL read pays it, a CQL read does not).
//
//	go test -run '^$' -bench BenchmarkHTTPServerFloor -benchtime 20000x -count 3 ./bench/httpfloor/
func BenchmarkHTTPServerFloor(b *testing.B) {
	for _, kind := range Kinds {
		b.Run(kind, func(b *testing.B) {
			postLoop(b, serve(b, kind), Answer)
		})
	}
}

// TestServersAnswer: both servers answer several requests on one
// keep-alive connection, with a body of any length, and an unknown kind
// is an error.
func TestServersAnswer(t *testing.T) {
	for _, kind := range Kinds {
		t.Run(kind, func(t *testing.T) {
			addr := serve(t, kind)
			c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
			defer c.CloseIdleConnections()
			for _, body := range []string{`{"query":"{ __typename }"}`, "", strings.Repeat("x", 70000), "{}"} {
				res, err := c.Post("http://"+addr+"/graphql/ks", "application/json", strings.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				out, err := io.ReadAll(res.Body)
				_ = res.Body.Close()
				if err != nil || res.StatusCode != 200 || string(out) != Answer {
					t.Fatalf("body of %d bytes: %d %q %v", len(body), res.StatusCode, out, err)
				}
			}
		})
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := Serve("fasthttp", ln); err == nil {
		t.Fatal("Serve of an unknown kind: no error")
	}
}

// serve starts the server named kind on a loopback port until the test
// ends, and returns its address.
func serve(tb testing.TB, kind string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- Serve(kind, ln) }()
	tb.Cleanup(func() {
		_ = ln.Close()
		if err := <-done; err != nil {
			tb.Error(err)
		}
	})
	return ln.Addr().String()
}

// postLoop posts a small JSON body with net/http's client over one
// keep-alive connection, b.N times, and checks each answer.
func postLoop(b *testing.B, addr, want string) {
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	b.Cleanup(c.CloseIdleConnections)
	url := "http://" + addr + "/graphql/ks"
	const body = `{"query":"{ __typename }"}`
	for b.Loop() {
		res, err := c.Post(url, "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		out, err := io.ReadAll(res.Body)
		_ = res.Body.Close()
		if err != nil || string(out) != want {
			b.Fatalf("answer %q, %v", out, err)
		}
	}
}
