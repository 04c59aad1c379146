package cqlserver

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
	"github.com/gocql/gocql"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/embedded"
	"github.com/dohyo/dohyo/bindings/stores"
	"github.com/dohyo/dohyo/cql/wire"
	"github.com/dohyo/dohyo/engine"
	"github.com/dohyo/dohyo/telemetry"
)

// hbaseZKEnv names the ZooKeeper quorum of the test HBase.
const hbaseZKEnv = "DOHYO_TEST_HBASE_ZK"

// storeBackend is a real backend the tracing tests run on.
type storeBackend struct {
	name, system, kvPrefix string
	open                   func(t testing.TB) bindings.Backend
}

// storeBackends: the embedded store always; HBase when
// DOHYO_TEST_HBASE_ZK names one (required under CI=true).
func storeBackends(t testing.TB) []storeBackend {
	t.Helper()
	out := []storeBackend{{name: "embedded", system: "pebble", kvPrefix: "pebble ", open: func(t testing.TB) bindings.Backend {
		t.Helper()
		be, err := stores.Embedded(context.Background(), embedded.Config{}, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { be.Close() })
		return be
	}}}
	zk := os.Getenv(hbaseZKEnv)
	if zk == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: CI runs the tracing tests on HBase too", hbaseZKEnv)
		}
		return out
	}
	return append(out, storeBackend{name: "hbase", system: "hbase", kvPrefix: "hbase ", open: func(t testing.TB) bindings.Backend {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		be, err := stores.OpenURL(ctx, fmt.Sprintf("hbase://%s?catalog=trace%d", zk, time.Now().UnixNano()), engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { be.Close() })
		return be
	}})
}

// tracedServer serves be with a tracer whose spans go to the returned
// recorder. Only requests with a sampled client trace context are traced
// (ParentBased(NeverSample)), so the test's own setup leaves no spans.
func tracedServer(t testing.TB, be bindings.Backend) (*testServer, *tracetest.SpanRecorder) {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.NeverSample())))
	ts := newTestServerWith(t, be, nil, func(c *Config) { c.Tracer = telemetry.New(telemetry.Options{Provider: tp}) })
	return ts, rec
}

// doFrame sends msg with a custom payload (and the tracing flag).
func (c *client) doFrame(msg message.Message, payload map[string][]byte, tracing bool) *frame.Frame {
	c.t.Helper()
	c.stream++
	f := frame.NewFrame(c.version, c.stream, msg)
	if payload != nil {
		f.SetCustomPayload(payload)
	}
	var b bytes.Buffer
	if err := c.codec.EncodeFrame(f, &b); err != nil {
		c.t.Fatalf("encode: %v", err)
	}
	raw := b.Bytes()
	if tracing {
		// The library counts a tracing id in request lengths too: set the
		// flag on the encoded bytes.
		raw[1] |= byte(primitive.HeaderFlagTracing)
	}
	c.writeRaw(raw)
	got := c.read()
	if got.Header.StreamId != c.stream {
		c.t.Fatalf("answer on stream %d, want %d", got.Header.StreamId, c.stream)
	}
	return got
}

func attrsOf(s sdktrace.ReadOnlySpan) map[string]string {
	out := map[string]string{}
	for _, kv := range s.Attributes() {
		out[string(kv.Key)] = kv.Value.Emit()
	}
	return out
}

// spanTree indexes recorded spans by parent.
type spanTree struct {
	spans    []sdktrace.ReadOnlySpan
	children map[trace.SpanID][]sdktrace.ReadOnlySpan
}

func newSpanTree(spans []sdktrace.ReadOnlySpan) *spanTree {
	st := &spanTree{spans: spans, children: map[trace.SpanID][]sdktrace.ReadOnlySpan{}}
	for _, s := range spans {
		st.children[s.Parent().SpanID()] = append(st.children[s.Parent().SpanID()], s)
	}
	return st
}

func (st *spanTree) named(name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range st.spans {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

func (st *spanTree) child(parent sdktrace.ReadOnlySpan, name string) sdktrace.ReadOnlySpan {
	for _, s := range st.children[parent.SpanContext().SpanID()] {
		if s.Name() == name {
			return s
		}
	}
	return nil
}

func (st *spanTree) childNames(parent sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, s := range st.children[parent.SpanContext().SpanID()] {
		out = append(out, s.Name())
	}
	return out
}

func checkAttrs(t *testing.T, what string, s sdktrace.ReadOnlySpan, want map[string]string) {
	t.Helper()
	got := attrsOf(s)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s = %q, want %q (all: %v)", what, k, got[k], v, got)
		}
	}
}

// TestTraceSpans: a CQL read (QUERY, then EXECUTE of a prepared read)
// with a client-supplied traceparent gives a span tree in the client's
// trace: the request span, parse, route, the backend call with the store's
// own calls below it, and the capture hand-off; with the database
// semantic conventions' attributes and never a literal or bound value.
func TestTraceSpans(t *testing.T) {
	for _, sb := range storeBackends(t) {
		t.Run(sb.name, func(t *testing.T) { testTraceSpans(t, sb) })
	}
}

func testTraceSpans(t *testing.T, sb storeBackend) {
	ts, rec := tracedServer(t, sb.open(t))
	c := ts.tcpClient(t, ts.listen(t), primitive.ProtocolVersion4)
	c.startup("")
	ks := fmt.Sprintf("tr%d", time.Now().UnixNano()%1e9)
	c.query("CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", nil)
	c.query("CREATE TABLE "+ks+".t (k int PRIMARY KEY, v text)", nil)
	c.query("INSERT INTO "+ks+".t (k, v) VALUES (1, 'secret literal')", nil)
	if n := len(rec.Ended()); n != 0 {
		t.Fatalf("%d spans for requests without a sampled trace context", n)
	}

	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	const clientSpan = "00f067aa0ba902b7"
	payload := map[string][]byte{"traceparent": []byte("00-" + traceID + "-" + clientSpan + "-01")}
	got := c.doFrame(&message.Query{Query: "SELECT v FROM " + ks + ".t WHERE k = 1",
		Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}}, payload, false)
	if rows, ok := got.Body.Message.(*message.RowsResult); !ok || len(rows.Data) != 1 || string(rows.Data[0][0]) != "secret literal" {
		t.Fatalf("read: %v", got.Body.Message)
	}
	// A prepared read, its key bound.
	prep := c.do(&message.Prepare{Query: "SELECT v FROM " + ks + ".t WHERE k = ?"}).Body.Message.(*message.PreparedResult)
	got = c.doFrame(&message.Execute{QueryId: prep.PreparedQueryId, ResultMetadataId: prep.ResultMetadataId,
		Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne,
			PositionalValues: []*primitive.Value{primitive.NewValue(be32(1))}}}, payload, false)
	if rows, ok := got.Body.Message.(*message.RowsResult); !ok || len(rows.Data) != 1 {
		t.Fatalf("prepared read: %v", got.Body.Message)
	}

	tree := newSpanTree(rec.Ended())
	for _, s := range tree.spans {
		if got := s.SpanContext().TraceID().String(); got != traceID {
			t.Errorf("span %s in trace %s, want the client's %s", s.Name(), got, traceID)
		}
		for k, v := range attrsOf(s) {
			if strings.Contains(v, "secret") || strings.Contains(v, "= 1") {
				t.Errorf("span %s attribute %s = %q carries a value", s.Name(), k, v)
			}
		}
	}
	for _, tc := range []struct {
		root     string
		children []string
	}{
		{"cql QUERY", []string{"parse", "route", "SELECT " + ks + ".t", "capture"}},
		{"cql EXECUTE", []string{"route", "SELECT " + ks + ".t", "capture"}},
	} {
		roots := tree.named(tc.root)
		if len(roots) != 1 {
			t.Errorf("%d %q spans, want 1", len(roots), tc.root)
			continue
		}
		root := roots[0]
		if root.SpanKind() != trace.SpanKindServer || root.Parent().SpanID().String() != clientSpan || !root.Parent().IsRemote() {
			t.Errorf("%s: kind %v, parent %v (remote %v), want a server span under the client's %s",
				tc.root, root.SpanKind(), root.Parent().SpanID(), root.Parent().IsRemote(), clientSpan)
		}
		checkAttrs(t, tc.root, root, map[string]string{
			"db.system": "cassandra", "db.namespace": ks, "db.operation.name": "SELECT", "db.collection.name": "t",
			"db.query.text": "SELECT v FROM " + ks + ".t WHERE k = ?", "cassandra.consistency.level": "one",
		})
		for _, name := range tc.children {
			if tree.child(root, name) == nil {
				t.Errorf("%s has no child %q (children: %v)", tc.root, name, tree.childNames(root))
			}
		}
		backend := tree.child(root, "SELECT "+ks+".t")
		if backend == nil {
			continue
		}
		if backend.SpanKind() != trace.SpanKindClient {
			t.Errorf("backend span kind %v", backend.SpanKind())
		}
		checkAttrs(t, tc.root+" backend", backend, map[string]string{
			"db.system": sb.system, "db.system.name": sb.system, "db.namespace": ks, "db.operation.name": "SELECT",
			"db.collection.name": "t", "db.query.text": "SELECT v FROM " + ks + ".t WHERE k = ?",
			"db.response.returned_rows": "1", "dohyo.backend": "main",
		})
		var store []string
		for _, name := range tree.childNames(backend) {
			if strings.HasPrefix(name, sb.kvPrefix) {
				store = append(store, name)
			}
		}
		if len(store) == 0 {
			t.Errorf("%s: no %s* span under the backend call (children: %v)", tc.root, sb.kvPrefix, tree.childNames(backend))
		}
		if route := tree.child(root, "route"); route != nil {
			checkAttrs(t, "route", route, map[string]string{"dohyo.backend": "main", "db.namespace": ks})
		}
	}
}

// TestTracingFlag: a request with the TRACING flag is answered with a
// tracing id, and its session and events, built from dohyo's spans, are
// in system_traces; gocql's trace writer (a real client's) prints them.
func TestTracingFlag(t *testing.T) {
	be, err := stores.Embedded(context.Background(), embedded.Config{}, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	ts := newTestServerWith(t, be, nil, nil) // no OpenTelemetry: TRACING works on its own
	addr := ts.listen(t)
	c := ts.tcpClient(t, addr, primitive.ProtocolVersion4)
	c.startup("")
	c.query("CREATE KEYSPACE tf WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", nil)
	c.query("CREATE TABLE tf.t (k int PRIMARY KEY, v text)", nil)
	c.query("INSERT INTO tf.t (k, v) VALUES (1, 'one')", nil)

	got := c.doFrame(&message.Query{Query: "SELECT v FROM tf.t WHERE k = 1",
		Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}}, nil, true)
	if !got.Header.Flags.Contains(primitive.HeaderFlagTracing) || got.Body.TracingId == nil {
		t.Fatalf("no tracing id: header %v", got.Header)
	}
	if rows, ok := got.Body.Message.(*message.RowsResult); !ok || len(rows.Data) != 1 {
		t.Fatalf("traced read: %v", got.Body.Message)
	}
	id := got.Body.TracingId.String()
	sess := c.rows("SELECT * FROM system_traces.sessions WHERE session_id = "+id, nil)
	if len(sess.Data) != 1 {
		t.Fatalf("%d sessions for %s", len(sess.Data), id)
	}
	var cols []string
	for _, col := range sess.Metadata.Columns {
		cols = append(cols, col.Name)
	}
	if got, want := strings.Join(cols, ","), "session_id,client,command,coordinator,coordinator_port,duration,parameters,request,started_at"; got != want {
		t.Errorf("sessions columns %s, want Cassandra's %s", got, want)
	}
	row := rowMaps(sess)[0]
	if str(row["request"]) != "Execute CQL3 query" || str(row["command"]) != "QUERY" || row["duration"] == nil {
		t.Errorf("session row: request %q command %q duration %v", str(row["request"]), str(row["command"]), row["duration"])
	}
	if params := fmt.Sprint(decode(t, "map<text, text>", row["parameters"])); !strings.Contains(params, "SELECT v FROM tf.t WHERE k = 1") ||
		!strings.Contains(params, "{consistency_level ONE}") || strings.Contains(params, "page_size") {
		t.Errorf("parameters %s", params)
	}
	evs := c.rows("SELECT activity, thread, source_elapsed FROM system_traces.events WHERE session_id = "+id, nil)
	var acts []string
	for _, r := range rowMaps(evs) {
		acts = append(acts, str(r["activity"])+" ["+str(r["thread"])+"]")
	}
	text := strings.Join(acts, "\n")
	for _, want := range []string{
		"Parsing SELECT v FROM tf.t WHERE k = ? [parse]",
		"Routing keyspace tf to main [route]",
		"Executing SELECT tf.t on main [SELECT tf.t]",
		"Read 1 rows from Pebble [pebble get]",
		"Backend returned 1 rows [SELECT tf.t]",
		"Handing the request to capture [capture]",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("events lack %q:\n%s", want, text)
		}
	}

	// gocql: Query.Trace sets the flag, then its trace writer reads the
	// session (prepared, through the control connection) and the events.
	host, portText, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(portText)
	cluster := gocql.NewCluster(host)
	cluster.Port = port
	cluster.Timeout = 10 * time.Second
	cluster.Consistency = gocql.One
	gs, err := cluster.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer gs.Close()
	var out strings.Builder
	var v string
	if err := gs.Query("SELECT v FROM tf.t WHERE k = ?", 1).Trace(gocql.NewTraceWriter(gs, &out)).Scan(&v); err != nil || v != "one" {
		t.Fatalf("gocql traced read: %q, %v", v, err)
	}
	printed := out.String()
	for _, want := range []string{"Tracing session", "(coordinator: 127.0.0.1, duration:", "Routing keyspace tf to main [route]", "[pebble get]"} {
		if !strings.Contains(printed, want) {
			t.Errorf("gocql trace output lacks %q:\n%s", want, printed)
		}
	}
	t.Logf("gocql:\n%s", printed)
	if strings.Contains(printed, "Error") {
		t.Errorf("gocql trace output:\n%s", printed)
	}
}

func TestWithTracingID(t *testing.T) {
	id := [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	f := wire.StartFrame(getBuf(), 4, wire.FlagWarning, 7, wire.OpResult)
	f = wire.AppendStringList(f, []string{"w"})
	f = wire.AppendInt(f, 1)
	body := append([]byte(nil), f[wire.HeaderLen:]...)
	out := withTracingID(f, id)
	wire.FinishFrame(out)
	if out[1] != wire.FlagWarning|wire.FlagTracing || !bytes.Equal(out[wire.HeaderLen:wire.HeaderLen+16], id[:]) || !bytes.Equal(out[wire.HeaderLen+16:], body) {
		t.Fatalf("frame % x", out)
	}
	// Already traced (relayed): the id is replaced in place.
	other := [16]byte{9}
	again := withTracingID(out, other)
	if len(again) != len(out) || !bytes.Equal(again[wire.HeaderLen:wire.HeaderLen+16], other[:]) || !bytes.Equal(again[wire.HeaderLen+16:], body) {
		t.Fatalf("re-traced frame % x", again)
	}
}
