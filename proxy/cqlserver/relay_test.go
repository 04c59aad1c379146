package cqlserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
	"github.com/gocql/gocql"
	"golang.org/x/crypto/bcrypt"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/cassandra/relay"
	"github.com/dohyo/dohyo/bindings/embedded"
	"github.com/dohyo/dohyo/bindings/faulty"
	"github.com/dohyo/dohyo/bindings/stores"
	"github.com/dohyo/dohyo/engine"
	"github.com/dohyo/dohyo/proxy"
)

// The relay's unit tests use a second in-process dohyo server over an
// in-memory store as the "Cassandra" node: a real native-protocol server
// with prepared-statement eviction (UNPREPARED), authentication and
// schema events. Integration tests against real Cassandra are in
// cmd/dohyo.

type relayRig struct {
	node     *testServer // the relayed "Cassandra" node
	nodeAddr string
	nodeEmb  *faulty.Backend // the node's engine, with fault injection
	nodeEng  *engine.Engine
	front    *testServer // dohyo relaying keyspaces of "cass" to node
	addr     string
	relay    *relay.Relay
	local    *engine.Engine
	changes  chan *bindings.SchemaChange
}

type rigOptions struct {
	nodePrepared int           // the node's prepared cache size
	nodeAuth     Authenticator // authentication on the node
	frontTimeout time.Duration
	heartbeat    time.Duration
}

func newRelayRig(t testing.TB, o rigOptions) *relayRig {
	t.Helper()
	ctx := context.Background()
	r := &relayRig{changes: make(chan *bindings.SchemaChange, 64)}
	var err error
	if r.nodeEng, err = stores.Embedded(ctx, embedded.Config{}, engine.Options{}); err != nil {
		t.Fatal(err)
	}
	r.nodeEmb = faulty.Wrap(r.nodeEng)
	t.Cleanup(func() { r.nodeEmb.Close() })
	r.startNode(t, "127.0.0.1:0", o)
	if r.local, err = stores.Embedded(ctx, embedded.Config{}, engine.Options{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.local.Close() })

	// The front coordinator sees the node's store as the "cass" backend
	// (its catalog), as dohyo serve sees Cassandra through gocql.
	coord, err := proxy.New(proxy.Config{
		Backends: map[string]bindings.Backend{"cass": r.nodeEmb, "local": r.local},
		Default:  "cass",
		Routes:   map[string]string{"lk": "local"},
	})
	if err != nil {
		t.Fatal(err)
	}
	r.relay, err = relay.New(ctx, relay.Config{
		Hosts:     []string{r.nodeAddr},
		Heartbeat: o.heartbeat,
		OnSchemaChange: func(ch *bindings.SchemaChange) {
			if ch != nil {
				coord.NotifySchemaChange(ch)
				r.changes <- ch
			}
		},
		ConnectTimeout: 2 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.relay.Close() })
	if o.frontTimeout == 0 {
		o.frontTimeout = 10 * time.Second // the relay's fast path needs a timeout
	}
	if o.frontTimeout < 0 { // no timeout: every request takes the general path
		o.frontTimeout = 0
	}
	cfg := Config{Coordinator: coord, ClusterName: "front", NumTokens: 4, ReleaseVersion: "5.0.0-front",
		Relays: map[string]bindings.FrameRelayer{"cass": r.relay}, RequestTimeout: o.frontTimeout}
	if o.nodeAuth != nil {
		cfg.Authenticator = RelayAuthenticator{Relay: r.relay}
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.front = &testServer{srv: srv, coord: coord}
	r.addr = r.front.listen(t)
	return r
}

// startNode serves the node's store on addr (":0" for a fresh port).
func (r *relayRig) startNode(t testing.TB, addr string, o rigOptions) {
	t.Helper()
	r.node = newTestServerWith(t, r.nodeEmb, nil, func(c *Config) {
		c.ReleaseVersion = "5.0.0-node"
		c.Authenticator = o.nodeAuth
		if o.nodePrepared > 0 {
			c.Coordinator, _ = proxy.New(proxy.Config{Backends: map[string]bindings.Backend{"m": r.nodeEmb},
				Default: "m", PreparedCacheSize: o.nodePrepared})
		}
	})
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	r.nodeAddr = ln.Addr().String()
	go r.node.srv.Serve(context.Background(), ln)
}

func (r *relayRig) stopNode(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	r.node.srv.Shutdown(ctx)
}

func (r *relayRig) session(t *testing.T, keyspace string, auth gocql.Authenticator) *gocql.Session {
	t.Helper()
	return r.sessionTB(t, r.addr, func(c *gocql.ClusterConfig) {
		c.Keyspace = keyspace
		c.Authenticator = auth
	})
}

func exec(t *testing.T, s *gocql.Session, q string, args ...any) {
	t.Helper()
	if err := s.Query(q, args...).Exec(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

const rf1 = " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"

func TestRelayRoutesAndRemapsStreams(t *testing.T) {
	for name, timeout := range map[string]time.Duration{"fast": 0, "general": -1} {
		t.Run(name, func(t *testing.T) { testRelayRoutes(t, timeout) })
	}
}

func testRelayRoutes(t *testing.T, timeout time.Duration) {
	r := newRelayRig(t, rigOptions{frontTimeout: timeout})
	s := r.session(t, "", nil)
	exec(t, s, "CREATE KEYSPACE rk"+rf1)
	exec(t, s, "CREATE TABLE rk.t (k int PRIMARY KEY, v text)")
	exec(t, s, "CREATE KEYSPACE lk"+rf1)
	exec(t, s, "CREATE TABLE lk.t (k int PRIMARY KEY, v text)")

	// Relayed keyspaces live on the node, local ones on the local store.
	if cat, _ := r.nodeEng.Catalog(context.Background()); cat.Keyspace("rk") == nil || cat.Keyspace("lk") != nil {
		t.Fatalf("node catalog: rk=%v lk=%v", cat.Keyspace("rk") != nil, cat.Keyspace("lk") != nil)
	}
	if cat, _ := r.local.Catalog(context.Background()); cat.Keyspace("lk") == nil {
		t.Fatal("lk is not on the local store")
	}

	// Many concurrent requests over few backend connections.
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				k := g*1000 + i
				if err := s.Query("INSERT INTO rk.t (k, v) VALUES (?, ?)", k, "v"+strconv.Itoa(k)).Exec(); err != nil {
					errs <- err
					return
				}
				var v string
				if err := s.Query("SELECT v FROM rk.t WHERE k = ?", k).Scan(&v); err != nil || v != "v"+strconv.Itoa(k) {
					errs <- fmt.Errorf("k=%d: got %q, %v", k, v, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	st := r.relay.Stats()
	if st.Requests < 1600 || st.Connections == 0 || st.Connections > 4 {
		t.Errorf("relay stats %+v: want ≥1600 requests over 1..4 connections", st)
	}

	// A BATCH spanning the node and the local store is refused.
	b := s.NewBatch(gocql.LoggedBatch)
	b.Query("INSERT INTO rk.t (k, v) VALUES (1, 'a')")
	b.Query("INSERT INTO lk.t (k, v) VALUES (1, 'a')")
	err := s.ExecuteBatch(b)
	var re gocql.RequestError
	if !errors.As(err, &re) || re.Code() != int(bindings.CodeInvalid) || !strings.Contains(re.Message(), "spanning backends") {
		t.Fatalf("spanning batch: %v", err)
	}
	// Errors from the node are forwarded verbatim.
	err = s.Query("SELECT nope FROM rk.t").Exec()
	if !errors.As(err, &re) || re.Code() != int(bindings.CodeInvalid) || !strings.Contains(re.Message(), "nope") {
		t.Fatalf("bad column: %v", err)
	}
}

func TestRelayKeepsEachClientsKeyspace(t *testing.T) {
	r := newRelayRig(t, rigOptions{})
	admin := r.session(t, "", nil)
	for _, ks := range []string{"ka", "kb"} {
		exec(t, admin, "CREATE KEYSPACE "+ks+rf1)
		exec(t, admin, "CREATE TABLE "+ks+".t (k int PRIMARY KEY, v text)")
		exec(t, admin, "INSERT INTO "+ks+".t (k, v) VALUES (1, '"+ks+"')")
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for _, ks := range []string{"ka", "kb"} {
		s := r.session(t, ks, nil) // USE ks on every connection
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				var v string
				q := "SELECT v FROM t WHERE k = 1"
				if i%2 == 1 {
					q = "SELECT v FROM t WHERE k = ?" // prepared
				}
				var err error
				if i%2 == 1 {
					err = s.Query(q, 1).Scan(&v)
				} else {
					err = s.Query(q).Scan(&v)
				}
				if err != nil || v != ks {
					errs <- fmt.Errorf("session on %s read %q (%v)", ks, v, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func TestRelayReprepares(t *testing.T) {
	for name, timeout := range map[string]time.Duration{"fast": 0, "general": -1} {
		t.Run(name, func(t *testing.T) { testRelayReprepares(t, timeout) })
	}
}

func testRelayReprepares(t *testing.T, timeout time.Duration) {
	r := newRelayRig(t, rigOptions{nodePrepared: 1, frontTimeout: timeout})
	s := r.session(t, "", nil)
	exec(t, s, "CREATE KEYSPACE rk"+rf1)
	exec(t, s, "CREATE TABLE rk.t (k int PRIMARY KEY, v int)")
	// Two statements alternate on a node that keeps one prepared
	// statement: every EXECUTE finds its statement evicted there.
	for i := 0; i < 20; i++ {
		exec(t, s, "INSERT INTO rk.t (k, v) VALUES (?, ?)", i, i)
		var v int
		if err := s.Query("SELECT v FROM rk.t WHERE k = ?", i).Scan(&v); err != nil || v != i {
			t.Fatalf("select %d: %d %v", i, v, err)
		}
	}
	if st := r.relay.Stats(); st.Reprepares < 10 {
		t.Fatalf("re-prepares = %d, want the relay to re-prepare evicted statements", st.Reprepares)
	}
}

func TestRelayAuthPassThrough(t *testing.T) {
	hash, err := bcrypt.GenerateFromPassword([]byte("secret"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	auth, err := NewPasswordAuthenticator(map[string]string{"app": string(hash)})
	if err != nil {
		t.Fatal(err)
	}
	// The control connection has no credentials of its own: the relay
	// learns that the node requires authentication from its answer.
	r := newRelayRig(t, rigOptions{nodeAuth: auth})
	if !r.relay.RequiresAuth() {
		t.Fatal("relay did not notice the node requires authentication")
	}
	s := r.session(t, "", gocql.PasswordAuthenticator{Username: "app", Password: "secret"})
	exec(t, s, "CREATE KEYSPACE rk"+rf1)
	exec(t, s, "CREATE TABLE rk.t (k int PRIMARY KEY, v int)")
	exec(t, s, "INSERT INTO rk.t (k, v) VALUES (1, 2)")

	host, portText, _ := net.SplitHostPort(r.addr)
	port, _ := strconv.Atoi(portText)
	cluster := gocql.NewCluster(host)
	cluster.Port = port
	cluster.DisableInitialHostLookup = true
	cluster.Authenticator = gocql.PasswordAuthenticator{Username: "app", Password: "wrong"}
	if bad, err := cluster.CreateSession(); err == nil {
		bad.Close()
		t.Fatal("wrong password accepted")
	} else if !strings.Contains(err.Error(), "incorrect") {
		t.Fatalf("wrong password: %v, want the node's message", err)
	}
}

func TestRelayBackendDownAndBack(t *testing.T) {
	r := newRelayRig(t, rigOptions{frontTimeout: 2 * time.Second, heartbeat: 200 * time.Millisecond})
	s := r.session(t, "", nil)
	exec(t, s, "CREATE KEYSPACE rk"+rf1)
	exec(t, s, "CREATE TABLE rk.t (k int PRIMARY KEY, v int)")
	exec(t, s, "INSERT INTO rk.t (k, v) VALUES (1, 1)")

	addr := r.nodeAddr
	r.stopNode(t)
	// The client gets an answer from dohyo (an error with a protocol
	// code), not the driver giving up after its own 5s timeout: which
	// answer it is, not how fast it came, is the promise.
	err := s.Query("INSERT INTO rk.t (k, v) VALUES (2, 2)").Exec()
	if err == nil {
		t.Fatal("insert succeeded with the node down")
	}
	var answer gocql.RequestError
	if !errors.As(err, &answer) {
		t.Fatalf("insert with the node down: %v (%T), want an error answer from dohyo, not the driver's timeout", err, err)
	}
	t.Logf("with the node down: %v (code %#x)", answer, answer.Code())
	// Local keyspaces keep working meanwhile.
	exec(t, s, "CREATE KEYSPACE lk"+rf1)

	r.startNode(t, addr, rigOptions{})
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := s.Query("INSERT INTO rk.t (k, v) VALUES (3, 3)").Exec()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("relay did not recover: %v", err)
		}
		time.Sleep(50 * time.Millisecond) // polling a recovering server
	}
	var v int
	if err := s.Query("SELECT v FROM rk.t WHERE k = 3").Scan(&v); err != nil || v != 3 {
		t.Fatalf("after recovery: %d %v", v, err)
	}
}

func TestRelayForwardsSchemaEvents(t *testing.T) {
	r := newRelayRig(t, rigOptions{})
	c := r.front.tcpClient(t, r.addr, primitive.ProtocolVersion4)
	c.startup("")
	if f := c.do(&message.Register{EventTypes: []primitive.EventType{primitive.EventTypeSchemaChange}}); f.Body.Message.GetOpCode() != primitive.OpCodeReady {
		t.Fatalf("REGISTER: %v", f.Body.Message)
	}
	// A change made directly on the node, by another client.
	direct := r.node.tcpClient(t, r.nodeAddr, primitive.ProtocolVersion4)
	direct.startup("")
	direct.query("CREATE KEYSPACE evk"+rf1, nil)
	select {
	case ch := <-r.changes:
		if ch.Keyspace != "evk" || ch.Type != bindings.Created {
			t.Fatalf("change %+v", ch)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no schema change seen by the relay")
	}
	f := c.read()
	ev, ok := f.Body.Message.(*message.SchemaChangeEvent)
	if !ok || ev.Keyspace != "evk" || ev.ChangeType != primitive.SchemaChangeTypeCreated {
		t.Fatalf("event %v", f.Body.Message)
	}
}

// A node slower than the request timeout: the client is answered with a
// timeout at the deadline (fast path) — not before it, and before the
// node's answer — the late answer is dropped, and the connection keeps
// serving.
func TestRelayTimeout(t *testing.T) {
	// hold is 13 times the timeout (room for a loaded machine) and below
	// the driver's 5s timeout and the node's 5s shutdown grace.
	const timeout, hold = 300 * time.Millisecond, 4 * time.Second
	r := newRelayRig(t, rigOptions{frontTimeout: timeout})
	s := r.session(t, "", nil)
	exec(t, s, "CREATE KEYSPACE rk"+rf1)
	exec(t, s, "CREATE TABLE rk.t (k int PRIMARY KEY, v int)")
	exec(t, s, "INSERT INTO rk.t (k, v) VALUES (1, 1)")
	held, nodeDone := make(chan struct{}, 1), make(chan struct{})
	nodeDoneOnce := sync.OnceFunc(func() { close(nodeDone) })
	remove := r.nodeEmb.InjectFault(faulty.Fault{Match: "SELECT v FROM rk.t WHERE k = 1", Delay: hold,
		Hit: func() { held <- struct{}{} }, Done: func(error) { nodeDoneOnce() }})
	defer remove()

	start := time.Now()
	var v int
	err := s.Query("SELECT v FROM rk.t WHERE k = 1").Scan(&v)
	elapsed := time.Since(start)
	var rt *gocql.RequestErrReadTimeout
	if !errors.As(err, &rt) {
		t.Fatalf("slow read: %v, want a ReadTimeout", err)
	}
	if elapsed < timeout {
		t.Errorf("answered after %v, before the %v timeout", elapsed, timeout)
	}
	select { // an ordering, not a latency: the answer did not wait for the node
	case <-nodeDone:
		t.Errorf("the timeout was answered (after %v) only once the node had finished holding the read", elapsed)
	default:
	}
	<-held // the node really was holding it
	// Other statements go on over the same connections.
	exec(t, s, "INSERT INTO rk.t (k, v) VALUES (2, 2)")
	if err := s.Query("SELECT v FROM rk.t WHERE k = 2").Scan(&v); err != nil || v != 2 {
		t.Fatalf("after the timeout: %d %v", v, err)
	}
}

// A v5 PREPARE carrying its own keyspace is re-prepared under that
// keyspace, so the node computes the same id.
func TestRelayReprepareV5Keyspace(t *testing.T) {
	r := newRelayRig(t, rigOptions{nodePrepared: 1})
	s := r.session(t, "", nil)
	exec(t, s, "CREATE KEYSPACE rk"+rf1)
	exec(t, s, "CREATE TABLE rk.t (k int PRIMARY KEY, v int)")
	exec(t, s, "INSERT INTO rk.t (k, v) VALUES (1, 7)")

	c := r.front.tcpClient(t, r.addr, primitive.ProtocolVersion5)
	c.startup("")
	prep := func(q string) *message.PreparedResult {
		f := c.do(&message.Prepare{Query: q, Keyspace: "rk"})
		res, ok := f.Body.Message.(*message.PreparedResult)
		if !ok {
			t.Fatalf("PREPARE %s: %v", q, f.Body.Message)
		}
		return res
	}
	ps := prep("SELECT v FROM t WHERE k = ?")
	prep("SELECT k FROM t WHERE k = ?") // evicts the first on the node
	before := r.relay.Stats().Reprepares
	f := c.do(&message.Execute{QueryId: ps.PreparedQueryId, ResultMetadataId: ps.ResultMetadataId, Options: &message.QueryOptions{
		Consistency: primitive.ConsistencyLevelOne, PositionalValues: []*primitive.Value{primitive.NewValue(be32(1))}}})
	rows, ok := f.Body.Message.(*message.RowsResult)
	if !ok || len(rows.Data) != 1 || string(rows.Data[0][0]) != string(be32(7)) {
		t.Fatalf("EXECUTE after eviction: %v", f.Body.Message)
	}
	if r.relay.Stats().Reprepares == before {
		t.Fatal("the relay did not re-prepare")
	}
}
