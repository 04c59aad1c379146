package httpsec

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestServerProtocolsH2C: a listener with ServerProtocols answers
// HTTP/1.1 and HTTP/2 without TLS (prior knowledge), both through the
// guard.
func TestServerProtocolsH2C(t *testing.T) {
	g, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	s := httptest.NewUnstartedServer(g.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.Proto)
	})))
	s.Config.Protocols = ServerProtocols()
	s.Start()
	t.Cleanup(s.Close)
	h2 := new(http.Protocols)
	h2.SetUnencryptedHTTP2(true)
	for _, c := range []struct {
		name string
		tr   *http.Transport
		want string
	}{
		{"HTTP/1.1", &http.Transport{}, "HTTP/1.1"},
		{"h2c", &http.Transport{Protocols: h2}, "HTTP/2.0"},
	} {
		res, err := (&http.Client{Transport: c.tr}).Get(s.URL + "/x")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || string(body) != c.want || res.Proto != c.want {
			t.Errorf("%s: %d %q (%s), want %s", c.name, res.StatusCode, body, res.Proto, c.want)
		}
		c.tr.CloseIdleConnections()
	}
}
