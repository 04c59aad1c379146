package httpsec

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Header names of the token, as in Stargate.
const (
	TokenHeader = "X-Cassandra-Token"
	AuthPath    = "/v1/auth"
)

// Defaults of Config.
const (
	DefaultMaxInFlight    = 256
	DefaultMaxBodyBytes   = 4 << 20
	DefaultRequestTimeout = 30 * time.Second
)

// Timeouts of dohyo serve's HTTP server (http.Server fields) unless
// configured otherwise.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 30 * time.Second
	DefaultWriteTimeout      = 60 * time.Second
	DefaultIdleTimeout       = 2 * time.Minute
)

// PasswordChecker verifies a user name and password (the CQL listener's
// user store: cqlserver.PasswordAuthenticator).
type PasswordChecker interface {
	CheckPassword(user, password string) bool
}

// AdminPolicy decides who may use the admin endpoints (capture control,
// pprof).
type AdminPolicy interface {
	IsAdmin(ctx context.Context, identity string) bool
}

// AdminUsers is an AdminPolicy naming the admin users; empty: nobody.
type AdminUsers []string

// IsAdmin implements AdminPolicy.
func (a AdminUsers) IsAdmin(_ context.Context, identity string) bool {
	return identity != "" && slices.Contains(a, identity)
}

// Config configures a Guard.
type Config struct {
	// Passwords turns authentication on: every request except the public
	// paths needs a token from POST /v1/auth. Nil: authentication off.
	Passwords PasswordChecker
	// Tokens keeps issued tokens; nil: a NewTokenStore(0, 0, nil).
	Tokens *TokenStore
	// Admins decides who may pass RequireAdmin when authentication is on;
	// nil: nobody.
	Admins AdminPolicy
	// Public lists paths served without identity, without the in-flight
	// limit and (for GET and HEAD) without the Origin check: health
	// probes and static pages. A path ending in "/" is a prefix.
	Public []string
	// Hosts are the Host header names accepted besides IP literals and
	// localhost names ("*": any, which turns DNS-rebinding protection off).
	Hosts []string
	// AllowedOrigins are the browser origins (scheme://host[:port]) that
	// may call the API from another page; CORS answers only them. Empty:
	// same-origin requests only.
	AllowedOrigins []string
	// MaxInFlight bounds requests being served at once (public paths
	// excluded); more are answered 503 with Retry-After. 0: DefaultMaxInFlight.
	MaxInFlight int
	// MaxBodyBytes bounds request bodies; 0: DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// RequestTimeout is each request's deadline, carried in its ctx as a
	// value (RequestDeadline) for the handler to bound its work by (the
	// GraphQL server folds it into every statement's budget); 0:
	// DefaultRequestTimeout.
	RequestTimeout time.Duration
	// Logger receives refusals at debug level; nil discards.
	Logger *slog.Logger
}

// Guard is the HTTP listener's front door (see the package comment).
type Guard struct {
	cfg      Config
	log      *slog.Logger
	inflight atomic.Int64           // requests being served (public paths excluded)
	lastHost atomic.Pointer[string] // the last Host header accepted: most requests repeat it
	logins   *loginThrottle
}

// New returns a Guard.
func New(cfg Config) (*Guard, error) {
	if cfg.MaxInFlight < 0 || cfg.MaxBodyBytes < 0 || cfg.RequestTimeout < 0 {
		return nil, errors.New("httpsec: MaxInFlight, MaxBodyBytes and RequestTimeout must not be negative")
	}
	if cfg.MaxInFlight == 0 {
		cfg.MaxInFlight = DefaultMaxInFlight
	}
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.Tokens == nil {
		cfg.Tokens = NewTokenStore(0, 0, nil)
	}
	for _, o := range cfg.AllowedOrigins {
		if u, err := url.Parse(o); err != nil || u.Scheme == "" || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return nil, errors.New("httpsec: allowed origin " + strconv.Quote(o) + " is not scheme://host[:port]")
		}
	}
	g := &Guard{cfg: cfg, log: cfg.Logger,
		logins: newLoginThrottle(time.Now)}
	if g.log == nil {
		g.log = slog.New(slog.DiscardHandler)
	}
	return g, nil
}

// AuthEnabled tells whether requests need a token.
func (g *Guard) AuthEnabled() bool { return g.cfg.Passwords != nil }

// Tokens is the guard's token store.
func (g *Guard) Tokens() *TokenStore { return g.cfg.Tokens }

// Handler wraps next: every request passes the Host, Origin, in-flight,
// body-size, deadline and identity checks; POST /v1/auth is answered here.
func (g *Guard) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.hostAllowed(r.Host) {
			g.refuse(w, r, http.StatusMisdirectedRequest, "Host "+strconv.Quote(r.Host)+" is not served here (configure http-host)")
			return
		}
		public := g.public(r.URL.Path)
		origin := r.Header.Get("Origin")
		if r.Method == http.MethodOptions && origin != "" && r.Header.Get("Access-Control-Request-Method") != "" {
			g.preflight(w, r, origin)
			return
		}
		if !(public && (r.Method == http.MethodGet || r.Method == http.MethodHead)) {
			if msg := g.crossSite(r, origin); msg != "" {
				g.refuse(w, r, http.StatusForbidden, msg)
				return
			}
		}
		if origin != "" && g.originListed(origin) {
			w.Header().Set("Access-Control-Allow-Origin", origin)
			w.Header().Add("Vary", "Origin")
		}
		switch {
		case r.ContentLength > g.cfg.MaxBodyBytes:
			g.refuse(w, r, http.StatusRequestEntityTooLarge, "Request body of "+strconv.FormatInt(r.ContentLength, 10)+
				" bytes is over the limit of "+strconv.FormatInt(g.cfg.MaxBodyBytes, 10)+" (http-max-body-bytes)")
			return
		case r.ContentLength < 0 && r.Body != nil && r.Body != http.NoBody:
			// Chunked: net/http bounds a body with a Content-Length by
			// that length itself, so only these need the wrapper.
			r.Body = http.MaxBytesReader(w, r.Body, g.cfg.MaxBodyBytes)
		}
		if public {
			next.ServeHTTP(w, r)
			return
		}
		if g.inflight.Add(1) > int64(g.cfg.MaxInFlight) {
			g.inflight.Add(-1)
			w.Header().Set("Retry-After", "1")
			g.refuse(w, r, http.StatusServiceUnavailable, "Too many HTTP requests in flight; retry later")
			return
		}
		defer g.inflight.Add(-1)
		if r.URL.Path == AuthPath {
			g.serveAuth(w, r)
			return
		}
		info := &requestInfo{deadline: time.Now().Add(g.cfg.RequestTimeout)}
		if g.cfg.Passwords != nil {
			user, ok := g.cfg.Tokens.Lookup(requestToken(r))
			if !ok {
				msg := "Missing or invalid token: get one from POST " + AuthPath + " and send it in " + TokenHeader
				if requestToken(r) == "" {
					msg = "Missing token: set header " + TokenHeader + " (get one from POST " + AuthPath + ")"
				}
				g.refuse(w, r, http.StatusUnauthorized, msg)
				return
			}
			info.identity, info.authenticated = user, true
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestInfoKey{}, info)))
	})
}

// RequireAdmin lets only admins through when authentication is on (403
// otherwise); with authentication off it changes nothing.
func (g *Guard) RequireAdmin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.cfg.Passwords != nil {
			id, _ := IdentityFrom(r.Context())
			if g.cfg.Admins == nil || !g.cfg.Admins.IsAdmin(r.Context(), id) {
				g.refuse(w, r, http.StatusForbidden, "User "+id+" is not an admin (configure admin-user)")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// requestToken reads X-Cassandra-Token, else Authorization: Bearer. Tokens
// are never read from cookies or the URL, so a browser never sends one
// on its own.
func requestToken(r *http.Request) string {
	if t := r.Header.Get(TokenHeader); t != "" {
		return t
	}
	if a := r.Header.Get("Authorization"); len(a) > 7 && strings.EqualFold(a[:7], "bearer ") {
		return strings.TrimSpace(a[7:])
	}
	return ""
}

func (g *Guard) public(path string) bool {
	for _, p := range g.cfg.Public {
		if path == p || (strings.HasSuffix(p, "/") && strings.HasPrefix(path, p)) {
			return true
		}
	}
	return false
}

// hostAllowed accepts IP literals (a rebinding attack needs a name), the
// localhost names, and the configured names.
func (g *Guard) hostAllowed(hostport string) bool {
	if last := g.lastHost.Load(); last != nil && *last == hostport {
		return true
	}
	if !g.hostAllowedSlow(hostport) {
		return false
	}
	h := hostport // only this copy escapes
	g.lastHost.Store(&h)
	return true
}

func (g *Guard) hostAllowedSlow(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if host == "" {
		return false
	}
	if net.ParseIP(host) != nil || host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	for _, h := range g.cfg.Hosts {
		if h == "*" || strings.EqualFold(h, host) {
			return true
		}
	}
	return false
}

// crossSite explains why a request from another site is refused ("" when
// it is not refused): a browser announces one with Origin (any
// non-same-origin fetch or form POST) or Sec-Fetch-Site (also an <img>).
func (g *Guard) crossSite(r *http.Request, origin string) string {
	if origin != "" {
		if g.sameOrigin(r, origin) || g.originListed(origin) {
			return ""
		}
		return "Cross-origin request from " + strconv.Quote(origin) + " refused (configure http-allowed-origin)"
	}
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
		return ""
	}
	return "Cross-site request refused (configure http-allowed-origin)"
}

func (g *Guard) sameOrigin(r *http.Request, origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return u.Scheme == scheme && strings.EqualFold(u.Host, r.Host)
}

func (g *Guard) originListed(origin string) bool {
	for _, o := range g.cfg.AllowedOrigins {
		if strings.EqualFold(strings.TrimSuffix(o, "/"), origin) {
			return true
		}
	}
	return false
}

// preflight answers a CORS preflight: allowed origins only.
func (g *Guard) preflight(w http.ResponseWriter, r *http.Request, origin string) {
	if !g.originListed(origin) {
		g.refuse(w, r, http.StatusForbidden, "Cross-origin request from "+strconv.Quote(origin)+" refused (configure http-allowed-origin)")
		return
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Allow-Methods", "GET, POST")
	h.Set("Access-Control-Allow-Headers", "Content-Type, Authorization, "+TokenHeader+", X-Dohyo-Budget-Ms, traceparent, tracestate")
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
}

func (g *Guard) refuse(w http.ResponseWriter, r *http.Request, status int, msg string) {
	g.log.Debug("http request refused", "status", status, "method", r.Method, "path", r.URL.Path,
		"remote", r.RemoteAddr, "reason", msg)
	WriteError(w, status, msg)
}

// WriteError answers a JSON error in GraphQL's shape.
func WriteError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"errors": []any{map[string]any{"message": msg}}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// ServerProtocols is what dohyo's HTTP listener speaks: HTTP/1.1 (with
// keep-alive) and HTTP/2 without TLS (h2c with prior knowledge, as gRPC
// style and HTTP/2-only clients connect), so clients that multiplex
// requests on one connection can.
func ServerProtocols() *http.Protocols {
	p := new(http.Protocols)
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	return p
}
