package metrics

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/dohyo/dohyo/bindings"
)

// value returns the value of the series of name whose labels include want
// (counter, gauge, or a histogram's sample count), and whether it exists.
func value(t *testing.T, g prometheus.Gatherer, name string, want map[string]string) (float64, bool) {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	next:
		for _, m := range mf.GetMetric() {
			have := map[string]string{}
			for _, lp := range m.GetLabel() {
				have[lp.GetName()] = lp.GetValue()
			}
			for k, v := range want {
				if have[k] != v {
					continue next
				}
			}
			switch mf.GetType() {
			case dto.MetricType_COUNTER:
				return m.GetCounter().GetValue(), true
			case dto.MetricType_GAUGE:
				return m.GetGauge().GetValue(), true
			case dto.MetricType_HISTOGRAM:
				return float64(m.GetHistogram().GetSampleCount()), true
			}
		}
	}
	return 0, false
}

type recordingTap struct{ got []*bindings.Observation }

func (r *recordingTap) Observe(o *bindings.Observation) { r.got = append(r.got, o) }

func TestRequestTap(t *testing.T) {
	reg := NewRegistry()
	m, err := New(reg, "test")
	if err != nil {
		t.Fatal(err)
	}
	var known KeyspaceSet
	known.Set([]string{"shop"})
	next := &recordingTap{}
	tap := m.Tap(TapConfig{Next: next, Keyspaces: &known, Backend: func(ks string) string {
		if ks == "hb" {
			return "hbase://zk:2181"
		}
		return "embedded://memory"
	}})
	obs := []*bindings.Observation{
		{Source: bindings.SourceCQL, Query: "SELECT * FROM shop.items WHERE id = ?", Latency: 200 * time.Microsecond},
		{Source: bindings.SourceCQL, Query: "SELECT * FROM items WHERE id = ?", Keyspace: "shop", Latency: time.Millisecond},
		{Source: bindings.SourceCQL, Query: "INSERT INTO nosuch.t (k) VALUES (1)", Err: true, ErrCode: bindings.CodeInvalid},
		{Source: bindings.SourceCQL, Query: "INSERT INTO hb.t (k) VALUES (1)", Err: true, ErrCode: bindings.CodeWriteTimeout},
		{Source: bindings.SourceGraphQL, Query: "UPDATE shop.items SET v = 1 WHERE id = 1"},
		{Source: bindings.SourceCQL, Query: "SELECT * FROM system.local"},
		{Source: bindings.SourceCQL, Query: "SELECT now() FROM t"},
		// One batch of three children counts once.
		{Source: bindings.SourceCQL, Query: "INSERT INTO shop.items (id) VALUES (1)", BatchSize: 3, BatchIndex: 0},
		{Source: bindings.SourceCQL, Query: "INSERT INTO shop.items (id) VALUES (2)", BatchSize: 3, BatchIndex: 1},
		{Source: bindings.SourceCQL, Query: "INSERT INTO shop.items (id) VALUES (3)", BatchSize: 3, BatchIndex: 2},
	}
	for _, o := range obs {
		tap.Observe(o)
	}
	if len(next.got) != len(obs) {
		t.Errorf("forwarded %d observations, want %d", len(next.got), len(obs))
	}
	emb := "embedded://memory"
	for _, tc := range []struct {
		labels map[string]string
		want   float64
	}{
		{map[string]string{"endpoint": "cql", "keyspace": "shop", "op": "select", "backend": emb, "status": "ok"}, 2},
		{map[string]string{"endpoint": "cql", "keyspace": "other", "op": "insert", "backend": emb, "status": "Invalid"}, 1},
		{map[string]string{"endpoint": "cql", "keyspace": "other", "op": "insert", "backend": "hbase://zk:2181", "status": "WriteTimeout"}, 1},
		{map[string]string{"endpoint": "graphql", "keyspace": "shop", "op": "update", "status": "ok"}, 1},
		{map[string]string{"keyspace": "system", "op": "select"}, 1},
		{map[string]string{"keyspace": "none", "op": "select"}, 1},
		{map[string]string{"keyspace": "shop", "op": "batch"}, 1},
	} {
		if got, _ := value(t, reg, "dohyo_requests_total", tc.labels); got != tc.want {
			t.Errorf("dohyo_requests_total%v = %v, want %v", tc.labels, got, tc.want)
		}
	}
	if got, _ := value(t, reg, "dohyo_request_duration_seconds", map[string]string{"keyspace": "shop", "op": "select"}); got != 2 {
		t.Errorf("histogram count = %v, want 2", got)
	}
	if got, _ := value(t, reg, "dohyo_backend_errors_total", map[string]string{"backend": "hbase://zk:2181", "code": "WriteTimeout"}); got != 1 {
		t.Errorf("backend errors = %v, want 1", got)
	}
	if _, ok := value(t, reg, "dohyo_backend_errors_total", map[string]string{"code": "Invalid"}); ok {
		t.Error("a client error (Invalid) counted as a backend error")
	}
	if _, ok := value(t, reg, "dohyo_requests_total", map[string]string{"keyspace": "nosuch"}); ok {
		t.Error("a keyspace outside the catalog got its own label")
	}
}

func TestWatchers(t *testing.T) {
	reg := NewRegistry()
	m, err := New(reg, "v1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	cache := CacheStats{Size: 3, Hits: 10, Evictions: 1}
	capStats := CaptureStats{Records: 5, Bytes: 100, Dropped: 2, WrittenThrough: time.Unix(1_700_000_000, 500_000_000)}
	srv := ServerStats{Connections: 4, InFlight: 7, RejectedConnections: 1, Overloaded: 9, TimedOut: 2, AuthFailures: 3}
	for _, err := range []error{
		m.WatchPreparedCache(func() CacheStats { return cache }),
		m.WatchCapture(func() CaptureStats { return capStats }),
		m.WatchCQLServer(func() ServerStats { return srv }),
		m.WatchRelay("cassandra://u:pw@c1:9042", func() RelayStats {
			return RelayStats{Requests: 11, Reprepares: 12, Failures: 13, Connections: 14, Resends: 15, SchemaAgreed: 19, SchemaDisagreed: 20,
				Nodes: []RelayNodeStats{{Node: "c1:9042", State: "down", Requests: 16, Lost: 17, Downs: 18}}}
		}),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	h := m.TrackHTTP(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got, _ := value(t, reg, "dohyo_inflight_requests", map[string]string{"endpoint": "graphql"}); got != 1 {
			t.Errorf("graphql in flight during a request = %v, want 1", got)
		}
	}), "/graphql")
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/graphql/ks", nil))
	for name, want := range map[string]float64{
		"dohyo_prepared_cache_size":             3,
		"dohyo_prepared_cache_hits_total":       10,
		"dohyo_prepared_cache_evictions_total":  1,
		"dohyo_capture_records_total":           5,
		"dohyo_capture_bytes_total":             100,
		"dohyo_capture_dropped_total":           2,
		"dohyo_capture_written_through_seconds": 1_700_000_000.5,
		"dohyo_capture_synced_through_seconds":  0, // the zero time: never synced
		"dohyo_client_connections":              4,
		"dohyo_rejected_connections_total":      1,
		"dohyo_overloaded_requests_total":       9,
		"dohyo_request_timeouts_total":          2,
		"dohyo_auth_failures_total":             3,
		"dohyo_build_info":                      1,
	} {
		if got, ok := value(t, reg, name, nil); !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", name, got, ok, want)
		}
	}
	if got, _ := value(t, reg, "dohyo_inflight_requests", map[string]string{"endpoint": "cql"}); got != 7 {
		t.Errorf("cql in flight = %v, want 7", got)
	}
	if got, _ := value(t, reg, "dohyo_inflight_requests", map[string]string{"endpoint": "graphql"}); got != 0 {
		t.Errorf("graphql in flight after the request = %v, want 0", got)
	}
	for name, want := range map[string]float64{
		"dohyo_relay_requests_total": 11, "dohyo_relay_reprepares_total": 12,
		"dohyo_relay_failures_total": 13, "dohyo_relay_connections": 14, "dohyo_relay_resends_total": 15,
	} {
		if got, ok := value(t, reg, name, map[string]string{"backend": BackendLabel("cassandra://u:pw@c1:9042")}); !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", name, got, ok, want)
		}
	}
	for name, want := range map[string]float64{
		"dohyo_relay_node_requests_total": 16, "dohyo_relay_node_lost_total": 17, "dohyo_relay_node_downs_total": 18,
	} {
		if got, ok := value(t, reg, name, map[string]string{"node": "c1:9042"}); !ok || got != want {
			t.Errorf("%s = %v (present %v), want %v", name, got, ok, want)
		}
	}
	for agreement, want := range map[string]float64{"agreed": 19, "disagreed": 20} {
		if got, ok := value(t, reg, "dohyo_relay_schema_changes_total", map[string]string{"agreement": agreement}); !ok || got != want {
			t.Errorf("dohyo_relay_schema_changes_total{agreement=%q} = %v (present %v), want %v", agreement, got, ok, want)
		}
	}
	for state, want := range map[string]float64{"up": 0, "suspect": 0, "down": 1} {
		if got, ok := value(t, reg, "dohyo_relay_node_state", map[string]string{"node": "c1:9042", "state": state}); !ok || got != want {
			t.Errorf("dohyo_relay_node_state{state=%q} = %v (present %v), want %v", state, got, ok, want)
		}
	}
	cache.Size = 4 // read at scrape time
	if got, _ := value(t, reg, "dohyo_prepared_cache_size", nil); got != 4 {
		t.Errorf("cache size after change = %v, want 4", got)
	}

	// The handler serves the text format with runtime metrics.
	rec := httptest.NewRecorder()
	Handler(reg).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, want := range []string{"dohyo_client_connections 4", "go_goroutines", "process_resident_memory_bytes", `dohyo_build_info{version="v1.2.3"} 1`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

func TestBackendLabel(t *testing.T) {
	for in, want := range map[string]string{
		"cassandra://user:pw@h1,h2:9042?consistency=QUORUM": "cassandra://h1,h2:9042",
		"hbase://zk:2181?salt=16":                           "hbase://zk:2181",
		"embedded://memory":                                 "embedded://memory",
		"embedded:///data":                                  "embedded:///data",
		"dohyo-virtual":                                     "dohyo-virtual",
		"hbase://zk1:2181,zk2:2181/hbase?salt=4":            "hbase://zk1:2181,zk2:2181/hbase",
		"cassandra://u:p@w@h1/x@y":                          "cassandra://h1/x@y",
	} {
		if got := BackendLabel(in); got != want {
			t.Errorf("BackendLabel(%q) = %q, want %q", in, got, want)
		}
	}
}
