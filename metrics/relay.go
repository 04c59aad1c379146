package metrics

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// RelayStats are a raw-frame relay's counters and open connections.
type RelayStats struct {
	Requests, Reprepares, Failures uint64
	Connections                    int
}

// WatchRelay exports the counters of the relay to backend (labelled with
// BackendLabel(backend)).
func (m *Metrics) WatchRelay(backend string, fn func() RelayStats) error {
	labels := prometheus.Labels{"backend": BackendLabel(backend)}
	reqs := desc("dohyo_relay_requests_total", "Requests relayed to Cassandra as raw frames.", labels)
	repr := desc("dohyo_relay_reprepares_total", "Statements the relay prepared again after a node answered UNPREPARED.", labels)
	fail := desc("dohyo_relay_failures_total", "Failed connects to Cassandra nodes and requests lost with a broken connection.", labels)
	conns := desc("dohyo_relay_connections", "Open relay connections to Cassandra nodes.", labels)
	err := m.reg.Register(&funcCollector{descs: []*prometheus.Desc{reqs, repr, fail, conns}, collect: func(ch chan<- prometheus.Metric) {
		st := fn()
		ch <- prometheus.MustNewConstMetric(reqs, prometheus.CounterValue, float64(st.Requests))
		ch <- prometheus.MustNewConstMetric(repr, prometheus.CounterValue, float64(st.Reprepares))
		ch <- prometheus.MustNewConstMetric(fail, prometheus.CounterValue, float64(st.Failures))
		ch <- prometheus.MustNewConstMetric(conns, prometheus.GaugeValue, float64(st.Connections))
	}})
	if err != nil {
		return fmt.Errorf("relay metrics: %w", err)
	}
	return nil
}
