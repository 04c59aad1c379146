package mirror

import "github.com/prometheus/client_golang/prometheus"

// Collector exposes every mirror's counters to Prometheus:
// dohyo_mirror_{sent,applied,failed,dropped}_total, _errors_total{code},
// _reads_compared_total, _mismatches_total, _queued, _lag_seconds and
// _state{state} (1 for the current one).
func (m *Mirror) Collector() prometheus.Collector { return collector{m} }

type collector struct{ m *Mirror }

var (
	descSent       = prometheus.NewDesc("dohyo_mirror_sent_total", "Requests queued for a mirror.", []string{"mirror"}, nil)
	descApplied    = prometheus.NewDesc("dohyo_mirror_applied_total", "Requests a mirror answered without error.", []string{"mirror"}, nil)
	descFailed     = prometheus.NewDesc("dohyo_mirror_failed_total", "Requests a mirror answered with an error.", []string{"mirror"}, nil)
	descDropped    = prometheus.NewDesc("dohyo_mirror_dropped_total", "Requests never sent to a mirror because its queue was full.", []string{"mirror"}, nil)
	descErrors     = prometheus.NewDesc("dohyo_mirror_errors_total", "Mirror errors by CQL error code.", []string{"mirror", "code"}, nil)
	descCompared   = prometheus.NewDesc("dohyo_mirror_reads_compared_total", "Sampled reads compared with the primary.", []string{"mirror"}, nil)
	descMismatches = prometheus.NewDesc("dohyo_mirror_mismatches_total", "Sampled reads whose mirror rows differed.", []string{"mirror"}, nil)
	descQueued     = prometheus.NewDesc("dohyo_mirror_queued", "Requests waiting for a mirror.", []string{"mirror"}, nil)
	descLag        = prometheus.NewDesc("dohyo_mirror_lag_seconds", "Queue time of the last request a mirror applied.", []string{"mirror"}, nil)
	descState      = prometheus.NewDesc("dohyo_mirror_state", "1 for a mirror's current state (ok, behind, down).", []string{"mirror", "state"}, nil)
)

func (collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descSent, descApplied, descFailed, descDropped, descErrors,
		descCompared, descMismatches, descQueued, descLag, descState} {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	for _, st := range c.m.Status() {
		counter := func(d *prometheus.Desc, v int64) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), st.Name)
		}
		counter(descSent, st.Sent)
		counter(descApplied, st.Applied)
		counter(descFailed, st.Failed)
		counter(descDropped, st.Dropped)
		counter(descCompared, st.Compared)
		counter(descMismatches, st.Mismatches)
		for code, n := range st.Errors {
			ch <- prometheus.MustNewConstMetric(descErrors, prometheus.CounterValue, float64(n), st.Name, code)
		}
		ch <- prometheus.MustNewConstMetric(descQueued, prometheus.GaugeValue, float64(st.Queued), st.Name)
		ch <- prometheus.MustNewConstMetric(descLag, prometheus.GaugeValue, st.LagMs/1e3, st.Name)
		for _, s := range []string{StateOK, StateBehind, StateDown} {
			v := 0.0
			if s == st.State {
				v = 1
			}
			ch <- prometheus.MustNewConstMetric(descState, prometheus.GaugeValue, v, st.Name, s)
		}
	}
}
