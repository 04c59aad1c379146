package cqlserver

import (
	"context"
	"errors"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/bindings/embedded"
	"github.com/dohyo/dohyo/bindings/faulty"
	"github.com/dohyo/dohyo/bindings/stores"
	"github.com/dohyo/dohyo/engine"
)

// budgetServer serves an in-memory embedded backend; exceeded records
// the keyspaces OnBudgetExceeded reported.
type budgetServer struct {
	*testServer
	be       *faulty.Backend
	mu       sync.Mutex
	exceeded []string
}

func newBudgetServer(t *testing.T, mod func(*Config)) *budgetServer {
	t.Helper()
	e, err := stores.Embedded(context.Background(), embedded.Config{}, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	be := faulty.Wrap(e)
	t.Cleanup(func() { be.Close() })
	bs := &budgetServer{be: be}
	bs.testServer = newTestServerWith(t, be, nil, func(c *Config) {
		c.OnBudgetExceeded = func(ks string) {
			bs.mu.Lock()
			bs.exceeded = append(bs.exceeded, ks)
			bs.mu.Unlock()
		}
		if mod != nil {
			mod(c)
		}
	})
	return bs
}

func (bs *budgetServer) exceededKeyspaces() string {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	return strings.Join(bs.exceeded, ",")
}

// holdFault makes matching statements wait holdFor, reporting when one
// arrives and with which ctx error its wait ended.
func (bs *budgetServer) holdFault(t *testing.T, match string) (hit chan struct{}, done chan error) {
	t.Helper()
	hit, done = make(chan struct{}, 4), make(chan error, 4)
	remove := bs.be.InjectFault(faulty.Fault{Match: match, Delay: holdFor,
		Hit: func() { hit <- struct{}{} }, Done: func(err error) { done <- err }})
	t.Cleanup(remove)
	return hit, done
}

// awaitCancelled waits for a held statement's wait to end and checks the
// budget's deadline ended it.
func awaitCancelled(t *testing.T, done chan error) {
	t.Helper()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("the backend's wait ended with %v, want the budget's deadline", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the backend call was not cancelled")
	}
}

// pollUntil checks cond on a ticker until it holds or the deadline passes.
func pollUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// holdFor is how long holdFault holds a statement.
const holdFor = time.Minute

// answeredByDeadline checks when a request held past its deadline was
// answered, as facts rather than a latency: not before the deadline (the
// server starts it when it reads the request, after the client started
// its clock), and before the held backend call would have returned — so
// the answer came from the deadline, not from the backend. A loaded
// machine may answer seconds late; that is not what is tested.
func answeredByDeadline(t *testing.T, elapsed, deadline, held time.Duration) {
	t.Helper()
	if elapsed < deadline {
		t.Errorf("answered after %v, before the %v deadline", elapsed, deadline)
	}
	if elapsed >= held {
		t.Errorf("answered after %v: not before the backend's %v hold ended, so not by the %v deadline", elapsed, held, deadline)
	}
}

// TestClientBudgetGocql: gocql sets dohyo-budget-ms in the custom payload;
// a backend held past it gives the client a ReadTimeout (reads) or a
// WriteTimeout (writes) naming the budget, not before it and before the
// backend would have answered; the held backend call ends through its
// ctx's deadline, and no goroutine keeps working.
func TestClientBudgetGocql(t *testing.T) {
	bs := newBudgetServer(t, func(c *Config) { c.RequestTimeout = time.Minute })
	addr := bs.listen(t)
	host, portText, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(portText)
	cluster := gocql.NewCluster(host)
	cluster.Port = port
	cluster.Timeout = 30 * time.Second
	cluster.Consistency = gocql.LocalQuorum
	cluster.NumConns = 1
	cluster.RetryPolicy = &gocql.SimpleRetryPolicy{NumRetries: 0}
	sess, err := cluster.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	for _, q := range []string{
		"CREATE KEYSPACE bt WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE bt.t (k int PRIMARY KEY, v text)",
		"INSERT INTO bt.t (k, v) VALUES (1, 'one')",
	} {
		if err := sess.Query(q).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var v string
	if err := sess.Query("SELECT v FROM bt.t WHERE k = ?", 1).Scan(&v); err != nil { // prepared, warm
		t.Fatal(err)
	}
	baseline := runtime.NumGoroutine()
	hit, done := bs.holdFault(t, "bt.t")
	const budget = 300 * time.Millisecond
	payload := map[string][]byte{"dohyo-budget-ms": []byte("300")}

	start := time.Now()
	err = sess.Query("SELECT v FROM bt.t WHERE k = ?", 1).CustomPayload(payload).Scan(&v)
	elapsed := time.Since(start)
	var rt *gocql.RequestErrReadTimeout
	if !errors.As(err, &rt) {
		t.Fatalf("read past its budget: %v (%T), want a ReadTimeout", err, err)
	}
	if rt.Consistency != gocql.LocalQuorum || rt.Received != 0 || rt.BlockFor != 1 || !strings.Contains(rt.Message(), "300ms") {
		t.Errorf("ReadTimeout fields: %+v", rt)
	}
	answeredByDeadline(t, elapsed, budget, holdFor)
	<-hit
	awaitCancelled(t, done)

	err = sess.Query("INSERT INTO bt.t (k, v) VALUES (?, ?)", 2, "two").CustomPayload(payload).Exec()
	var wt *gocql.RequestErrWriteTimeout
	if !errors.As(err, &wt) || wt.WriteType != "SIMPLE" || wt.Consistency != gocql.LocalQuorum {
		t.Fatalf("write past its budget: %v (%+v), want a SIMPLE WriteTimeout", err, wt)
	}
	<-hit
	awaitCancelled(t, done)

	pollUntil(t, "no request in flight", func() bool { return bs.srv.Stats().InFlight == 0 })
	pollUntil(t, "goroutines back to the baseline", func() bool { return runtime.NumGoroutine() <= baseline })
	if st := bs.srv.Stats(); st.TimedOut != 2 {
		t.Errorf("TimedOut = %d, want 2", st.TimedOut)
	}
	if got := bs.exceededKeyspaces(); got != "bt,bt" {
		t.Errorf("budgets exceeded in %q, want bt,bt", got)
	}
}

func isRows(m message.Message) bool {
	_, ok := m.(*message.RowsResult)
	return ok
}

func isSchemaChange(m message.Message) bool {
	_, ok := m.(*message.SchemaChangeResult)
	return ok
}

func errorOf(t *testing.T, m message.Message) message.Error {
	t.Helper()
	e, ok := m.(message.Error)
	if !ok {
		t.Fatalf("got %v, want an error", m)
	}
	return e
}

// TestKeyspaceBudgets: per-keyspace budgets apply to statements that name
// no keyspace (the session's USE keyspace decides), a keyspace may get a
// longer budget than the default, schema changes have none, and a
// malformed client budget is refused.
func TestKeyspaceBudgets(t *testing.T) {
	bs := newBudgetServer(t, func(c *Config) {
		c.RequestTimeout = 150 * time.Millisecond
		c.KeyspaceTimeouts = map[string]time.Duration{"fast": 100 * time.Millisecond, "patient": time.Minute}
	})
	c := bs.tcpClient(t, bs.listen(t), primitive.ProtocolVersion4)
	c.startup("")
	for _, ks := range []string{"fast", "patient", "plain"} {
		c.query("CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", nil)
		c.query("CREATE TABLE "+ks+".t (k int PRIMARY KEY, v text)", nil)
	}
	_, done := bs.holdFault(t, "FROM t WHERE k = 1")

	c.query("USE fast", nil)
	start := time.Now()
	e := errorOf(t, c.query("SELECT * FROM t WHERE k = 1", nil))
	if e.GetErrorCode() != primitive.ErrorCodeReadTimeout || !strings.Contains(e.GetErrorMessage(), "100ms") {
		t.Errorf("USE fast: %v, want a ReadTimeout naming the 100ms budget", e)
	}
	answeredByDeadline(t, time.Since(start), 100*time.Millisecond, holdFor)
	awaitCancelled(t, done)

	// Longer than the default: the outer bound is the longest budget. A
	// statement held 400ms (past the default) completes.
	removeHold := bs.be.InjectFault(faulty.Fault{Match: "FROM t WHERE k = 2", Delay: 400 * time.Millisecond})
	c.query("USE patient", nil)
	if m := c.query("SELECT * FROM t WHERE k = 2", nil); !isRows(m) {
		t.Errorf("USE patient: %v, want rows", m)
	}
	removeHold()

	c.query("USE plain", nil)
	if e := errorOf(t, c.query("SELECT * FROM t WHERE k = 1", nil)); e.GetErrorCode() != primitive.ErrorCodeReadTimeout ||
		!strings.Contains(e.GetErrorMessage(), "150ms") {
		t.Errorf("USE plain: %v, want the default 150ms budget", e)
	}
	awaitCancelled(t, done)
	if got := bs.exceededKeyspaces(); got != "fast,plain" {
		t.Errorf("budgets exceeded in %q, want fast,plain", got)
	}

	// Schema changes have no budget, even held past it.
	removeDDL := bs.be.InjectFault(faulty.Fault{Match: "CREATE TABLE", Delay: 300 * time.Millisecond})
	if m := c.query("CREATE TABLE fast.u (k int PRIMARY KEY)", nil); !isSchemaChange(m) {
		t.Errorf("DDL: %v, want a schema change", m)
	}
	removeDDL()

	got := c.doFrame(&message.Query{Query: "SELECT * FROM fast.t", Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}},
		map[string][]byte{"dohyo-budget-ms": []byte("soon")}, false)
	if e := errorOf(t, got.Body.Message); e.GetErrorCode() != primitive.ErrorCodeInvalid || !strings.Contains(e.GetErrorMessage(), "dohyo-budget-ms") {
		t.Errorf("malformed budget: %v", e)
	}
}
