package httpfloor

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
)

// Answer is what both servers answer: dohyo's answer to `{ __typename }`.
const Answer = `{"data":{"__typename":"Query"}}`

// Kinds are the servers Serve knows.
var Kinds = []string{"net/http", "minimal"}

// Serve answers requests on ln with the server named kind until ln is
// closed.
func Serve(kind string, ln net.Listener) error {
	switch kind {
	case "net/http":
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(Answer))
		})}
		if err := srv.Serve(ln); !errors.Is(err, net.ErrClosed) && !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("httpfloor: %w", err)
		}
		return nil
	case "minimal":
		resp := []byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
			strconv.Itoa(len(Answer)) + "\r\n\r\n" + Answer)
		for {
			c, err := ln.Accept()
			if err != nil {
				if errors.Is(err, net.ErrClosed) {
					return nil
				}
				return fmt.Errorf("httpfloor: %w", err)
			}
			go respondMinimal(c, resp)
		}
	}
	return fmt.Errorf("httpfloor: no server %q (%v)", kind, Kinds)
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
			if name, value, ok := bytes.Cut(line, []byte(":")); ok && bytes.EqualFold(name, []byte("Content-Length")) {
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
