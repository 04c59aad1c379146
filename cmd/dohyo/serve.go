package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/dohyo/dohyo/proxy"
	"github.com/dohyo/dohyo/proxy/cqlserver"
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
			return runServe(cmd.Context(), cfg, cmd.OutOrStdout(), log)
		},
	}
	cmd.Flags().StringVar(&configFile, "config", "", "YAML config file (env DOHYO_CONFIG)")
	registerFlags(cmd.Flags(), &flagged)
	return cmd
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

// runServe wires backends, the coordinator, the CQL server and the HTTP
// server, prints where they listen, and shuts down gracefully when ctx ends.
func runServe(ctx context.Context, cfg Config, out io.Writer, log *slog.Logger) error {
	log.Info("starting dohyo", append([]any{"version", buildVersion()}, cfg.redacted()...)...)
	set, err := openBackends(ctx, cfg.Backend, cfg.Routes)
	if err != nil {
		return err
	}
	capCfg, err := captureConfig(cfg, log)
	if err != nil {
		return errors.Join(err, set.close())
	}
	var coord *proxy.Coordinator
	tap := &captureTap{cfg: capCfg, log: log, coord: func() *proxy.Coordinator { return coord }}
	coord, err = proxy.New(proxy.Config{
		Backends:          set.byName,
		Default:           set.def,
		Routes:            set.routes,
		PreparedCacheSize: cfg.PreparedCache,
		Tap:               tap,
		Logger:            log,
	})
	if err != nil {
		return errors.Join(err, set.close())
	}
	coord.Subscribe(tap.schemaChanged)
	if cfg.CaptureDir != "" {
		if _, err := tap.start(ctx, ""); err != nil {
			return errors.Join(err, coord.Close())
		}
	}
	defer func() {
		if err := coord.Close(); err != nil {
			log.Error("closing backends", "err", err)
		}
	}()

	cqlLn, err := net.Listen("tcp", cfg.CQLAddr)
	if err != nil {
		return fmt.Errorf("cql listener: %w", err)
	}
	srv, err := cqlserver.New(cqlserver.Config{
		Coordinator:    coord,
		Logger:         log,
		ClusterName:    cfg.ClusterName,
		Peers:          cfg.Peers,
		NumTokens:      cfg.NumTokens,
		MaxFrameBytes:  cfg.MaxFrameBytes,
		ReleaseVersion: "5.0.0-dohyo-" + buildVersion(),
	})
	if err != nil {
		cqlLn.Close()
		return err
	}
	httpLn, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		cqlLn.Close()
		return fmt.Errorf("http listener: %w", err)
	}
	mux := http.NewServeMux()
	registerHealth(mux, coord)
	tap.register(mux)
	httpSrv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}

	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(ctx, cqlLn) }()
	go func() {
		if err := httpSrv.Serve(httpLn); err != nil && !errors.Is(err, http.ErrServerClosed) {
			errc <- fmt.Errorf("http server: %w", err)
			return
		}
		errc <- nil
	}()
	fmt.Fprintf(out, "dohyo %s\n  CQL:    %s\n  HTTP:   http://%s (health: /health/liveness, /health/readiness)\n  backend: %s\n",
		buildVersion(), cqlLn.Addr(), httpLn.Addr(), cfg.Backend)
	for _, r := range cfg.Routes {
		fmt.Fprintf(out, "  route:   %s\n", r)
	}
	if w := tap.cur.Load(); w != nil {
		fmt.Fprintf(out, "  capture: %s\n", capCfg.Dir)
	}

	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-errc:
	}
	log.Info("shutting down", "grace", cfg.ShutdownGrace)
	shutCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		log.Warn("cql shutdown", "err", err)
	}
	if err := httpSrv.Shutdown(shutCtx); err != nil {
		log.Warn("http shutdown", "err", err)
	}
	// Capture is flushed after the CQL server drained, so every request
	// answered is in the capture.
	if tap.cur.Load() != nil {
		if _, err := tap.stop(shutCtx); err != nil {
			log.Error("closing capture", "err", err)
		}
	}
	return runErr
}
