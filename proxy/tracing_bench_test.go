package proxy

import (
	"context"
	"encoding/binary"
	"testing"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/embedded"
	"github.com/dohyo/dohyo/bindings/stores"
	"github.com/dohyo/dohyo/engine"
	"github.com/dohyo/dohyo/telemetry"
)

// BenchmarkSessionTracing is the coordinator's share of tracing: a
// prepared point read on the in-memory embedded store through
// Session.Execute, with a request span started as the CQL server does,
// tracing off and sampling 1 % / 100 % (SDK batch processor, no-op
// exporter). Compare ns/op and allocs/op between the sub-benchmarks.
//
//	go test -run '^$' -bench BenchmarkSessionTracing -benchmem ./proxy/
func BenchmarkSessionTracing(b *testing.B) {
	for _, m := range []struct {
		name  string
		ratio float64 // < 0: off
	}{{"off", -1}, {"sample1pct", 0.01}, {"sample100pct", 1}} {
		b.Run(m.name, func(b *testing.B) {
			ctx := context.Background()
			be, err := stores.Embedded(ctx, embedded.Config{}, engine.Options{})
			if err != nil {
				b.Fatal(err)
			}
			c, err := New(Config{Backends: map[string]bindings.Backend{"embedded://memory": be}, Default: "embedded://memory"})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			s := c.NewSession(bindings.SourceCQL)
			for _, q := range []string{
				"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
				"CREATE TABLE ks.t (k int PRIMARY KEY, v text)",
				"INSERT INTO ks.t (k, v) VALUES (1, 'one')",
			} {
				if _, err := s.Query(ctx, &bindings.Request{Query: q}); err != nil {
					b.Fatal(err)
				}
			}
			ps, err := s.Prepare(ctx, "SELECT v FROM ks.t WHERE k = ?")
			if err != nil {
				b.Fatal(err)
			}
			var tracer *telemetry.Tracer
			if m.ratio >= 0 {
				tp, err := telemetry.NewProvider(ctx, telemetry.ProviderConfig{Exporter: tracetest.NewNoopExporter(), SampleRatio: m.ratio})
				if err != nil {
					b.Fatal(err)
				}
				defer tp.Shutdown(ctx)
				tracer = telemetry.New(telemetry.Options{Provider: tp})
			}
			key := binary.BigEndian.AppendUint32(nil, 1)
			req := &bindings.Request{Values: []bindings.Value{{Bytes: key}}, Consistency: bindings.One}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				rctx, rt := tracer.StartRequest(ctx, telemetry.RequestStart{Name: "cql EXECUTE"})
				res, err := s.Execute(rctx, ps.ID, req)
				rt.End()
				if err != nil || len(res.Rows) != 1 {
					b.Fatalf("read: %v %v", res, err)
				}
			}
		})
	}
}
