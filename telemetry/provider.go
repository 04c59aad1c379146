package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// OTLP protocols.
const (
	ProtocolGRPC = "grpc"          // OTLP/gRPC, usually port 4317
	ProtocolHTTP = "http/protobuf" // OTLP/HTTP, usually port 4318
)

// ProviderConfig configures the OpenTelemetry SDK tracer provider.
type ProviderConfig struct {
	// Endpoint is the OTLP collector URL: http://host:4317 (gRPC) or
	// http://host:4318 (HTTP; path /v1/traces unless given). An http://
	// URL is plain text, https:// uses TLS.
	Endpoint string
	// Protocol is ProtocolGRPC (default) or ProtocolHTTP.
	Protocol string
	// SampleRatio is the fraction of requests traced when the client sent
	// no sampled trace context (a client's sampled parent is always
	// followed, an unsampled one never).
	SampleRatio float64
	// ServiceName, ServiceVersion and InstanceID describe this process
	// (service.name defaults to "dohyo").
	ServiceName, ServiceVersion, InstanceID string
	// Exporter, when set, replaces the OTLP exporter (tests, benchmarks).
	Exporter sdktrace.SpanExporter
}

// Validate checks the configuration without connecting anywhere.
func (c ProviderConfig) Validate() error {
	if c.SampleRatio < 0 || c.SampleRatio > 1 {
		return fmt.Errorf("sample ratio %v is outside 0..1", c.SampleRatio)
	}
	switch c.Protocol {
	case "", ProtocolGRPC, ProtocolHTTP:
	default:
		return fmt.Errorf("protocol %q is not %s or %s", c.Protocol, ProtocolGRPC, ProtocolHTTP)
	}
	if c.Exporter != nil {
		return nil
	}
	if c.Endpoint == "" {
		return errors.New("no endpoint")
	}
	u, err := url.Parse(c.Endpoint)
	if err != nil {
		return fmt.Errorf("endpoint: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("endpoint %q is not an http:// or https:// URL", c.Endpoint)
	}
	return nil
}

// NewProvider builds an SDK tracer provider that batches spans to the
// OTLP exporter. The caller owns it: Shutdown flushes and stops it.
// Nothing is registered globally.
func NewProvider(ctx context.Context, c ProviderConfig) (*sdktrace.TracerProvider, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	exp := c.Exporter
	if exp == nil {
		var err error
		switch c.Protocol {
		case ProtocolHTTP:
			exp, err = otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(httpTracesURL(c.Endpoint)))
		default:
			exp, err = otlptracegrpc.New(ctx, otlptracegrpc.WithEndpointURL(c.Endpoint))
		}
		if err != nil {
			return nil, fmt.Errorf("tracing: otlp exporter: %w", err)
		}
	}
	name := c.ServiceName
	if name == "" {
		name = "dohyo"
	}
	attrs := []attribute.KeyValue{attribute.String("service.name", name)}
	if c.ServiceVersion != "" {
		attrs = append(attrs, attribute.String("service.version", c.ServiceVersion))
	}
	if c.InstanceID != "" {
		attrs = append(attrs, attribute.String("service.instance.id", c.InstanceID))
	}
	return sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(c.SampleRatio))),
		sdktrace.WithResource(resource.NewSchemaless(attrs...)),
	), nil
}

// httpTracesURL adds OTLP/HTTP's default path to a bare collector URL.
func httpTracesURL(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Path != "" && u.Path != "/") {
		return endpoint
	}
	u.Path = "/v1/traces"
	return u.String()
}
