package metrics

import (
	"maps"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/dohyo/dohyo/telemetry"
)

// DurationBuckets are the request latency histogram's upper bounds in
// seconds: from 100µs (an in-memory read through the proxy) to 10s (the
// longest a driver waits by default).
var DurationBuckets = []float64{
	0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
	0.1, 0.25, 0.5, 1, 2.5, 5, 10,
}

// Label values used for requests whose keyspace gets no label of its own.
const (
	KeyspaceOther = "other" // not in the catalog: bounded cardinality
	KeyspaceNone  = "none"  // the request named no keyspace
	StatusOK      = "ok"
)

// Metrics holds the request metrics. Create it with New.
type Metrics struct {
	reg           prometheus.Registerer
	requests      *prometheus.CounterVec
	duration      *prometheus.HistogramVec
	backendErrors *prometheus.CounterVec
	httpInFlight  atomic.Int64 // GraphQL requests being served

	// observers caches each label combination's counter and histogram
	// (requestKey → *requestObservers): looking them up by label values
	// hashes and validates every value on every request, a tenth of the
	// relay's own CPU. Label values are bounded (KeyspaceSet, classes,
	// configured backends, error names), and series are never deleted,
	// so the cache is too. Copy on write: a lookup takes no lock and
	// allocates nothing.
	observers  atomic.Pointer[map[requestKey]*requestObservers]
	observerMu sync.Mutex // serialises additions
}

type requestKey struct{ endpoint, keyspace, op, backend, status string }

type requestObservers struct {
	count    prometheus.Counter
	duration prometheus.Observer
}

// NewRegistry returns a registry with the Go runtime and process
// collectors, ready for New.
func NewRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// New registers the request metrics and dohyo_build_info on reg.
func New(reg prometheus.Registerer, version string) (*Metrics, error) {
	m := &Metrics{
		reg: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dohyo_requests_total",
			Help: "Requests executed by the coordinator, by front end, keyspace, statement class, backend and outcome (ok or the CQL error name).",
		}, []string{"endpoint", "keyspace", "op", "backend", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "dohyo_request_duration_seconds",
			Help:    "Time the coordinator took to execute a request (a batch counts once).",
			Buckets: DurationBuckets,
		}, []string{"endpoint", "keyspace", "op", "backend"}),
		backendErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dohyo_backend_errors_total",
			Help: "Requests that failed in or on the way to a backend (timeouts, unavailability, overload, server errors), by CQL error name.",
		}, []string{"backend", "code"}),
	}
	info := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "dohyo_build_info",
		Help:        "Always 1; the version label says which dohyo runs.",
		ConstLabels: prometheus.Labels{"version": version},
	})
	info.Set(1)
	for _, c := range []prometheus.Collector{m.requests, m.duration, m.backendErrors, info} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Handler serves the registry's metrics in the Prometheus text (or
// OpenMetrics/protobuf, when asked) format.
func Handler(g prometheus.Gatherer) http.Handler {
	return promhttp.HandlerFor(g, promhttp.HandlerOpts{EnableOpenMetrics: true})
}

// ObserveRequest records one request.
func (m *Metrics) ObserveRequest(endpoint, keyspace, op, backend, status string, d time.Duration) {
	k := requestKey{endpoint, keyspace, op, backend, status}
	var o *requestObservers
	if p := m.observers.Load(); p != nil {
		o = (*p)[k]
	}
	if o == nil {
		o = m.addObservers(k)
	}
	o.count.Inc()
	o.duration.Observe(d.Seconds())
}

// addObservers looks k's series up and adds them to the cache.
func (m *Metrics) addObservers(k requestKey) *requestObservers {
	m.observerMu.Lock()
	defer m.observerMu.Unlock()
	old := map[requestKey]*requestObservers{}
	if p := m.observers.Load(); p != nil {
		if o := (*p)[k]; o != nil {
			return o
		}
		old = *p
	}
	o := &requestObservers{
		count:    m.requests.WithLabelValues(k.endpoint, k.keyspace, k.op, k.backend, k.status),
		duration: m.duration.WithLabelValues(k.endpoint, k.keyspace, k.op, k.backend),
	}
	next := maps.Clone(old)
	next[k] = o
	m.observers.Store(&next)
	return o
}

// TrackHTTP wraps an HTTP handler so that requests under the given path
// prefixes count in dohyo_inflight_requests{endpoint="graphql"}.
func (m *Metrics) TrackHTTP(h http.Handler, prefixes ...string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, p := range prefixes {
			if strings.HasPrefix(r.URL.Path, p) {
				m.httpInFlight.Add(1)
				defer m.httpInFlight.Add(-1)
				break
			}
		}
		h.ServeHTTP(w, r)
	})
}

// BackendLabel turns a backend URL into a label value without credentials
// or query parameters (hbase://zk1:2181?salt=16 -> hbase://zk1:2181). It
// does not rely on net/url, which rejects host lists such as h1,h2:9042.
func BackendLabel(backend string) string { return telemetry.SafeBackend(backend) }
