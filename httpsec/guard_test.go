package httpsec

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fixedPasswords accepts user "u" with password "p" (the real store is
// cqlserver.PasswordAuthenticator, tested with the token flow in graphql).
type fixedPasswords struct{}

func (fixedPasswords) CheckPassword(u, p string) bool { return u == "u" && p == "p" }

func serve(t *testing.T, cfg Config, h http.Handler) (*httptest.Server, *Guard) {
	t.Helper()
	g, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if h == nil {
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "served") })
	}
	s := httptest.NewServer(g.Handler(h))
	t.Cleanup(s.Close)
	return s, g
}

func send(t *testing.T, s *httptest.Server, method, path string, hdr map[string]string, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res, string(raw)
}

// TestHostCheck: names other than localhost and the configured hosts are
// refused (DNS rebinding); IP literals are served.
func TestHostCheck(t *testing.T) {
	s, _ := serve(t, Config{Hosts: []string{"dohyo.internal"}}, nil)
	for host, want := range map[string]int{
		"attacker.example:8080": http.StatusMisdirectedRequest, "attacker.example": http.StatusMisdirectedRequest,
		"127.0.0.1:8080": 200, "[::1]:8080": 200, "10.1.2.3": 200, "localhost:8080": 200, "LOCALHOST.": 200,
		"dohyo.internal:8080": 200, "app.localhost": 200,
	} {
		res, body := send(t, s, "GET", "/x", map[string]string{"Host": host}, "")
		if res.StatusCode != want {
			t.Errorf("Host %s: %d %s, want %d", host, res.StatusCode, body, want)
		}
		if want != 200 && !strings.Contains(body, `"errors":[{"message":"Host`) {
			t.Errorf("Host %s: body %s", host, body)
		}
	}
	s2, _ := serve(t, Config{Hosts: []string{"*"}}, nil)
	if res, _ := send(t, s2, "GET", "/x", map[string]string{"Host": "anything.example"}, ""); res.StatusCode != 200 {
		t.Errorf("Hosts *: %d", res.StatusCode)
	}
}

// TestOriginCheck: a request from another origin (Origin header, or
// Sec-Fetch-Site cross-site/same-site as an <img> sends) is refused unless
// that origin is configured; CORS preflights answer configured origins only.
func TestOriginCheck(t *testing.T) {
	s, _ := serve(t, Config{AllowedOrigins: []string{"https://console.example"}, Public: []string{"/health/liveness"}}, nil)
	self := s.URL // same origin: scheme and host of the request
	cases := []struct {
		method, path string
		hdr          map[string]string
		want         int
	}{
		{"POST", "/graphql-schema", map[string]string{"Origin": "http://evil.example"}, 403},
		{"POST", "/graphql-schema", map[string]string{"Origin": "null"}, 403},
		{"GET", "/graphql-schema", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"GET", "/graphql-schema", map[string]string{"Sec-Fetch-Site": "same-site"}, 403},
		{"POST", "/graphql-schema", map[string]string{"Origin": self}, 200},
		{"POST", "/graphql-schema", map[string]string{"Origin": "https://console.example"}, 200},
		{"GET", "/graphql-schema", map[string]string{"Sec-Fetch-Site": "same-origin"}, 200},
		{"GET", "/graphql-schema", map[string]string{"Sec-Fetch-Site": "none"}, 200},
		{"POST", "/graphql-schema", nil, 200}, // not a browser
		{"GET", "/health/liveness", map[string]string{"Sec-Fetch-Site": "cross-site"}, 200},
		{"OPTIONS", "/graphql-schema", map[string]string{"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"}, 403},
		{"OPTIONS", "/graphql-schema", map[string]string{"Origin": "https://console.example", "Access-Control-Request-Method": "POST"}, 204},
	}
	for _, c := range cases {
		res, body := send(t, s, c.method, c.path, c.hdr, "")
		if res.StatusCode != c.want {
			t.Errorf("%s %s %v: %d %s, want %d", c.method, c.path, c.hdr, res.StatusCode, body, c.want)
		}
		acao := res.Header.Get("Access-Control-Allow-Origin")
		if o := c.hdr["Origin"]; o == "https://console.example" {
			if acao != o {
				t.Errorf("%s from %s: Access-Control-Allow-Origin %q", c.method, o, acao)
			}
		} else if acao != "" {
			t.Errorf("%s %v: Access-Control-Allow-Origin %q, want none", c.method, c.hdr, acao)
		}
	}
	if _, err := New(Config{AllowedOrigins: []string{"console.example"}}); err == nil {
		t.Error("New accepted an origin without a scheme")
	}
}

// TestInFlightLimit: requests beyond MaxInFlight are answered 503 with
// Retry-After at once — while the requests holding the slots are still
// held, so not after queueing for a slot; health probes are not counted.
func TestInFlightLimit(t *testing.T) {
	release := make(chan struct{})
	releaseOnce := sync.OnceFunc(func() { close(release) })
	defer releaseOnce() // a failing test must not leave the handlers held
	entered := make(chan struct{}, 8)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			entered <- struct{}{}
			<-release
		}
		_, _ = io.WriteString(w, "ok")
	})
	s, _ := serve(t, Config{MaxInFlight: 2, Public: []string{"/health/liveness"}}, h)
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := s.Client().Get(s.URL + "/slow")
			if err == nil {
				res.Body.Close()
			}
		}()
	}
	for i := 0; i < 2; i++ {
		select {
		case <-entered:
		case <-time.After(30 * time.Second):
			t.Fatal("slow requests did not start")
		}
	}
	// Both slots stay held until releaseOnce below, so an answer at all
	// means the request did not wait for a slot; the 30 s bound only stops
	// a guard that queues from hanging the test.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", s.URL+"/other", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Client().Do(req)
	if err != nil {
		t.Fatalf("third request while both slots were held: %v; it must not wait for a slot", err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if body := string(raw); res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" || !strings.Contains(body, "Too many") {
		t.Errorf("third request: %d %q %s, want 503 with Retry-After", res.StatusCode, res.Header.Get("Retry-After"), body)
	}
	if res, _ := send(t, s, "GET", "/health/liveness", nil, ""); res.StatusCode != 200 {
		t.Errorf("liveness under load: %d", res.StatusCode)
	}
	releaseOnce()
	wg.Wait()
	if res, _ := send(t, s, "GET", "/other", nil, ""); res.StatusCode != 200 {
		t.Errorf("after the slow requests: %d", res.StatusCode)
	}
}

// TestBodyLimit: a body over MaxBodyBytes is refused 413: at once when
// its Content-Length says so, when read for a chunked body.
func TestBodyLimit(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
			return
		}
		_, _ = io.WriteString(w, "ok")
	})
	s, _ := serve(t, Config{MaxBodyBytes: 1000}, h)
	if res, _ := send(t, s, "POST", "/x", nil, strings.Repeat("a", 1001)); res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("1001 bytes: %d", res.StatusCode)
	}
	if res, _ := send(t, s, "POST", "/x", nil, strings.Repeat("a", 1000)); res.StatusCode != 200 {
		t.Errorf("1000 bytes: %d", res.StatusCode)
	}
	// Chunked bodies (no Content-Length) are cut at the limit while read.
	for n, want := range map[int]int{1001: http.StatusRequestEntityTooLarge, 1000: 200} {
		req, _ := http.NewRequest("POST", s.URL+"/x", io.MultiReader(strings.NewReader(strings.Repeat("a", n))))
		req.ContentLength = -1
		res, err := s.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("chunked %d bytes: %d, want %d", n, res.StatusCode, want)
		}
	}
}

// TestAdmin: with authentication on, RequireAdmin lets only admins pass;
// without a token nothing but the public paths answers.
func TestAdmin(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/data", func(w http.ResponseWriter, r *http.Request) {
		id, _ := IdentityFrom(r.Context())
		_, _ = io.WriteString(w, "data for "+id)
	})
	mux.HandleFunc("/health/liveness", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "served") })
	var g *Guard
	mux.Handle("/admin/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.RequireAdmin(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "admin") })).ServeHTTP(w, r)
	}))
	s, g := serve(t, Config{Passwords: fixedPasswords{}, Admins: AdminUsers{"root"}, Public: []string{"/health/liveness"}}, mux)
	tok, _ := g.Tokens().Issue("u")
	rootTok, _ := g.Tokens().Issue("root")
	for _, c := range []struct {
		path, token string
		want        int
		body        string
	}{
		{"/data", "", 401, "Missing token"},
		{"/admin/x", "", 401, "Missing token"},
		{"/data", tok, 200, "data for u"},
		{"/admin/x", tok, 403, "not an admin"},
		{"/admin/x", rootTok, 200, "admin"},
		{"/health/liveness", "", 200, "served"},
	} {
		res, body := send(t, s, "GET", c.path, map[string]string{TokenHeader: c.token}, "")
		if res.StatusCode != c.want || !strings.Contains(body, c.body) {
			t.Errorf("%s with %q: %d %s, want %d %q", c.path, c.token, res.StatusCode, body, c.want, c.body)
		}
	}
	// POST /v1/auth: Stargate's shape.
	res, body := send(t, s, "POST", AuthPath, map[string]string{"Content-Type": "application/json"}, `{"username":"u","password":"p"}`)
	if res.StatusCode != http.StatusCreated || !strings.Contains(body, `"authToken":"`) {
		t.Errorf("login: %d %s", res.StatusCode, body)
	}
	res, body = send(t, s, "GET", AuthPath, nil, "")
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /v1/auth: %d %s", res.StatusCode, body)
	}
}

// TestTokenStore: tokens are unique, expire, and the store stays bounded.
func TestTokenStore(t *testing.T) {
	now := time.Unix(1000, 0)
	st := NewTokenStore(time.Minute, 4, func() time.Time { return now })
	a, _ := st.Issue("a")
	b, _ := st.Issue("b")
	if a == b || len(a) != 64 {
		t.Fatalf("tokens %q %q", a, b)
	}
	if u, ok := st.Lookup(a); !ok || u != "a" {
		t.Errorf("lookup a: %q %v", u, ok)
	}
	if _, ok := st.Lookup(a[:63] + "x"); ok {
		t.Error("a changed token was accepted")
	}
	for i := 0; i < 20; i++ {
		st.Issue("c")
	}
	if n := st.Len(); n > 4 {
		t.Errorf("store holds %d tokens, max 4", n)
	}
	now = now.Add(2 * time.Minute)
	if _, ok := st.Lookup(b); ok {
		t.Error("expired token accepted")
	}
}

// TestLoginBackoff: after five bad passwords from one address, POST
// /v1/auth answers 429 with Retry-After, even for the right password, until
// the backoff passes; a good login clears the count.
func TestLoginBackoff(t *testing.T) {
	s, g := serve(t, Config{Passwords: fixedPasswords{}}, nil)
	var mu sync.Mutex
	now := time.Now()
	g.logins.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	login := func(pass string) (int, string) {
		res, body := send(t, s, "POST", AuthPath, nil, `{"username":"u","password":"`+pass+`"}`)
		return res.StatusCode, res.Header.Get("Retry-After") + " " + body
	}
	for i := 0; i < freeFailures; i++ {
		if st, b := login("bad"); st != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d %s", i+1, st, b)
		}
	}
	if st, b := login("p"); st != http.StatusTooManyRequests || !strings.HasPrefix(b, "1 ") {
		t.Fatalf("after %d failures: %d %s, want 429 with Retry-After: 1", freeFailures, st, b)
	}
	mu.Lock()
	now = now.Add(1100 * time.Millisecond)
	mu.Unlock()
	if st, b := login("bad"); st != http.StatusUnauthorized {
		t.Fatalf("after the backoff: %d %s", st, b)
	}
	if st, b := login("bad"); st != http.StatusTooManyRequests || !strings.HasPrefix(b, "2 ") {
		t.Fatalf("next backoff: %d %s, want 429 with Retry-After: 2", st, b)
	}
	mu.Lock()
	now = now.Add(3 * time.Second)
	mu.Unlock()
	if st, b := login("p"); st != http.StatusCreated {
		t.Fatalf("right password after the backoff: %d %s", st, b)
	}
	if st, b := login("bad"); st != http.StatusUnauthorized {
		t.Errorf("a good login did not clear the count: %d %s", st, b)
	}
}
