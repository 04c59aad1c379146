package mirror

import "github.com/prometheus/client_golang/prometheus"

// Collector exposes every mirror's counters to Prometheus:
// dohyo_mirror_{sent,applied,failed,dropped}_total, _errors_total{code},
// _reads_compared_total, _mismatches_total, _queued, _lag_seconds,
// _state{state} (1 for the current one), and per statement class (the
// first 256 a mirror applied) _class_latency_seconds{class, side} (count
// and sum on the primary and on the mirror: rate(sum)/rate(count) is each
// side's mean) and _class_mismatches_total{class}.
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
	descClassLat   = prometheus.NewDesc("dohyo_mirror_class_latency_seconds",
		"Latency of the requests a mirror applied, per statement class, on the primary and on the mirror (side).", []string{"mirror", "class", "side"}, nil)
	descClassMism = prometheus.NewDesc("dohyo_mirror_class_mismatches_total",
		"Sampled reads whose mirror rows differed, per statement class.", []string{"mirror", "class"}, nil)
)

func (collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descSent, descApplied, descFailed, descDropped, descErrors,
		descCompared, descMismatches, descQueued, descLag, descState, descClassLat, descClassMism} {
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
		for class, cl := range st.Classes {
			for _, side := range []struct {
				name string
				ms   float64
			}{{"primary", cl.PrimaryMs}, {"mirror", cl.MirrorMs}} {
				ch <- prometheus.MustNewConstSummary(descClassLat, uint64(cl.N), side.ms*float64(cl.N)/1e3, nil, st.Name, class, side.name)
			}
			if cl.Compared > 0 {
				ch <- prometheus.MustNewConstMetric(descClassMism, prometheus.CounterValue, float64(cl.Mismatches), st.Name, class)
			}
		}
		for _, s := range []string{StateOK, StateBehind, StateDown} {
			v := 0.0
			if s == st.State {
				v = 1
			}
			ch <- prometheus.MustNewConstMetric(descState, prometheus.GaugeValue, v, st.Name, s)
		}
	}
}
