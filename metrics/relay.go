package metrics

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// RelayStats are a raw-frame relay's counters and open connections.
type RelayStats struct {
	Requests, Reprepares, Failures uint64
	Connections                    int
	// Resends are requests sent again to another node after their
	// connection was lost.
	Resends uint64
	// SchemaAgreed and SchemaDisagreed are relayed schema changes answered
	// once the nodes agreed on the schema, and those answered when the
	// wait for agreement ran out.
	SchemaAgreed, SchemaDisagreed uint64
	// Nodes are the cluster's nodes as the relay sees them.
	Nodes []RelayNodeStats
}

// RelayNodeStats are one Cassandra node's state and counters in a relay.
type RelayNodeStats struct {
	Node  string // host:port
	State string // up, suspect or down
	// Requests sent to the node, requests lost with a connection to it,
	// times it was marked down.
	Requests, Lost, Downs uint64
}

// relayNodeStates are the states dohyo_relay_node_state reports.
var relayNodeStates = []string{"up", "suspect", "down"}

// WatchRelay exports the counters of the relay to backend (labelled with
// BackendLabel(backend)).
func (m *Metrics) WatchRelay(backend string, fn func() RelayStats) error {
	labels := prometheus.Labels{"backend": BackendLabel(backend)}
	reqs := desc("dohyo_relay_requests_total", "Requests relayed to Cassandra as raw frames.", labels)
	repr := desc("dohyo_relay_reprepares_total", "Statements the relay prepared again after a node answered UNPREPARED.", labels)
	fail := desc("dohyo_relay_failures_total", "Failed connects to Cassandra nodes and requests lost with a broken connection.", labels)
	conns := desc("dohyo_relay_connections", "Open relay connections to Cassandra nodes.", labels)
	resends := desc("dohyo_relay_resends_total", "Idempotent requests sent again to another Cassandra node after their connection was lost.", labels)
	agreement := prometheus.NewDesc("dohyo_relay_schema_changes_total", "Relayed schema changes, by whether the nodes agreed on the schema before the client was answered (agreed) or the wait ran out (disagreed).", []string{"agreement"}, labels)
	nodeReqs := prometheus.NewDesc("dohyo_relay_node_requests_total", "Requests the relay sent to each Cassandra node.", []string{"node"}, labels)
	nodeLost := prometheus.NewDesc("dohyo_relay_node_lost_total", "Requests lost with a connection to each Cassandra node (re-sent or answered as timeouts).", []string{"node"}, labels)
	nodeDowns := prometheus.NewDesc("dohyo_relay_node_downs_total", "Times each Cassandra node was marked down.", []string{"node"}, labels)
	nodeState := prometheus.NewDesc("dohyo_relay_node_state", "1 for each Cassandra node's current state (up: takes requests; suspect: silent, probed; down: probed until it answers).", []string{"node", "state"}, labels)
	all := []*prometheus.Desc{reqs, repr, fail, conns, resends, agreement, nodeReqs, nodeLost, nodeDowns, nodeState}
	err := m.reg.Register(&funcCollector{descs: all, collect: func(ch chan<- prometheus.Metric) {
		st := fn()
		ch <- prometheus.MustNewConstMetric(reqs, prometheus.CounterValue, float64(st.Requests))
		ch <- prometheus.MustNewConstMetric(repr, prometheus.CounterValue, float64(st.Reprepares))
		ch <- prometheus.MustNewConstMetric(fail, prometheus.CounterValue, float64(st.Failures))
		ch <- prometheus.MustNewConstMetric(conns, prometheus.GaugeValue, float64(st.Connections))
		ch <- prometheus.MustNewConstMetric(resends, prometheus.CounterValue, float64(st.Resends))
		ch <- prometheus.MustNewConstMetric(agreement, prometheus.CounterValue, float64(st.SchemaAgreed), "agreed")
		ch <- prometheus.MustNewConstMetric(agreement, prometheus.CounterValue, float64(st.SchemaDisagreed), "disagreed")
		for _, n := range st.Nodes {
			ch <- prometheus.MustNewConstMetric(nodeReqs, prometheus.CounterValue, float64(n.Requests), n.Node)
			ch <- prometheus.MustNewConstMetric(nodeLost, prometheus.CounterValue, float64(n.Lost), n.Node)
			ch <- prometheus.MustNewConstMetric(nodeDowns, prometheus.CounterValue, float64(n.Downs), n.Node)
			for _, s := range relayNodeStates {
				v := 0.0
				if s == n.State {
					v = 1
				}
				ch <- prometheus.MustNewConstMetric(nodeState, prometheus.GaugeValue, v, n.Node, s)
			}
		}
	}})
	if err != nil {
		return fmt.Errorf("relay metrics: %w", err)
	}
	return nil
}
