package cqlserver

import (
	"context"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/dohyo/dohyo/bindings/embedded"
	"github.com/dohyo/dohyo/bindings/stores"
	"github.com/dohyo/dohyo/engine"
	"github.com/dohyo/dohyo/telemetry"
)

// BenchmarkTracing measures throughput through the CQL server with the
// gocql driver on the in-memory embedded store (point reads and updates,
// half each, prepared, 8 concurrent workers), with tracing off, and with
// OpenTelemetry sampling 1 % and 100 % of requests (SDK batch processor,
// spans discarded by a no-op exporter: the cost measured is dohyo's and
// the SDK's, not a collector's). Every b.N iteration is one round that
// runs each mode in turn, so load changes on the machine hit all modes
// alike; the ratios to "off" are reported as metrics.
//
//	go test -run '^$' -bench BenchmarkTracing -benchtime 5x ./proxy/cqlserver/
func BenchmarkTracing(b *testing.B) {
	const (
		workers  = 8
		perRound = 6000 // operations per mode and round
		rows     = 1000
	)
	type mode struct {
		name  string
		ratio float64 // < 0: tracing off
		sess  *gocql.Session
		dur   time.Duration
		ops   int
	}
	modes := []*mode{{name: "off", ratio: -1}, {name: "sample1pct", ratio: 0.01}, {name: "sample100pct", ratio: 1}}
	for _, m := range modes {
		be, err := stores.Embedded(context.Background(), embedded.Config{}, engine.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { be.Close() })
		var tracer *telemetry.Tracer
		if m.ratio >= 0 {
			tp, err := telemetry.NewProvider(context.Background(), telemetry.ProviderConfig{
				Exporter: tracetest.NewNoopExporter(), SampleRatio: m.ratio})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { tp.Shutdown(context.Background()) })
			tracer = telemetry.New(telemetry.Options{Provider: tp})
		}
		ts := newTestServerWith(b, be, nil, func(c *Config) { c.Tracer = tracer })
		host, portText, _ := net.SplitHostPort(ts.listen(b))
		port, _ := strconv.Atoi(portText)
		cluster := gocql.NewCluster(host)
		cluster.Port = port
		cluster.Timeout = 30 * time.Second
		cluster.Consistency = gocql.One
		cluster.NumConns = 2
		sess, err := cluster.CreateSession()
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(sess.Close)
		m.sess = sess
		for _, q := range []string{
			"CREATE KEYSPACE bench WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
			"CREATE TABLE bench.kv (k int PRIMARY KEY, v text)",
		} {
			if err := sess.Query(q).Exec(); err != nil {
				b.Fatal(err)
			}
		}
		for k := 0; k < rows; k++ {
			if err := sess.Query("INSERT INTO bench.kv (k, v) VALUES (?, ?)", k, "value").Exec(); err != nil {
				b.Fatal(err)
			}
		}
	}
	run := func(m *mode) {
		var wg sync.WaitGroup
		start := time.Now()
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				var v string
				for i := w; i < perRound; i += workers {
					k := (i * 7919) % rows
					var err error
					if i%2 == 0 {
						err = m.sess.Query("SELECT v FROM bench.kv WHERE k = ?", k).Scan(&v)
					} else {
						err = m.sess.Query("UPDATE bench.kv SET v = ? WHERE k = ?", "value", k).Exec()
					}
					if err != nil {
						b.Error(err)
						return
					}
				}
			}(w)
		}
		wg.Wait()
		m.dur += time.Since(start)
		m.ops += perRound
	}
	for _, m := range modes { // warm-up: prepared statements, connections
		run(m)
		m.dur, m.ops = 0, 0
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, m := range modes {
			run(m)
		}
	}
	b.StopTimer()
	off := float64(modes[0].ops) / modes[0].dur.Seconds()
	for _, m := range modes {
		opsPerSec := float64(m.ops) / m.dur.Seconds()
		b.ReportMetric(opsPerSec, m.name+"_ops/s")
		if m != modes[0] {
			b.ReportMetric(opsPerSec/off, m.name+"/off")
		}
	}
}
