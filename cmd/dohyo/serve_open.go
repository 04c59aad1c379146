package main

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/capture/control"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/graphql"
	"github.com/dohyo/dohyo/metrics"
	"github.com/dohyo/dohyo/mirror"
	"github.com/dohyo/dohyo/proxy"
	"github.com/dohyo/dohyo/proxy/cqlserver"
	"github.com/dohyo/dohyo/schema"
)

// closers are what newServer opened so far, closed in reverse order when
// a later step fails.
type closers []func() error

// add appends fn and returns its index (see set).
func (c *closers) add(fn func() error) int {
	*c = append(*c, fn)
	return len(*c) - 1
}

// set replaces the closer at i (a later owner closes the same thing).
func (c closers) set(i int, fn func() error) { c[i] = fn }

// closeAll closes everything, last opened first.
func (c closers) closeAll() error {
	var errs []error
	for i := len(c) - 1; i >= 0; i-- {
		errs = append(errs, c[i]())
	}
	return errors.Join(errs...)
}

// serveSecurity are serve's credentials and certificates, loaded before
// anything is opened.
type serveSecurity struct {
	users   map[string]string // configured users: name -> bcrypt hash
	cqlTLS  *tls.Config
	httpTLS *tls.Config
}

func loadServeSecurity(cfg Config) (serveSecurity, error) {
	var sec serveSecurity
	var err error
	if sec.users, err = authUsers(cfg); err != nil {
		return sec, err
	}
	if sec.cqlTLS, err = cqlTLS(cfg); err != nil {
		return sec, err
	}
	sec.httpTLS, err = httpTLS(cfg)
	return sec, err
}

// newServer opens the backends, the coordinator, capture (when configured)
// and the listeners. On error everything opened is closed again.
func newServer(ctx context.Context, cfg Config, log *slog.Logger) (*server, error) {
	return newServerWith(ctx, cfg, log, serverHooks{})
}

// serverHooks are construction-time seams for the CLI's in-process tests
// (the zero value: none). They are consulted once, while the server
// opens, never per request.
type serverHooks struct {
	// wrapBackend, if set, wraps each backend as it is opened (tests
	// inject faults above the engine with bindings/faulty).
	wrapBackend func(url string, b bindings.Backend) bindings.Backend
}

// newServerWith is newServer with hooks.
func newServerWith(ctx context.Context, cfg Config, log *slog.Logger, hooks serverHooks) (_ *server, err error) {
	log.Info("starting dohyo", append([]any{"version", buildVersion()}, cfg.redacted()...)...)
	s := &server{cfg: cfg, log: log, reg: metrics.NewRegistry(), known: &metrics.KeyspaceSet{}, hooks: hooks}
	var cl closers
	defer func() {
		if err != nil {
			err = errors.Join(err, cl.closeAll())
		}
	}()
	sec, err := loadServeSecurity(cfg)
	if err != nil {
		return nil, err
	}
	s.httpTLS = sec.httpTLS
	m, err := metrics.New(s.reg, buildVersion())
	if err != nil {
		return nil, err
	}
	if err := s.openCoordinator(ctx, sec.users, m, &cl); err != nil {
		return nil, err
	}
	authn, pw, err := s.startRelays(ctx, sec.users, m, &cl)
	if err != nil {
		return nil, err
	}
	if err := s.newFrontEnds(ctx, sec.cqlTLS, authn, pw, m, &cl); err != nil {
		return nil, err
	}
	if cfg.CaptureDir != "" {
		if _, err := s.tap.Start(ctx, ""); err != nil {
			return nil, err
		}
		cl.add(func() error { _, err := s.tap.Stop(context.Background()); return err })
	}
	if err := s.listen(&cl); err != nil {
		return nil, err
	}
	if err := s.newHTTPServers(pw, m); err != nil {
		return nil, err
	}
	return s, nil
}

// catalog is the coordinator's schema (for GRANT's resources and
// capture's schema snapshots).
func (s *server) catalog(ctx context.Context) (*schema.Catalog, error) {
	if s.coord == nil {
		return nil, errors.New("no coordinator yet")
	}
	return s.coord.Catalog(ctx)
}

// backendLabel is the metrics label of the backend keyspace ks is routed to.
func (s *server) backendLabel(ks string) string {
	return s.labels.get(s.coord.Route(ks).Name)
}

// openCoordinator opens the backends, dohyo's roles, the capture switch
// and the mirrors, then the coordinator over them, reporting to the
// request metrics, then capture and the mirrors.
func (s *server) openCoordinator(ctx context.Context, users map[string]string, m *metrics.Metrics, cl *closers) error {
	cfg, log := s.cfg, s.log
	var err error
	if s.set, err = openBackends(ctx, cfg.Backend, cfg.Routes, cfg.thresholds(), s.hooks.wrapBackend); err != nil {
		return err
	}
	setCloser := cl.add(s.set.close)
	capCfg, err := captureConfig(cfg, log)
	if err != nil {
		return err
	}
	if s.roles, err = roleManager(s.set, users, s.catalog, log); err != nil {
		return err
	}
	s.tap = control.New(control.Config{Writer: capCfg, Root: captureRoot(cfg), Logger: log, Catalog: s.catalog})
	next, stamp, err := s.openMirrors(ctx, cl)
	if err != nil {
		return err
	}
	requestTap := m.Tap(metrics.TapConfig{Next: next, Keyspaces: s.known, Backend: s.backendLabel})
	s.coord, err = proxy.New(proxy.Config{
		Backends:          s.set.byName,
		Default:           s.set.def,
		Routes:            s.set.routes,
		PreparedCacheSize: cfg.PreparedCache,
		Tap:               requestTap,
		Logger:            log,
		Auth:              s.roles,
		EnforceAuth:       len(users) > 0,
		AuthExempt:        relayedBackends(s.set),
		Stamp:             stamp,
	})
	if err != nil {
		return err
	}
	cl.set(setCloser, s.coord.Close) // closes the backends too
	s.coord.Subscribe(s.tap.SchemaChanged)
	s.coord.Subscribe(func(*bindings.SchemaChange) { s.refreshKeyspaces(context.Background()) })
	s.refreshKeyspaces(ctx)
	watchSharedSchema(s.set, s.coord)
	return nil
}

// openMirrors opens the mirrors of --mirror (none without) and returns
// the taps the coordinator reports to (capture, then the mirror) and the
// mirror's timestamp rule (nil without one).
func (s *server) openMirrors(ctx context.Context, cl *closers) (proxy.Tap, func(string, cql.Statement) bool, error) {
	mir, backends, err := openMirror(ctx, s.cfg, s.log)
	if err != nil || mir == nil {
		return s.tap, nil, err
	}
	s.mirror = mir
	s.closeMirror = func() error {
		mir.Close() // applies what is queued (each request bounded by its timeout)
		var errs []error
		for _, b := range backends {
			errs = append(errs, b.Close())
		}
		return errors.Join(errs...)
	}
	cl.add(s.closeMirror)
	if err := s.reg.Register(mir.Collector()); err != nil {
		return nil, nil, err
	}
	return proxy.Taps{s.tap, mir}, mir.Stamp, nil
}

// startRelays starts the relays to relayable backends and picks CQL's
// authenticator: dohyo's users when configured (pw, shared with the HTTP
// door's POST /v1/auth), else a relayed Cassandra's own (pass-through).
func (s *server) startRelays(ctx context.Context, users map[string]string, m *metrics.Metrics, cl *closers) (
	authn cqlserver.Authenticator, pw *cqlserver.PasswordAuthenticator, err error) {
	if s.relays, err = openRelays(ctx, s.set, s.coord, s.log); err != nil {
		return nil, nil, err
	}
	cl.add(func() error { return closeRelays(s.relays) })
	if err := watchRelays(m, s.relays); err != nil {
		return nil, nil, err
	}
	if len(users) == 0 {
		return relayAuthenticator(s.relays), nil, nil
	}
	pw = cqlserver.NewRoleAuthenticator(s.roles)
	return pw, pw, nil
}

// newFrontEnds builds the tracer, the CQL server (with the tier
// membership it lists as peers) and the GraphQL server.
func (s *server) newFrontEnds(ctx context.Context, cqlTLS *tls.Config, authn cqlserver.Authenticator,
	pw *cqlserver.PasswordAuthenticator, m *metrics.Metrics, cl *closers) error {
	cfg := s.cfg
	var err error
	if s.tracer, s.stopTracer, err = newTracer(ctx, cfg); err != nil {
		return err
	}
	cl.add(func() error { return s.stopTracer(context.Background()) })
	budgetExceeded, err := m.BudgetExceeded(s.known)
	if err != nil {
		return err
	}
	ksTimeouts, err := keyspaceTimeouts(cfg.KeyspaceTimeouts)
	if err != nil {
		return err
	}
	if err := s.newCQLServer(cqlTLS, authn, ksTimeouts, budgetExceeded); err != nil {
		return err
	}
	if err := s.watch(m); err != nil {
		return err
	}
	s.gql, err = graphql.New(graphql.Config{Coordinator: s.coord, Logger: s.log,
		SystemKeyspaces:  s.cql.SystemKeyspaces(),
		Authorizer:       graphqlAuthorizer(s.roles, pw != nil),
		MaxDocumentBytes: cfg.GraphQLMaxDocument,
		MaxNodes:         cfg.GraphQLMaxNodes,
		MaxCost:          cfg.GraphQLMaxCost,
		Tracer:           s.tracer,
		Budgets:          proxy.Budgets{Default: cfg.RequestTimeout, Keyspaces: ksTimeouts},
		OnBudgetExceeded: func(ks string) { budgetExceeded("graphql", ks) },
	})
	return err
}

// newCQLServer builds the CQL server; with a tier, its peers are the
// tier's live members, and membership changes become node events.
func (s *server) newCQLServer(tlsCfg *tls.Config, authn cqlserver.Authenticator,
	ksTimeouts map[string]time.Duration, budgetExceeded func(endpoint, ks string)) error {
	cfg := s.cfg
	var members func() []cqlserver.Member
	if s.tier = newMembership(s.set, s.coord, s.log); s.tier != nil {
		members = s.tier.Peers
	}
	var err error
	s.cql, err = cqlserver.New(cqlserver.Config{
		Coordinator:        s.coord,
		Logger:             s.log,
		ClusterName:        cfg.ClusterName,
		Peers:              cfg.Peers,
		Members:            members,
		ListenAddr:         cfg.AdvertiseAddr,
		NumTokens:          cfg.NumTokens,
		MaxFrameBytes:      cfg.MaxFrameBytes,
		ReleaseVersion:     releaseVersion,
		MaxInFlightPerConn: cfg.MaxInFlightPerConn,
		MaxInFlight:        cfg.MaxInFlight,
		InFlightWait:       cfg.InFlightWait,
		MaxConnections:     cfg.MaxClientConnections,
		RequestTimeout:     cfg.RequestTimeout,
		Authenticator:      authn,
		TLS:                tlsCfg,
		Relays:             frameRelayers(s.relays),
		Tracer:             s.tracer,
		KeyspaceTimeouts:   ksTimeouts,
		OnBudgetExceeded:   func(ks string) { budgetExceeded("cql", ks) },

		PreAuthFrameBytes:     cfg.CQLPreAuthFrameBytes,
		HandshakeTimeout:      offIfZero(cfg.CQLHandshakeTimeout),
		IdleTimeout:           cfg.CQLIdleTimeout,
		FrameReadTimeout:      offIfZero(cfg.CQLFrameTimeout),
		WriteTimeout:          offIfZero(cfg.CQLWriteTimeout),
		MaxPendingConnections: cfg.CQLMaxPendingConnections,
		OutboundBytes:         cfg.CQLOutboundBytes,
		AuthBackoff: cqlserver.AuthBackoffConfig{
			Threshold: cfg.AuthBackoffThreshold, BaseDelay: cfg.AuthBackoffBase, MaxDelay: cfg.AuthBackoffMax,
		},
	})
	if err != nil {
		return err
	}
	if s.tier != nil {
		s.tier.OnChange(s.tierChanged)
	}
	return nil
}

// tierChanged logs a tier membership change and tells CQL clients.
func (s *server) tierChanged(change, addr string) {
	s.log.Info("tier membership changed", "change", change, "member", addr)
	if err := s.cql.PushNodeEvent(change, addr); err != nil {
		s.log.Debug("tier node event not sent", "err", err)
	}
}

// listen binds the CQL, HTTP and (when set) metrics listeners.
func (s *server) listen(cl *closers) error {
	var err error
	if s.cqlLn, err = listen("cql-addr", s.cfg.CQLAddr); err != nil {
		return err
	}
	cl.add(s.cqlLn.Close)
	if s.httpLn, err = listen("http-addr", s.cfg.HTTPAddr); err != nil {
		return err
	}
	cl.add(s.httpLn.Close)
	if s.cfg.MetricsAddr != "" {
		if s.metricsLn, err = listen("metrics-addr", s.cfg.MetricsAddr); err != nil {
			return err
		}
		cl.add(s.metricsLn.Close)
	}
	return nil
}

// newHTTPServers builds the HTTP door (guard, health, admin endpoints,
// GraphQL, /metrics) and the separate metrics server when configured.
func (s *server) newHTTPServers(pw *cqlserver.PasswordAuthenticator, m *metrics.Metrics) error {
	var err error
	if s.guard, err = newGuard(s.cfg, pw, s.roles, s.log); err != nil {
		return err
	}
	mux := http.NewServeMux()
	s.health = registerHealth(mux, s.coord)
	s.tap.Register(mux, s.guard.RequireAdmin)
	mirror.RegisterAdmin(mux, s.mirror, mirror.AdminConfig{Admin: s.guard.RequireAdmin, Primary: s.cfg.Backend, Version: buildVersion()})
	if s.cfg.HTTPPprof {
		registerPprof(mux, s.guard.RequireAdmin)
	}
	s.gql.Register(mux) // /graphql/{keyspace}, /graphql-schema, /playground
	mux.Handle("GET /metrics", metrics.Handler(s.reg))
	s.httpSrv = s.newHTTPServer(m.TrackHTTP(s.guard.Handler(mux), "/graphql"))
	s.httpSrv.TLSConfig = s.httpTLS
	if s.metricsLn != nil {
		mm := http.NewServeMux()
		mm.Handle("GET /metrics", metrics.Handler(s.reg))
		s.metricsSrv = s.newHTTPServer(mm)
	}
	return nil
}
