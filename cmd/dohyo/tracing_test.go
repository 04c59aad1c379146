package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// TestServeCqlshTracing: cqlsh's TRACING ON through dohyo prints the
// trace of each statement, with dohyo's own events (read from the
// system_traces tables dohyo serves).
func TestServeCqlshTracing(t *testing.T) {
	cqlsh := externalTool(t, "DOHYO_TEST_CQLSH")
	for name, backend := range clientBackends(t, "tr") {
		t.Run(name, func(t *testing.T) {
			p := startServe(t, "--backend", backend)
			host, port, _ := net.SplitHostPort(p.CQLAddr)
			out, err := runTool(t, 2*time.Minute, cqlsh, host, port, "-e", `
				CREATE KEYSPACE tr WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
				CREATE TABLE tr.t (k int PRIMARY KEY, v text);
				INSERT INTO tr.t (k, v) VALUES (1, 'one');
				TRACING ON;
				SELECT v FROM tr.t WHERE k = 1;`)
			if err != nil {
				t.Fatalf("cqlsh: %v\n%s", err, out)
			}
			wants := []string{"Tracing session: ", "Execute CQL3 query", "Request complete"}
			switch name {
			case "cassandra": // dohyo's events, then Cassandra's own
				wants = append(wants, "Relayed to Cassandra node ", "Cassandra tracing session ",
					"Parsing SELECT v FROM tr.t WHERE k = 1", "Read 1 live rows")
			default:
				store := "[pebble get]"
				if name == "hbase" {
					store = "[hbase Get]"
				}
				wants = append(wants, "Parsing SELECT v FROM tr.t WHERE k = ? [parse]", "Routing keyspace tr to ",
					"Executing SELECT tr.t on ", store, "Backend returned 1 rows [SELECT tr.t]",
					"Handing the request to capture [capture]")
			}
			for _, want := range wants {
				if !strings.Contains(out, want) {
					t.Errorf("cqlsh TRACING ON output lacks %q:\n%s", want, out)
				}
			}
			if strings.Contains(out, "did not complete") || strings.Contains(out, "wasn't found") {
				t.Errorf("cqlsh could not read the trace:\n%s", out)
			}
		})
	}
}

// collector is a fake OTLP/HTTP collector keeping the request bodies.
type collector struct {
	mu     sync.Mutex
	bodies [][]byte
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	if r.URL.Path == "/v1/traces" && r.Header.Get("Content-Type") == "application/x-protobuf" {
		c.mu.Lock()
		c.bodies = append(c.bodies, b)
		c.mu.Unlock()
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.WriteHeader(http.StatusOK)
}

func (c *collector) all() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Join(c.bodies, nil)
}

// TestServeExportsSpans: with tracing-endpoint set, dohyo serve exports
// its spans over OTLP (here OTLP/HTTP to a fake collector); shutdown
// flushes them. The client's traceparent (custom payload) is followed.
func TestServeExportsSpans(t *testing.T) {
	col := &collector{}
	hs := httptest.NewServer(col)
	defer hs.Close()
	p := startServe(t, "--backend", "embedded://memory", "--tracing-endpoint", hs.URL,
		"--tracing-protocol", "http/protobuf", "--tracing-sample-ratio", "0")
	host, portText, _ := net.SplitHostPort(p.CQLAddr)
	port, _ := strconv.Atoi(portText)
	cluster := gocql.NewCluster(host)
	cluster.Port = port
	cluster.Timeout = 30 * time.Second
	cluster.Consistency = gocql.One
	sess, err := cluster.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE KEYSPACE ex WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ex.t (k int PRIMARY KEY, v text)",
	} {
		if err := sess.Query(q).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// Sample ratio 0: only the request whose client sampled it is traced.
	traceID := []byte{0x5b, 0x8e, 0xfd, 0xf2, 0x9c, 0x6a, 0x4e, 0x11, 0x8a, 0x31, 0x0b, 0x2f, 0x77, 0x1c, 0x42, 0x01}
	tp := "00-5b8efdf29c6a4e118a310b2f771c4201-1111111111111111-01"
	if err := sess.Query("INSERT INTO ex.t (k, v) VALUES (?, ?)", 1, "one").
		CustomPayload(map[string][]byte{"traceparent": []byte(tp)}).Exec(); err != nil {
		t.Fatal(err)
	}
	sess.Close()
	p.stop(t) // flushes the exporter
	got := col.all()
	for _, want := range [][]byte{[]byte("cql EXECUTE"), []byte("INSERT ex.t"), []byte("pebble apply"), []byte("capture"), traceID, []byte("db.system.name")} {
		if !bytes.Contains(got, want) {
			t.Errorf("exported spans lack %q (%d bytes exported)", want, len(got))
		}
	}
	// Requests without a sampled client context were not exported.
	if n := len(regexp.MustCompile(`cql (QUERY|PREPARE)`).FindAll(got, -1)); n != 0 {
		t.Errorf("%d unsampled requests exported", n)
	}
}
