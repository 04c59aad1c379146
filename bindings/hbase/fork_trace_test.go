package hbase

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/tsuna/gohbase"
	"github.com/tsuna/gohbase/hrpc"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestForkTracerProvider checks the fork's TracerProvider option against a
// real HBase: by default gohbase's spans (one per SendRPC, one per wait)
// go to OpenTelemetry's global provider, with TracerProvider(tp) to tp,
// and with TracerProvider(nil), as the Store opens its client, nowhere.
// It sets the global provider for its duration (dohyo itself never does).
func TestForkTracerProvider(t *testing.T) {
	s := openTestStore(t)
	defer s.Close()
	ts, drop := testTable(t, s, "spans")
	defer drop()
	_, table := s.names.of(ts)

	global := tracetest.NewSpanRecorder()
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(global)))
	defer otel.SetTracerProvider(prev)
	own := tracetest.NewSpanRecorder()
	ownTP := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(own))

	names := func(r *tracetest.SpanRecorder) map[string]int {
		m := map[string]int{}
		for _, sp := range r.Ended() {
			m[sp.Name()]++
		}
		return m
	}
	for _, c := range []struct {
		name             string
		opts             []gohbase.Option
		wantGlobal, want bool
	}{
		{"default", nil, true, false},
		{"own provider", []gohbase.Option{gohbase.TracerProvider(ownTP)}, false, true},
		{"nil", []gohbase.Option{gohbase.TracerProvider(nil)}, false, false},
	} {
		g0, o0 := len(global.Ended()), len(own.Ended())
		cl := gohbase.NewClient(testZK(t), c.opts...)
		getMissing(t, cl, string(table), c.name)
		cl.Close()
		gotGlobal, got := len(global.Ended()) > g0, len(own.Ended()) > o0
		if gotGlobal != c.wantGlobal || got != c.want {
			t.Fatalf("%s: spans in the global provider %v (want %v), in the client's own %v (want %v); global %v, own %v",
				c.name, gotGlobal, c.wantGlobal, got, c.want, names(global), names(own))
		}
	}
	if n := names(own); n["Get"] == 0 || n["waitForResult"] == 0 {
		t.Fatalf("own provider's spans: %v, want Get and waitForResult", n)
	}
}

// TestForkOperationMetrics checks the fork's OperationMetrics option
// against a real HBase: by default every SendRPC observes
// gohbase_operation_duration_seconds in Prometheus's default registry;
// with OperationMetrics(false), as the Store opens its clients, nothing is
// observed.
func TestForkOperationMetrics(t *testing.T) {
	s := openTestStore(t)
	defer s.Close()
	ts, drop := testTable(t, s, "opmetrics")
	defer drop()
	_, table := s.names.of(ts)
	observed := func() uint64 {
		mfs, err := prometheus.DefaultGatherer.Gather()
		if err != nil {
			t.Fatal(err)
		}
		var n uint64
		for _, mf := range mfs {
			if mf.GetName() == "gohbase_operation_duration_seconds" {
				for _, m := range mf.GetMetric() {
					n += m.GetHistogram().GetSampleCount()
				}
			}
		}
		return n
	}
	for _, c := range []struct {
		name string
		opts []gohbase.Option
		want bool
	}{
		{"default", nil, true},
		{"off", []gohbase.Option{gohbase.OperationMetrics(false)}, false},
		{"on", []gohbase.Option{gohbase.OperationMetrics(true)}, true},
	} {
		cl := gohbase.NewClient(testZK(t), c.opts...)
		// The first Get looks the region up (its own RPCs); count the second.
		getMissing(t, cl, string(table), c.name)
		before := observed()
		getMissing(t, cl, string(table), c.name)
		cl.Close()
		if got := observed() > before; got != c.want {
			t.Fatalf("%s: operation observed %v, want %v", c.name, got, c.want)
		}
	}
}

// getMissing reads a row that does not exist through cl.
func getMissing(t *testing.T, cl gohbase.Client, table, name string) {
	t.Helper()
	g, err := hrpc.NewGetStr(t.Context(), table, "no such row")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Get(g); err != nil {
		t.Fatalf("%s: Get: %v", name, err)
	}
}
