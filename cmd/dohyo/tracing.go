package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/dohyo/dohyo/proxy"
	"github.com/dohyo/dohyo/telemetry"
)

// keyspaceTimeouts parses request-timeout-keyspace entries.
func keyspaceTimeouts(entries []string) (map[string]time.Duration, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	out := make(map[string]time.Duration, len(entries))
	for _, e := range entries {
		ks, d, err := proxy.ParseKeyspaceBudget(e)
		if err != nil {
			return nil, err
		}
		out[ks] = d
	}
	return out, nil
}

// tracingConfig is the OpenTelemetry provider configuration.
func (c *Config) tracingConfig() telemetry.ProviderConfig {
	return telemetry.ProviderConfig{
		Endpoint:       c.TracingEndpoint,
		Protocol:       c.TracingProtocol,
		SampleRatio:    c.TracingSampleRatio,
		ServiceVersion: buildVersion(),
		InstanceID:     c.nodeID(),
	}
}

// nodeID is node-id, or this machine's host name when it is empty.
func (c *Config) nodeID() string {
	if c.NodeID != "" {
		return c.NodeID
	}
	if host, err := os.Hostname(); err == nil && host != "" {
		return host
	}
	return "dohyo"
}

// newTracer builds the request tracer: OpenTelemetry when tracing-endpoint
// is set (shutdown flushes it), CQL TRACING sessions always.
func newTracer(ctx context.Context, cfg Config) (*telemetry.Tracer, func(context.Context) error, error) {
	sessions := telemetry.NewSessions(cfg.TraceSessions, nil)
	if cfg.TracingEndpoint == "" {
		return telemetry.New(telemetry.Options{Sessions: sessions}), func(context.Context) error { return nil }, nil
	}
	tp, err := telemetry.NewProvider(ctx, cfg.tracingConfig())
	if err != nil {
		return nil, nil, err
	}
	shutdown := func(ctx context.Context) error {
		if err := tp.Shutdown(ctx); err != nil {
			return fmt.Errorf("tracing shutdown: %w", err)
		}
		return nil
	}
	return telemetry.New(telemetry.Options{Provider: tp, Sessions: sessions}), shutdown, nil
}
