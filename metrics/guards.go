package metrics

import "github.com/prometheus/client_golang/prometheus"

// CQLGuardStats are the CQL listener guards' gauge and counters
// (docs/SECURITY.md, "CQL listener").
type CQLGuardStats struct {
	PendingConnections int
	EvictedPending     uint64
	HandshakeTimeouts  uint64
	IdleClosed         uint64
	FrameTimeouts      uint64
	WriteTimeouts      uint64
	FramesTooBig       uint64
	Backpressured      uint64
	AuthThrottled      uint64
}

// WatchCQLGuards exports the CQL listener guards.
func (m *Metrics) WatchCQLGuards(fn func() CQLGuardStats) error {
	pending := desc("dohyo_cql_pending_connections", "CQL connections that have not finished their handshake (STARTUP, authentication).", nil)
	closedHelp := "CQL connections closed by a guard, by reason."
	closed := func(reason string) *prometheus.Desc {
		return desc("dohyo_cql_guard_closed_total", closedHelp, prometheus.Labels{"reason": reason})
	}
	evicted, hs, idle, frame, write := closed("pending_evicted"), closed("handshake_timeout"), closed("idle_timeout"), closed("frame_timeout"), closed("write_timeout")
	tooBig := desc("dohyo_cql_frames_too_big_total", "CQL frames (or declared decompressed bodies) over the frame limit, answered with a ProtocolError.", nil)
	bp := desc("dohyo_cql_backpressure_total", "Times a CQL connection's socket was not read because its unsent answers reached cql-outbound-bytes.", nil)
	throttled := desc("dohyo_auth_throttled_total", "CQL authentication attempts delayed after repeated failures from the same address.", nil)
	return m.reg.Register(&funcCollector{
		descs: []*prometheus.Desc{pending, evicted, hs, idle, frame, write, tooBig, bp, throttled},
		collect: func(ch chan<- prometheus.Metric) {
			st := fn()
			ch <- prometheus.MustNewConstMetric(pending, prometheus.GaugeValue, float64(st.PendingConnections))
			for d, v := range map[*prometheus.Desc]uint64{
				evicted: st.EvictedPending, hs: st.HandshakeTimeouts, idle: st.IdleClosed, frame: st.FrameTimeouts,
				write: st.WriteTimeouts, tooBig: st.FramesTooBig, bp: st.Backpressured, throttled: st.AuthThrottled,
			} {
				ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v))
			}
		}})
}
