package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Gauges and counters kept by other packages are read at scrape time
// through functions, so the hot paths they live on never touch Prometheus.

// CacheStats are a cache's size and counters.
type CacheStats struct {
	Size            int
	Hits, Evictions uint64
}

// CaptureStats are the capture writer's counters, monotonic across capture
// restarts.
type CaptureStats struct {
	Records, Bytes, Dropped uint64
	// Every request captured before WrittenThrough is in a segment file
	// (or counted as dropped); before SyncedThrough, also fsynced. Zero
	// before the first flush.
	WrittenThrough, SyncedThrough time.Time
}

// ServerStats are the CQL server's gauges and counters.
type ServerStats struct {
	Connections         int
	InFlight            int
	RejectedConnections uint64
	Overloaded          uint64
	TimedOut            uint64
	AuthFailures        uint64
}

// funcCollector emits metrics built by a function at each scrape; its
// descriptors are fixed so the registry checks them at registration.
type funcCollector struct {
	descs   []*prometheus.Desc
	collect func(ch chan<- prometheus.Metric)
}

func (f *funcCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range f.descs {
		ch <- d
	}
}

func (f *funcCollector) Collect(ch chan<- prometheus.Metric) { f.collect(ch) }

func desc(name, help string, labels prometheus.Labels) *prometheus.Desc {
	return prometheus.NewDesc(name, help, nil, labels)
}

// WatchPreparedCache exports the prepared-statement cache's size, hits
// and evictions.
func (m *Metrics) WatchPreparedCache(fn func() CacheStats) error {
	size := desc("dohyo_prepared_cache_size", "Prepared statements held in the bounded cache.", nil)
	hits := desc("dohyo_prepared_cache_hits_total", "EXECUTEs (and batch children) that found their prepared statement in the cache.", nil)
	ev := desc("dohyo_prepared_cache_evictions_total", "Prepared statements evicted from the cache (clients re-prepare them on UNPREPARED).", nil)
	return m.reg.Register(&funcCollector{descs: []*prometheus.Desc{size, hits, ev}, collect: func(ch chan<- prometheus.Metric) {
		st := fn()
		ch <- prometheus.MustNewConstMetric(size, prometheus.GaugeValue, float64(st.Size))
		ch <- prometheus.MustNewConstMetric(hits, prometheus.CounterValue, float64(st.Hits))
		ch <- prometheus.MustNewConstMetric(ev, prometheus.CounterValue, float64(st.Evictions))
	}})
}

// WatchCapture exports the capture writer's counters.
func (m *Metrics) WatchCapture(fn func() CaptureStats) error {
	rec := desc("dohyo_capture_records_total", "Requests written to capture segments.", nil)
	by := desc("dohyo_capture_bytes_total", "Bytes written to capture segments.", nil)
	drop := desc("dohyo_capture_dropped_total", "Requests not captured because the capture queue was full, a record was too large or a write failed.", nil)
	written := desc("dohyo_capture_written_through_seconds", "Unix time before which every captured request is written to a segment file (a crash of dohyo keeps it) or counted as dropped; 0 before the first flush.", nil)
	synced := desc("dohyo_capture_synced_through_seconds", "Unix time before which every captured request is also fsynced (a crash of the machine keeps it); 0 before the first sync.", nil)
	return m.reg.Register(&funcCollector{descs: []*prometheus.Desc{rec, by, drop, written, synced}, collect: func(ch chan<- prometheus.Metric) {
		st := fn()
		ch <- prometheus.MustNewConstMetric(rec, prometheus.CounterValue, float64(st.Records))
		ch <- prometheus.MustNewConstMetric(by, prometheus.CounterValue, float64(st.Bytes))
		ch <- prometheus.MustNewConstMetric(drop, prometheus.CounterValue, float64(st.Dropped))
		ch <- prometheus.MustNewConstMetric(written, prometheus.GaugeValue, unixSeconds(st.WrittenThrough))
		ch <- prometheus.MustNewConstMetric(synced, prometheus.GaugeValue, unixSeconds(st.SyncedThrough))
	}})
}

// unixSeconds is t as Unix seconds, 0 for the zero time.
func unixSeconds(t time.Time) float64 {
	if t.IsZero() {
		return 0
	}
	return float64(t.UnixNano()) / 1e9
}

// WatchCQLServer exports the CQL server's connection and in-flight gauges
// and its limit counters, and the GraphQL in-flight gauge of TrackHTTP.
func (m *Metrics) WatchCQLServer(fn func() ServerStats) error {
	cql := prometheus.Labels{"endpoint": "cql"}
	conns := desc("dohyo_client_connections", "Open CQL client connections.", nil)
	inflightHelp := "Requests being executed now."
	inflightCQL := desc("dohyo_inflight_requests", inflightHelp, cql)
	inflightGQL := desc("dohyo_inflight_requests", inflightHelp, prometheus.Labels{"endpoint": "graphql"})
	rejected := desc("dohyo_rejected_connections_total", "CQL connections refused because max-client-connections was reached.", nil)
	overloaded := desc("dohyo_overloaded_requests_total", "Requests answered with an Overloaded error by dohyo's in-flight limits.", cql)
	timedOut := desc("dohyo_request_timeouts_total", "Requests answered with a ReadTimeout/WriteTimeout because request-timeout passed.", cql)
	authFail := desc("dohyo_auth_failures_total", "Failed CQL authentications.", nil)
	return m.reg.Register(&funcCollector{
		descs: []*prometheus.Desc{conns, inflightCQL, inflightGQL, rejected, overloaded, timedOut, authFail},
		collect: func(ch chan<- prometheus.Metric) {
			st := fn()
			ch <- prometheus.MustNewConstMetric(conns, prometheus.GaugeValue, float64(st.Connections))
			ch <- prometheus.MustNewConstMetric(inflightCQL, prometheus.GaugeValue, float64(st.InFlight))
			ch <- prometheus.MustNewConstMetric(inflightGQL, prometheus.GaugeValue, float64(m.httpInFlight.Load()))
			ch <- prometheus.MustNewConstMetric(rejected, prometheus.CounterValue, float64(st.RejectedConnections))
			ch <- prometheus.MustNewConstMetric(overloaded, prometheus.CounterValue, float64(st.Overloaded))
			ch <- prometheus.MustNewConstMetric(timedOut, prometheus.CounterValue, float64(st.TimedOut))
			ch <- prometheus.MustNewConstMetric(authFail, prometheus.CounterValue, float64(st.AuthFailures))
		}})
}
