package cqlserver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/cql/wire"
)

var slowQuery = &message.Query{Query: "SELECT * FROM ks.slow", Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}}

// slowRequests counts the SELECTs from ks.slow the fake backend is running.
func (ts *testServer) slowRequests() int {
	ts.fake.mu.Lock()
	defer ts.fake.mu.Unlock()
	n := 0
	for _, r := range ts.fake.reqs {
		if strings.Contains(r.Query, "ks.slow") {
			n++
		}
	}
	return n
}

func errorCode(t *testing.T, m message.Message) primitive.ErrorCode {
	t.Helper()
	e, ok := m.(message.Error)
	if !ok {
		t.Fatalf("got %v, want an error", m)
	}
	return e.GetErrorCode()
}

func TestInFlightPerConnection(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.MaxInFlightPerConn = 2 })
	c := ts.pipeClient(t, 4)
	c.startup("")
	a, b := c.send(slowQuery), c.send(slowQuery)
	waitFor(t, "two slow requests", func() bool { return ts.slowRequests() == 2 })
	if got := ts.srv.Stats().InFlight; got != 2 {
		t.Errorf("Stats().InFlight = %d, want 2", got)
	}
	f := c.do(slowQuery)
	if code := errorCode(t, f.Body.Message); code != primitive.ErrorCodeOverloaded {
		t.Fatalf("third request: code %v, want Overloaded", code)
	}
	if !strings.Contains(f.Body.Message.(message.Error).GetErrorMessage(), "2 requests are in flight on this connection") {
		t.Errorf("message %q does not explain the limit", f.Body.Message.(message.Error).GetErrorMessage())
	}
	// Requests that do not wait answer normally once slots free up.
	close(ts.fake.release)
	got := map[int16]bool{}
	for i := 0; i < 2; i++ {
		got[c.read().Header.StreamId] = true
	}
	if !got[a] || !got[b] {
		t.Errorf("answered streams %v, want %d and %d", got, a, b)
	}
	c.rows("SELECT * FROM ks.t", nil)
	// Slots are released just after the answer is queued.
	waitFor(t, "the slots to be released", func() bool { return ts.srv.Stats().InFlight == 0 })
	if st := ts.srv.Stats(); st.Overloaded != 1 {
		t.Errorf("Stats = %+v, want Overloaded 1", st)
	}
}

func TestInFlightServerWide(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.MaxInFlight = 3 })
	addr := ts.listen(t)
	c1 := ts.tcpClient(t, addr, 4)
	c1.startup("")
	c2 := ts.tcpClient(t, addr, 5)
	c2.startup("")
	c1.send(slowQuery)
	c1.send(slowQuery)
	c2.send(slowQuery)
	waitFor(t, "three slow requests", func() bool { return ts.slowRequests() == 3 })
	for _, c := range []*client{c1, c2} {
		if code := errorCode(t, c.query("SELECT * FROM ks.t", nil)); code != primitive.ErrorCodeOverloaded {
			t.Errorf("v%d: code %v, want Overloaded", c.version, code)
		}
	}
	close(ts.fake.release)
	c1.read()
	c1.read()
	c2.read()
	c2.rows("SELECT * FROM ks.t", nil)
}

func TestInFlightBoundedWait(t *testing.T) {
	ts := newTestServer(t, func(c *Config) {
		c.MaxInFlightPerConn = 1
		c.InFlightWait = 10 * time.Second
	})
	c := ts.pipeClient(t, 4)
	c.startup("")
	slow := c.send(slowQuery)
	waitFor(t, "the slow request", func() bool { return ts.slowRequests() == 1 })
	fast := c.send(&message.Query{Query: "SELECT * FROM ks.t", Options: &message.QueryOptions{Consistency: 1}})
	close(ts.fake.release) // frees the slot the second request waits for
	for _, want := range []int16{slow, fast} {
		f := c.read()
		if f.Header.StreamId != want {
			t.Errorf("answer on stream %d, want %d", f.Header.StreamId, want)
		}
		if _, isErr := f.Body.Message.(message.Error); isErr {
			t.Errorf("stream %d: %v", f.Header.StreamId, f.Body.Message)
		}
	}

	// A wait that runs out answers Overloaded.
	ts2 := newTestServer(t, func(c *Config) {
		c.MaxInFlightPerConn = 1
		c.InFlightWait = 20 * time.Millisecond
	})
	c2 := ts2.pipeClient(t, 4)
	c2.startup("")
	c2.send(slowQuery)
	waitFor(t, "the slow request", func() bool { return ts2.slowRequests() == 1 })
	if code := errorCode(t, c2.query("SELECT * FROM ks.t", nil)); code != primitive.ErrorCodeOverloaded {
		t.Errorf("after the wait: code %v, want Overloaded", code)
	}
	close(ts2.fake.release)
}

func TestMaxConnections(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.MaxConnections = 2 })
	addr := ts.listen(t)
	for i := 0; i < 2; i++ {
		ts.tcpClient(t, addr, 4).startup("")
	}
	over := ts.tcpClient(t, addr, 4)
	// OPTIONS still works (drivers probe with it); STARTUP is refused with
	// a message naming the limit, and the connection closes.
	if f := over.do(&message.Options{}); f.Body.Message.GetOpCode() != primitive.OpCodeSupported {
		t.Fatalf("OPTIONS on a refused connection: %v", f.Body.Message)
	}
	f := over.do(message.NewStartup())
	if code := errorCode(t, f.Body.Message); code != primitive.ErrorCodeOverloaded {
		t.Fatalf("STARTUP over the limit: code %v", code)
	}
	if msg := f.Body.Message.(message.Error).GetErrorMessage(); !strings.Contains(msg, "at most 2") {
		t.Errorf("message %q does not name the limit", msg)
	}
	over.expectClosed()
	st := ts.srv.Stats()
	if st.Connections != 2 || st.RejectedConnections != 1 {
		t.Errorf("Stats = %+v, want 2 connections, 1 rejected", st)
	}
}

func TestMaxConnectionsFreedSlot(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.MaxConnections = 1 })
	addr := ts.listen(t)
	first := ts.tcpClient(t, addr, 4)
	first.startup("")
	first.nc.Close()
	waitFor(t, "the closed connection to be released", func() bool { return ts.srv.Stats().Connections == 0 })
	c := ts.tcpClient(t, addr, 4)
	c.startup("")
	c.rows("SELECT * FROM ks.t", nil)
}

// slowWrites delays INSERT/UPDATE/DELETE and BATCH until ctx ends.
type slowWrites struct{ *fakeBackend }

func (s slowWrites) Execute(ctx context.Context, req *bindings.Request) (*bindings.Result, error) {
	switch req.Parsed.Stmt.(type) {
	case *cql.Insert, *cql.Update, *cql.Delete:
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return s.fakeBackend.Execute(ctx, req)
}

func (s slowWrites) Batch(ctx context.Context, _ *bindings.BatchRequest) (*bindings.Result, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestRequestTimeout(t *testing.T) {
	fake := newFakeBackend(t)
	ts := newTestServerWith(t, slowWrites{fake}, fake, func(c *Config) { c.RequestTimeout = 50 * time.Millisecond })
	quorum := &message.QueryOptions{Consistency: primitive.ConsistencyLevelQuorum}
	cases := []struct {
		name      string
		msg       message.Message
		code      primitive.ErrorCode
		writeType primitive.WriteType
		cl        primitive.ConsistencyLevel
	}{
		{"select", &message.Query{Query: "SELECT * FROM ks.slow", Options: quorum}, primitive.ErrorCodeReadTimeout, "", primitive.ConsistencyLevelQuorum},
		{"insert", &message.Query{Query: "INSERT INTO ks.t (k, v) VALUES (1, 'a')", Options: quorum}, primitive.ErrorCodeWriteTimeout, primitive.WriteTypeSimple, primitive.ConsistencyLevelQuorum},
		{"lwt", &message.Query{Query: "INSERT INTO ks.t (k, v) VALUES (1, 'a') IF NOT EXISTS", Options: quorum}, primitive.ErrorCodeWriteTimeout, primitive.WriteTypeCas, primitive.ConsistencyLevelSerial},
		{"logged batch", &message.Batch{Type: primitive.BatchTypeLogged, Consistency: primitive.ConsistencyLevelOne,
			Children: []*message.BatchChild{{Query: "INSERT INTO ks.t (k, v) VALUES (1, 'a')"}}}, primitive.ErrorCodeWriteTimeout, primitive.WriteTypeBatch, primitive.ConsistencyLevelOne},
		{"unlogged batch", &message.Batch{Type: primitive.BatchTypeUnlogged, Consistency: primitive.ConsistencyLevelOne,
			Children: []*message.BatchChild{{Query: "INSERT INTO ks.t (k, v) VALUES (1, 'a')"}}}, primitive.ErrorCodeWriteTimeout, primitive.WriteTypeUnloggedBatch, primitive.ConsistencyLevelOne},
	}
	for _, v := range allVersions {
		c := ts.pipeClient(t, v)
		c.startup("")
		for _, tc := range cases {
			t.Run(v.String()+" "+tc.name, func(t *testing.T) {
				m := c.do(tc.msg).Body.Message
				if code := errorCode(t, m); code != tc.code {
					t.Fatalf("code %v, want %v (%v)", code, tc.code, m)
				}
				switch e := m.(type) {
				case *message.ReadTimeout:
					if e.Consistency != tc.cl || e.BlockFor != 1 || e.Received != 0 || e.DataPresent {
						t.Errorf("read timeout fields %+v", e)
					}
				case *message.WriteTimeout:
					if e.Consistency != tc.cl || e.BlockFor != 1 || e.Received != 0 || e.WriteType != tc.writeType {
						t.Errorf("write timeout fields %+v, want consistency %v write type %v", e, tc.cl, tc.writeType)
					}
				default:
					t.Errorf("message type %T", m)
				}
				if !strings.Contains(m.(message.Error).GetErrorMessage(), "timed out") {
					t.Errorf("message %q", m.(message.Error).GetErrorMessage())
				}
			})
		}
		c.rows("SELECT * FROM ks.t", nil) // the connection stays usable
	}
	if got := ts.srv.Stats().TimedOut; got != uint64(len(cases)*len(allVersions)) {
		t.Errorf("Stats().TimedOut = %d, want %d", got, len(cases)*len(allVersions))
	}
	// DDL is not bounded by the request timeout.
	if got := ts.srv.timeoutFor(&request{op: wire.OpQuery, query: " /* x */ CREATE TABLE ks.x (k int PRIMARY KEY)"}); got != 0 {
		t.Errorf("DDL deadline %v, want none", got)
	}
}

// TestRequestTimeoutBackendIgnoresContext: a backend that never looks at
// ctx still lets the client be answered on time, and its late answer is
// dropped (the client may already reuse the stream id).
func TestRequestTimeoutBackendIgnoresContext(t *testing.T) {
	fake := newFakeBackend(t)
	stuck := stuckBackend{fakeBackend: fake, release: make(chan struct{})}
	ts := newTestServerWith(t, stuck, fake, func(c *Config) { c.RequestTimeout = 30 * time.Millisecond })
	c := ts.pipeClient(t, 4)
	c.startup("")
	id := c.send(&message.Query{Query: "SELECT * FROM ks.stuck", Options: &message.QueryOptions{Consistency: 1}})
	f := c.read()
	if f.Header.StreamId != id || errorCode(t, f.Body.Message) != primitive.ErrorCodeReadTimeout {
		t.Fatalf("stream %d: %v, want a ReadTimeout on %d", f.Header.StreamId, f.Body.Message, id)
	}
	if got := ts.srv.Stats().InFlight; got != 1 {
		t.Errorf("InFlight = %d while the backend call runs, want 1", got)
	}
	close(stuck.release)
	waitFor(t, "the backend call to return", func() bool { return ts.srv.Stats().InFlight == 0 })
	c.stream = id - 1 // reuse the stream id
	c.rows("SELECT * FROM ks.t", nil)
}

// stuckBackend blocks SELECTs from ks.stuck until release, ignoring ctx.
type stuckBackend struct {
	*fakeBackend
	release chan struct{}
}

func (s stuckBackend) Execute(ctx context.Context, req *bindings.Request) (*bindings.Result, error) {
	if sel, ok := req.Parsed.Stmt.(*cql.Select); ok && sel.Table == "stuck" {
		<-s.release
		return &bindings.Result{Kind: bindings.ResultVoid}, nil
	}
	return s.fakeBackend.Execute(ctx, req)
}

func TestFirstKeyword(t *testing.T) {
	for in, want := range map[string]string{
		"SELECT * FROM t":              "select",
		"  \n\tinsert into":            "insert",
		"-- c\n// d\n/* e */ Create x": "create",
		"/* unterminated":              "",
		"":                             "",
		"BEGIN BATCH":                  "begin",
	} {
		if got := firstKeyword(in); got != want {
			t.Errorf("firstKeyword(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRateLog(t *testing.T) {
	var r rateLog
	t0 := time.Unix(1000, 0)
	steps := []struct {
		at         time.Duration
		ok         bool
		suppressed int
	}{
		{0, true, 0},
		{100 * time.Millisecond, false, 0},
		{900 * time.Millisecond, false, 0},
		{1100 * time.Millisecond, true, 2},
		{1200 * time.Millisecond, false, 0},
		{5 * time.Second, true, 1},
	}
	for _, s := range steps {
		ok, n := r.allow(t0.Add(s.at), time.Second)
		if ok != s.ok || n != s.suppressed {
			t.Errorf("at %v: allow = %v, %d; want %v, %d", s.at, ok, n, s.ok, s.suppressed)
		}
	}
}
