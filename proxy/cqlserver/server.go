package cqlserver

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/internal/rawnet"
	"github.com/dohyo/dohyo/proxy"
	"github.com/dohyo/dohyo/proxy/systemks"
	"github.com/dohyo/dohyo/schema"
	"github.com/dohyo/dohyo/telemetry"
)

// DefaultRequestTimeout is dohyo serve's request-timeout (a zero
// Config.RequestTimeout means no limit, not this).
const DefaultRequestTimeout = 5 * time.Second

// Defaults for Config fields left zero.
const (
	DefaultClusterName    = "dohyo"
	DefaultNumTokens      = 16
	DefaultMaxFrameBytes  = 16 << 20 // Cassandra 4+: native_transport_max_frame_size
	DefaultReleaseVersion = "5.0.0"
	DefaultDataCenter     = "datacenter1"
	DefaultRack           = "rack1"
	DefaultMaxInFlight    = 2048
	// Connection guards (guard.go); Config documents each.
	DefaultPreAuthFrameBytes     = 256 << 10
	DefaultHandshakeTimeout      = 10 * time.Second
	DefaultFrameReadTimeout      = 30 * time.Second
	DefaultWriteTimeout          = 30 * time.Second
	DefaultMaxPendingConnections = 512
	DefaultOutboundBytes         = 8 << 20
	// CQLVersion is the CQL language version dohyo speaks (Cassandra 5.0's).
	CQLVersion = "3.4.7"
)

// Config configures a Server.
type Config struct {
	Coordinator *proxy.Coordinator
	Logger      *slog.Logger

	// ClusterName is system.local's cluster_name.
	ClusterName string
	// Peers are the CQL host:port of the other dohyo instances; they are
	// listed in system.peers so drivers spread load over them.
	Peers []string
	// Members, when set, returns the live other instances of the tier found
	// through the shared backend (dohyo serve's membership); they are
	// listed in system.peers next to Peers, each with its schema version.
	Members func() []Member
	// NumTokens is the number of Murmur3 tokens each instance owns.
	NumTokens int
	// MaxFrameBytes bounds a frame body (and a decompressed body) once the
	// connection is ready (after READY or AUTH_SUCCESS).
	MaxFrameBytes int
	// PreAuthFrameBytes bounds a frame body (and a decompressed body)
	// before that: OPTIONS, STARTUP and AUTH_RESPONSE are small. It is
	// capped at MaxFrameBytes.
	PreAuthFrameBytes int
	// HandshakeTimeout bounds the time from accept to READY or
	// AUTH_SUCCESS; a connection that has not finished by then is closed
	// (negative: no limit).
	HandshakeTimeout time.Duration
	// IdleTimeout closes a connection that sent nothing for this long
	// while none of its requests was in flight and none of its answers
	// unsent (0: never; drivers send OPTIONS heartbeats every 30 s).
	IdleTimeout time.Duration
	// FrameReadTimeout bounds the time from a frame's first byte to its
	// last (slowloris); negative: no limit.
	FrameReadTimeout time.Duration
	// WriteTimeout closes a connection whose client accepted none of our
	// bytes for this long (negative: no limit).
	WriteTimeout time.Duration
	// MaxPendingConnections bounds connections that have not finished
	// the handshake; they do not count against MaxConnections. When it is
	// reached, the oldest such connection is closed to admit the new one
	// (negative: no limit).
	MaxPendingConnections int
	// OutboundBytes is a connection's budget of unsent answer bytes: while
	// answers (and the estimated answers of requests in flight) exceed it,
	// the connection's socket is not read (back-pressure).
	OutboundBytes int
	// AuthBackoff delays the answers to failed authentications per client
	// address (zero value: defaults of AuthBackoffConfig).
	AuthBackoff AuthBackoffConfig
	// ReleaseVersion is system.local's release_version; drivers pick their
	// schema queries from it, so it should look like a Cassandra version.
	ReleaseVersion string
	// ListenAddr is the host:port this instance advertises as rpc_address
	// and rpc_port. Empty: the address each client connected to.
	ListenAddr string
	// DataCenter and Rack are reported for every instance.
	DataCenter, Rack string
	// MaxInFlightPerConn bounds concurrently executing requests of one
	// connection; beyond it requests are answered with an Overloaded error
	// (after waiting up to InFlightWait) instead of being queued.
	MaxInFlightPerConn int
	// MaxInFlight bounds concurrently executing requests of the whole
	// server, answered like MaxInFlightPerConn (0: no server-wide limit).
	MaxInFlight int
	// InFlightWait is how long a request may wait for a free in-flight
	// slot before it is answered Overloaded (0: answer at once). The
	// connection's reader waits, so this is bounded back-pressure.
	InFlightWait time.Duration
	// MaxConnections bounds open client connections (0: no limit). A
	// connection beyond it is accepted, its STARTUP answered with an
	// Overloaded error naming the limit, and closed: drivers report the
	// message and retry later, as they do for a node that is down.
	MaxConnections int
	// RequestTimeout bounds each QUERY, EXECUTE and BATCH (0: none). When it
	// passes, the client is answered at once with a ReadTimeout (reads) or
	// WriteTimeout (writes) and the backend call is canceled. Schema
	// changes and PREPARE are not bounded, as in Cassandra.
	RequestTimeout time.Duration
	// TLS, when set, is required on every connection (Serve and ServeConn).
	// With ClientAuth set to RequireAndVerifyClientCert it is mutual TLS.
	TLS *tls.Config
	// Authenticator enables SASL authentication; nil admits every client.
	Authenticator Authenticator
	// Clock is the time source (tests); nil means time.Now.
	Clock func() time.Time
	// Relays maps backend names to their raw-frame last hops (Cassandra's
	// relay, bindings/cassandra/relay): requests routed to such a backend
	// travel as raw frames (DESIGN D2) instead of being executed through
	// the backend's bindings.Backend. A relayer's other capabilities
	// (bindings.PreparedFinder, TraceEventSource, SchemaRowSource) are
	// found by type assertion.
	Relays map[string]bindings.FrameRelayer
	// KeyspaceTimeouts overrides RequestTimeout for some keyspaces (0: no
	// limit there). Clients may tighten a request's budget with the
	// custom payload entry dohyo-budget-ms (traces.go, budget.go).
	KeyspaceTimeouts map[string]time.Duration
	// OnBudgetExceeded, when set, is called with the keyspace of each
	// request answered with a timeout (metrics).
	OnBudgetExceeded func(keyspace string)
	// Tracer traces requests (OpenTelemetry spans, trace context from the
	// custom payload); nil: no OpenTelemetry. The TRACING flag works
	// either way (system_traces).
	Tracer *telemetry.Tracer
}

// Server is the CQL native-protocol server.
type Server struct {
	cfg   Config
	coord *proxy.Coordinator
	log   *slog.Logger
	now   func() time.Time
	start time.Time
	vt    *systemks.Backend
	// relays: backend name -> relay (read-only after New).
	relays map[string]bindings.FrameRelayer
	// asyncs recycles the relay fast path's asyncRelays (relay_async.go).
	asyncs      sync.Pool
	relayTraces *relayTraces
	// tel: tracing and request budgets (budget.go).
	tel *serverTelemetry

	// hard is canceled when Shutdown's grace period ends: in-flight
	// requests are abandoned and connections closed.
	hard       context.Context
	hardCancel context.CancelFunc

	mu        sync.Mutex
	closing   bool
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}
	evConns   map[*conn]struct{} // registered for events (conn.evTypes says which)
	connWG    sync.WaitGroup
	active    int // conns past their handshake, not being refused (guarded by mu)
	rejecting int // conns kept open only to be refused (guarded by mu)

	// Limits and their counters (limit.go).
	slots         limiter // server-wide in-flight slots
	inflight      atomic.Int64
	rejectedConns atomic.Uint64
	overloaded    atomic.Uint64
	timedOut      atomic.Uint64
	authFailures  atomic.Uint64
	rejectLog     rateLog
	overloadLog   rateLog
	// guards: pre-auth budget, deadlines, counters (guard.go).
	guard guardState
}

// New validates cfg, fills defaults, and registers the virtual system
// keyspaces and the schema-change subscription with the coordinator. Call
// it before the coordinator serves requests.
func New(cfg Config) (*Server, error) {
	if cfg.Coordinator == nil {
		return nil, errors.New("cqlserver: no coordinator")
	}
	if cfg.ClusterName == "" {
		cfg.ClusterName = DefaultClusterName
	}
	if cfg.NumTokens <= 0 {
		cfg.NumTokens = DefaultNumTokens
	}
	if cfg.MaxFrameBytes <= 0 {
		cfg.MaxFrameBytes = DefaultMaxFrameBytes
	}
	cfg.fillGuardDefaults()
	if cfg.ReleaseVersion == "" {
		cfg.ReleaseVersion = DefaultReleaseVersion
	}
	if cfg.DataCenter == "" {
		cfg.DataCenter = DefaultDataCenter
	}
	if cfg.Rack == "" {
		cfg.Rack = DefaultRack
	}
	if cfg.MaxInFlightPerConn <= 0 {
		cfg.MaxInFlightPerConn = DefaultMaxInFlight
	}
	if cfg.ListenAddr != "" {
		if _, _, err := net.SplitHostPort(cfg.ListenAddr); err != nil {
			return nil, fmt.Errorf("cqlserver: listen address %q: %w", cfg.ListenAddr, err)
		}
	}
	for _, p := range cfg.Peers {
		if _, _, err := net.SplitHostPort(p); err != nil {
			return nil, fmt.Errorf("cqlserver: peer %q: %w", p, err)
		}
	}
	s := &Server{
		cfg:    cfg,
		relays: cfg.Relays,

		relayTraces: newRelayTraces(),
		coord:       cfg.Coordinator,
		log:         cfg.Logger,
		now:         cfg.Clock,
		listeners:   map[net.Listener]struct{}{},
		conns:       map[*conn]struct{}{},
		evConns:     map[*conn]struct{}{},
		slots:       newLimiter(cfg.MaxInFlight),
	}
	s.guard.init(cfg.AuthBackoff)
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.start = s.now()
	s.hard, s.hardCancel = context.WithCancel(context.Background())
	s.initTelemetry()
	s.vt = systemks.New(s.systemConfig())
	for _, ks := range systemks.Keyspaces() {
		s.coord.AddVirtual(ks, s.vt)
	}
	s.coord.Subscribe(s.onSchemaChange)
	return s, nil
}

// Serve accepts connections on ln until Shutdown is called or ctx ends; it
// then returns nil. Connections keep being served until Shutdown (or until
// their in-flight requests finish, when ctx ends).
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		ln.Close()
		return nil
	}
	ln = rawnet.Listener{Listener: ln}
	if s.cfg.TLS != nil {
		ln = tls.NewListener(ln, s.cfg.TLS)
	}
	s.listeners[ln] = struct{}{}
	s.mu.Unlock()
	stop := context.AfterFunc(ctx, s.beginShutdown)
	defer stop()
	base := context.WithoutCancel(ctx)
	var delay time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if s.isClosing() {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				// Transient (e.g. too many open files): back off as net/http does.
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				s.log.Warn("cql accept", "err", err, "retry_in", delay)
				time.Sleep(delay)
				continue
			}
			return fmt.Errorf("cql accept: %w", err)
		}
		delay = 0
		c, ok := s.track(nc)
		if !ok {
			continue
		}
		go func() {
			defer s.connWG.Done()
			c.serve(base)
		}()
	}
}

// ServeConn serves one connection on the calling goroutine until the client
// goes away, a protocol error closes it, ctx ends or the server shuts down.
func (s *Server) ServeConn(ctx context.Context, nc net.Conn) {
	if _, isTLS := nc.(*tls.Conn); s.cfg.TLS != nil && !isTLS {
		nc = tls.Server(nc, s.cfg.TLS)
	}
	c, ok := s.track(nc)
	if !ok {
		return
	}
	defer s.connWG.Done()
	c.serve(ctx)
}

// track registers a new connection; it refuses (and closes) nc once the
// server is shutting down. connWG.Add happens under mu before closing is
// set, so Shutdown's Wait never races an Add. Beyond MaxConnections the
// connection is marked to be refused at STARTUP (or closed at once when
// too many are already being refused).
func (s *Server) track(nc net.Conn) (*conn, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		nc.Close()
		return nil, false
	}
	refuse := s.cfg.MaxConnections > 0 && s.active >= s.cfg.MaxConnections
	c := newConn(s, nc)
	if refuse {
		s.rejectedConns.Add(1)
		if s.rejecting >= maxRejecting {
			s.noteRejected(nc.RemoteAddr().String(), false)
			nc.Close()
			return nil, false
		}
		s.noteRejected(nc.RemoteAddr().String(), true)
		s.rejecting++
	} else {
		s.admitPending(c)
	}
	c.refused = refuse
	s.conns[c] = struct{}{}
	s.connWG.Add(1)
	return c, true
}

func (s *Server) untrack(c *conn) {
	s.mu.Lock()
	if _, ok := s.conns[c]; ok {
		switch {
		case c.refused:
			s.rejecting--
		case c.promoted:
			s.active--
		}
	}
	if c.pendingElem != nil {
		s.guard.pending.Remove(c.pendingElem)
		c.pendingElem = nil
	}
	delete(s.conns, c)
	delete(s.evConns, c)
	s.mu.Unlock()
}

func (s *Server) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// beginShutdown stops accepting and tells every connection to stop reading
// new requests; in-flight requests finish and connections then close.
func (s *Server) beginShutdown() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closing = true
	for ln := range s.listeners {
		ln.Close()
	}
	clear(s.listeners)
	for c := range s.conns {
		c.stopReading()
	}
}

// Shutdown stops accepting connections, lets in-flight requests finish
// until ctx ends, and closes every connection. It returns ctx's error when
// the grace period ran out and requests were abandoned.
func (s *Server) Shutdown(ctx context.Context) error {
	s.beginShutdown()
	done := make(chan struct{})
	go func() {
		s.connWG.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		s.hardCancel()
		<-done
		return fmt.Errorf("cqlserver shutdown: %w", ctx.Err())
	}
}

// onSchemaChange pushes a SCHEMA_CHANGE event to registered connections.
func (s *Server) onSchemaChange(ch *bindings.SchemaChange) {
	if ch == nil {
		return
	}
	for _, c := range s.eventTargets(eventSchema) {
		c.pushEvent(ch)
	}
}

// registerEvents subscribes c to the events of its evTypes.
func (s *Server) registerEvents(c *conn) {
	s.mu.Lock()
	if _, live := s.conns[c]; live {
		s.evConns[c] = struct{}{}
	}
	s.mu.Unlock()
}

// Member is another dohyo instance of the tier (systemks.Member).
type Member = systemks.Member

// systemConfig is what the system keyspaces report: this server's
// identity, its tier, its traces and its relays' own system_schema rows.
func (s *Server) systemConfig() systemks.Config {
	sc := systemks.Config{
		Coordinator: s.coord, ClusterName: s.cfg.ClusterName, CQLVersion: CQLVersion,
		ReleaseVersion: s.cfg.ReleaseVersion, DataCenter: s.cfg.DataCenter, Rack: s.cfg.Rack,
		ListenAddr: s.cfg.ListenAddr, Peers: s.cfg.Peers, Members: s.cfg.Members,
		NumTokens: s.cfg.NumTokens, Start: s.start, Logger: s.log,
		Traces: s.tel.tracer.Sessions(), TraceEvents: s.relayTraces,
	}
	if len(s.relays) > 0 {
		sc.SchemaSources = make(map[string]systemks.SchemaSource, len(s.relays))
		for name, rl := range s.relays {
			if src, ok := rl.(bindings.SchemaRowSource); ok {
				sc.SchemaSources[name] = src
			}
		}
	}
	return sc
}

// SystemKeyspaces returns the definitions of the system keyspaces this
// server answers itself (system, system_schema, ...), by name. They are
// shared, read-only values: callers must not modify them.
func (s *Server) SystemKeyspaces() map[string]*schema.Keyspace {
	return s.vt.SystemKeyspaces()
}
