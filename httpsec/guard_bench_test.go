package httpsec

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkGuardHandler measures what the guard adds to one request in
// isolation (no network, no GraphQL): a POST with a small body through
// the guard with authentication off, and through the guard with a token,
// against a handler that only drains the body.
func BenchmarkGuardHandler(b *testing.B) {
	sink := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		buf := make([]byte, 64)
		for {
			if _, err := r.Body.Read(buf); err != nil {
				break
			}
		}
	})
	const body = `{"query":"{ kv(value: {k: 42}) { values { k v } } }"}`
	run := func(b *testing.B, h http.Handler, token string) {
		w := httptest.NewRecorder()
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080/graphql/ks", strings.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			if token != "" {
				r.Header.Set(TokenHeader, token)
			}
			h.ServeHTTP(w, r)
		}
	}
	b.Run("no-guard", func(b *testing.B) { run(b, sink, "") })
	b.Run("auth-off", func(b *testing.B) {
		g, err := New(Config{})
		if err != nil {
			b.Fatal(err)
		}
		run(b, g.Handler(sink), "")
	})
	b.Run("token", func(b *testing.B) {
		tokens := NewTokenStore(0, 0, nil)
		g, err := New(Config{Passwords: fixedPasswords{}, Tokens: tokens})
		if err != nil {
			b.Fatal(err)
		}
		tok, _ := tokens.Issue("u")
		run(b, g.Handler(sink), tok)
	})
}
