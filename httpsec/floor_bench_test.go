package httpsec

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkHTTPServerFloor measures what net/http's server adds to one
// keep-alive request of a Go client: the same POST of a small JSON body,
// answered with the same 31 bytes, by net/http (sub-benchmark "net/http")
// and by a minimal HTTP/1.1 responder that parses only the request line,
// headers and Content-Length ("minimal": not a server anyone should run;
// it shows the floor the client and the kernel set). The difference is the
// server's own cost per request (issue 21: a GraphQL read pays it, a CQL
// read does not).
//
//	go test -run '^$' -bench BenchmarkHTTPServerFloor -benchtime 20000x -count 3 ./httpsec/
func BenchmarkHTTPServerFloor(b *testing.B) {
	const answer = `{"data":{"__typename":"Query"}}`
	b.Run("net/http", func(b *testing.B) {
		ln := listen(b)
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(answer))
		})}
		go func() { _ = srv.Serve(ln) }()
		b.Cleanup(func() { _ = srv.Close() })
		postLoop(b, ln.Addr().String(), answer)
	})
	b.Run("minimal", func(b *testing.B) {
		ln := listen(b)
		resp := []byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
			strconv.Itoa(len(answer)) + "\r\n\r\n" + answer)
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				go respondMinimal(c, resp)
			}
		}()
		postLoop(b, ln.Addr().String(), answer)
	})
}

func listen(b *testing.B) net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = ln.Close() })
	return ln
}

// respondMinimal answers every request on c with resp: headers up to the
// empty line, then Content-Length bytes of body skipped.
func respondMinimal(c net.Conn, resp []byte) {
	defer c.Close()
	r := bufio.NewReader(c)
	for {
		n := 0
		for {
			line, err := r.ReadSlice('\n')
			if err != nil {
				return
			}
			if len(line) <= 2 {
				break
			}
			if name, value, ok := bytes.Cut(line, []byte(":")); ok && strings.EqualFold(string(name), "Content-Length") {
				n, _ = strconv.Atoi(string(bytes.TrimSpace(value)))
			}
		}
		if _, err := r.Discard(n); err != nil {
			return
		}
		if _, err := c.Write(resp); err != nil {
			return
		}
	}
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
