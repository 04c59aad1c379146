package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"

	"github.com/dohyo/dohyo/auth"
	"github.com/dohyo/dohyo/bindings/cassandra/relay"
	"github.com/dohyo/dohyo/capture/control"
	"github.com/dohyo/dohyo/graphql"
	"github.com/dohyo/dohyo/httpsec"
	"github.com/dohyo/dohyo/internal/gctune"
	"github.com/dohyo/dohyo/internal/rawnet"
	"github.com/dohyo/dohyo/metrics"
	"github.com/dohyo/dohyo/mirror"
	"github.com/dohyo/dohyo/proxy"
	"github.com/dohyo/dohyo/proxy/cqlserver"
	"github.com/dohyo/dohyo/proxy/tier"
	"github.com/dohyo/dohyo/telemetry"
)

func newServeCmd() *cobra.Command {
	flagged := DefaultConfig()
	var configFile string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the proxy (CQL native protocol and HTTP)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd.Flags(), &flagged, configFile, os.Getenv)
			if err != nil {
				return err
			}
			log := newLogger(cmd.ErrOrStderr(), cfg.LogLevel, cfg.LogFormat)
			routeLibraryLogs(log, time.Now)
			defer tuneGC(cfg, os.Getenv, log).Stop()
			err = runServe(cmd.Context(), cfg, cmd.OutOrStdout(), log)
			if err != nil && cfg.LogFormat == "json" {
				// JSON logs stay JSON to the last line.
				log.Error("dohyo serve failed", "err", err)
				return &exitError{code: 1, err: err, logged: true}
			}
			return err
		},
	}
	cmd.Flags().StringVar(&configFile, "config", "", "YAML config file (env DOHYO_CONFIG)")
	registerFlags(cmd.Flags(), &flagged)
	return cmd
}

// tuneGC gives the process's heap the configured floor (internal/gctune),
// unless GOGC is set: an operator's own GOGC wins. The returned tuner is
// nil when nothing is tuned (Stop on it does nothing).
func tuneGC(cfg Config, getenv func(string) string, log *slog.Logger) *gctune.Tuner {
	if v := getenv("GOGC"); v != "" {
		if cfg.GCHeapFloor > 0 {
			log.Info("GOGC is set: gc-heap-floor-bytes not applied", "GOGC", v)
		}
		return nil
	}
	return gctune.Start(uint64(cfg.GCHeapFloor), 100)
}

func newLogger(w io.Writer, level, format string) *slog.Logger {
	var lv slog.Level
	_ = lv.UnmarshalText([]byte(level))
	opts := &slog.HandlerOptions{Level: lv}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// runServe wires everything, prints where it listens, and shuts down
// gracefully when ctx ends.
func runServe(ctx context.Context, cfg Config, out io.Writer, log *slog.Logger) error {
	s, err := newServer(ctx, cfg, log)
	if err != nil {
		return err
	}
	return s.run(ctx, out)
}

// server is one dohyo serve process: built by newServer (backends opened,
// listeners bound), run by run.
type server struct {
	cfg    Config
	hooks  serverHooks
	log    *slog.Logger
	set    *backendSet
	coord  *proxy.Coordinator
	tap    *control.Switch
	mirror *mirror.Mirror // nil without --mirror
	// closeMirror drains the mirror queues and closes the mirror backends.
	closeMirror func() error
	reg         *prometheus.Registry
	known       *metrics.KeyspaceSet
	cql         *cqlserver.Server
	gql         *graphql.Server
	health      *health
	relays      map[string]*relay.Relay
	labels      backendLabels // metrics label by backend name
	// roles are dohyo's users, roles and grants (nil: no store for them);
	// the HTTP door authenticates and authorizes with them too.
	roles *auth.Manager
	// tier is the membership of a tier over a shared HBase (nil: none).
	tier *tier.Membership
	// tracer traces requests; stopTracer flushes its exporter.
	tracer     *telemetry.Tracer
	stopTracer func(context.Context) error

	cqlLn, httpLn, metricsLn net.Listener
	httpSrv, metricsSrv      *http.Server
	guard                    *httpsec.Guard
	httpTLS                  *tls.Config
}

// newGuard builds the HTTP listener's guard: authentication with pw's
// users (off when nil), Host and Origin checks, limits. Health probes and
// the playground's static files are public.
func newGuard(cfg Config, pw *cqlserver.PasswordAuthenticator, roles *auth.Manager, log *slog.Logger) (*httpsec.Guard, error) {
	gc := httpsec.Config{
		Tokens:         httpsec.NewTokenStore(cfg.HTTPTokenTTL, 0, nil),
		Admins:         httpAdmins{roles: roles, users: cfg.AdminUsers},
		Public:         []string{"/health/liveness", "/health/readiness", "/playground", "/playground/assets/"},
		Hosts:          httpHosts(cfg),
		AllowedOrigins: cfg.HTTPAllowedOrigins,
		MaxInFlight:    cfg.HTTPMaxInFlight,
		MaxBodyBytes:   int64(cfg.HTTPMaxBodyBytes),
		RequestTimeout: cfg.HTTPRequestTimeout,
		Logger:         log,
	}
	if pw != nil {
		gc.Passwords = pw
	}
	g, err := httpsec.New(gc)
	if err != nil {
		return nil, &FieldError{Key: "http-allowed-origins", Err: err}
	}
	return g, nil
}

// httpHosts is http-host plus http-addr's host when it is a name (IP
// addresses and localhost are always accepted).
func httpHosts(cfg Config) []string {
	hosts := cfg.HTTPHosts
	if h, _, err := net.SplitHostPort(cfg.HTTPAddr); err == nil && h != "" && net.ParseIP(h) == nil {
		hosts = append(slices.Clone(hosts), h)
	}
	return hosts
}

// newHTTPServer applies the HTTP timeouts to h.
func (s *server) newHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: s.cfg.HTTPReadHeaderTimeout,
		ReadTimeout:       s.cfg.HTTPReadTimeout,
		WriteTimeout:      s.cfg.HTTPWriteTimeout,
		IdleTimeout:       s.cfg.HTTPIdleTimeout,
		MaxHeaderBytes:    1 << 20,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		Protocols:         httpsec.ServerProtocols(), // HTTP/1.1 and h2c
	}
}

// graphqlAuthorizer is GraphQL's permission check: dohyo's roles when
// authentication is on (nil: graphql.AllowAll).
func graphqlAuthorizer(roles *auth.Manager, authOn bool) graphql.Authorizer {
	if roles == nil || !authOn {
		return nil
	}
	return roles
}

// registerPprof serves net/http/pprof's handlers behind admin (not
// /debug/pprof/cmdline: a command line may hold secrets).
func registerPprof(mux *http.ServeMux, admin func(http.Handler) http.Handler) {
	mux.Handle("/debug/pprof/", admin(http.HandlerFunc(pprof.Index)))
	mux.Handle("/debug/pprof/profile", admin(http.HandlerFunc(pprof.Profile)))
	mux.Handle("/debug/pprof/symbol", admin(http.HandlerFunc(pprof.Symbol)))
	mux.Handle("/debug/pprof/trace", admin(http.HandlerFunc(pprof.Trace)))
}

// releaseVersion is system.local's release_version. cqlsh strips the last
// "-suffix" and warns unless the rest equals the Cassandra version it was
// built against (5.0.0 for cqlsh 6.2), so the suffix is a single "-dohyo":
// clients still see it is dohyo; the build is in the banner, the log and
// the dohyo_build_info metric.
const releaseVersion = "5.0.0-dohyo"

// listen binds addr for the setting key; the error names the flag and the
// environment variable to change.
func listen(key, addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		hint := ""
		if errors.Is(err, syscall.EADDRINUSE) {
			hint = "another process holds it (another dohyo, or Cassandra); "
		}
		return nil, fmt.Errorf("%s %s: %w; %spick another address with --%s or %s", key, addr, err, hint, key, envName(key))
	}
	return ln, nil
}

// watch exports the gauges and counters other packages keep.
func (s *server) watch(m *metrics.Metrics) error {
	return errors.Join(
		m.WatchPreparedCache(func() metrics.CacheStats {
			st := s.coord.PreparedStats()
			return metrics.CacheStats{Size: st.Size, Hits: st.Hits, Evictions: st.Evictions}
		}),
		m.WatchCapture(func() metrics.CaptureStats {
			st := s.tap.Totals() // monotonic across capture restarts
			return metrics.CaptureStats{
				Records: st.Records, Bytes: st.Bytes, Dropped: st.Dropped,
				WrittenThrough: st.WrittenThrough, SyncedThrough: st.SyncedThrough,
			}
		}),
		m.WatchCQLServer(func() metrics.ServerStats {
			st := s.cql.Stats()
			return metrics.ServerStats{
				Connections: st.Connections, InFlight: st.InFlight,
				RejectedConnections: st.RejectedConnections, Overloaded: st.Overloaded,
				TimedOut: st.TimedOut, AuthFailures: st.AuthFailures,
			}
		}),
		m.WatchCQLGuards(func() metrics.CQLGuardStats { return metrics.CQLGuardStats(s.cql.GuardStats()) }),
	)
}

// keyspaceRefresh is how often the keyspace label set is re-read, for
// keyspaces created outside this instance (another dohyo, cqlsh on
// Cassandra directly).
const keyspaceRefresh = 15 * time.Second

// refreshKeyspaces re-reads the catalog's keyspace names (label set).
func (s *server) refreshKeyspaces(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cat, err := s.coord.Catalog(ctx)
	if err != nil {
		s.log.Debug("refreshing keyspace names for metrics", "err", err)
		return
	}
	s.known.Set(cat.KeyspaceNames())
}

// run serves until ctx ends, then shuts down: readiness turns 503, the
// listeners close, in-flight CQL and HTTP requests drain (up to
// shutdown-grace), GraphQL's async mutations finish, then capture is
// flushed and closed, and the backends last. Every request that was
// answered is therefore in the capture.
func (s *server) run(ctx context.Context, out io.Writer) error {
	cfg := s.cfg
	errc := make(chan error, 3)
	var bg sync.WaitGroup
	bgCtx, stopBG := context.WithCancel(ctx)
	bg.Add(1)
	go func() {
		defer bg.Done()
		t := time.NewTicker(keyspaceRefresh)
		defer t.Stop()
		for {
			select {
			case <-bgCtx.Done():
				return
			case <-t.C:
				s.refreshKeyspaces(bgCtx)
			}
		}
	}()
	if s.tier != nil {
		self := advertisedAddr(cfg, s.cqlLn.Addr())
		if self == "" {
			s.log.Warn("tier membership: this instance is not registered (it listens on every address); set advertise-addr")
		}
		bg.Add(1)
		go func() {
			defer bg.Done()
			s.tier.Run(bgCtx, self)
		}()
	}
	go func() { errc <- s.cql.Serve(ctx, s.cqlLn) }()
	serveHTTP := func(srv *http.Server, ln net.Listener, what string) {
		ln = rawnet.Listener{Listener: ln}
		var err error
		if srv.TLSConfig != nil {
			err = srv.ServeTLS(ln, "", "")
		} else {
			err = srv.Serve(ln)
		}
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			errc <- fmt.Errorf("%s server: %w", what, err)
			return
		}
		errc <- nil
	}
	go serveHTTP(s.httpSrv, s.httpLn, "http")
	if s.metricsSrv != nil {
		go serveHTTP(s.metricsSrv, s.metricsLn, "metrics")
	}

	scheme := "http"
	if s.httpTLS != nil {
		scheme = "https"
	}
	cqlNote := ""
	switch {
	case cfg.CQLTLSClientCA != "":
		cqlNote = " (mutual TLS)"
	case cfg.CQLTLSCert != "":
		cqlNote = " (TLS)"
	}
	fmt.Fprintf(out, "dohyo %s\n  CQL:    %s%s\n  HTTP:   %s://%s (GraphQL: /graphql/{keyspace}, /playground; health: /health/liveness, /health/readiness; /metrics)\n  backend: %s\n",
		buildVersion(), s.cqlLn.Addr(), cqlNote, scheme, s.httpLn.Addr(), cfg.Backend)
	if s.metricsLn != nil {
		fmt.Fprintf(out, "  metrics: http://%s/metrics\n", s.metricsLn.Addr())
	}
	for _, r := range cfg.Routes {
		fmt.Fprintf(out, "  route:   %s\n", r)
	}
	if dir, ok := s.tap.Running(); ok {
		fmt.Fprintf(out, "  capture: %s\n", dir)
	}

	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-errc:
	}
	stopBG()
	bg.Wait()
	s.shutdown()
	return runErr
}

// shutdown drains and closes everything in order (see run).
func (s *server) shutdown() {
	log := s.log
	log.Info("shutting down", "grace", s.cfg.ShutdownGrace)
	s.health.draining.Store(true)
	shutCtx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownGrace)
	defer cancel()
	var wg sync.WaitGroup
	drain := func(what string, fn func(context.Context) error, force func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fn(shutCtx); err != nil {
				log.Warn(what+" shutdown: requests abandoned after the grace period", "err", err)
				if force != nil {
					force()
				}
			}
		}()
	}
	drain("cql", s.cql.Shutdown, nil)
	drain("http", s.httpSrv.Shutdown, s.httpSrv.Close)
	if s.metricsSrv != nil {
		drain("metrics", s.metricsSrv.Shutdown, s.metricsSrv.Close)
	}
	wg.Wait()
	gqlDone := make(chan struct{})
	go func() {
		defer close(gqlDone)
		if err := s.gql.Close(); err != nil {
			log.Warn("graphql close", "err", err)
		}
	}()
	select {
	case <-gqlDone:
	case <-shutCtx.Done():
		log.Warn("graphql async mutations still running after the grace period")
	}
	// Capture gets its own time budget: a grace period used up by slow
	// requests must not cost the records of the requests that finished.
	if _, ok := s.tap.Running(); ok {
		capCtx, capCancel := context.WithTimeout(context.Background(), max(s.cfg.ShutdownGrace, 5*time.Second))
		if _, err := s.tap.Stop(capCtx); err != nil {
			log.Error("closing capture", "err", err)
		}
		capCancel()
	}
	if s.closeMirror != nil {
		if err := s.closeMirror(); err != nil {
			log.Error("closing mirrors", "err", err)
		}
	}
	if err := closeRelays(s.relays); err != nil {
		log.Error("closing relays", "err", err)
	}
	if err := s.coord.Close(); err != nil {
		log.Error("closing backends", "err", err)
	}
	traceCtx, traceCancel := context.WithTimeout(context.Background(), 5*time.Second)
	if err := s.stopTracer(traceCtx); err != nil {
		log.Warn("flushing traces", "err", err)
	}
	traceCancel()
	log.Info("stopped")
}

// backendLabels caches the metrics label of each backend name.
type backendLabels struct{ m sync.Map }

func (b *backendLabels) get(name string) string {
	if v, ok := b.m.Load(name); ok {
		return v.(string)
	}
	l := metrics.BackendLabel(name)
	b.m.Store(name, l)
	return l
}
