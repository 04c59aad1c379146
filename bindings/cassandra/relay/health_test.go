package relay

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql/wire"
)

// clusterNode is a fake Cassandra node for the health tests: it answers
// STARTUP with READY, OPTIONS with SUPPORTED and any other request with a
// VOID result, except while it holds (it reads requests and answers
// none, as a node stopped with SIGSTOP or partitioned away). drop closes
// every connection it has (a node killed: its connections reset), and it
// accepts new ones unless refuse was called.
type clusterNode struct {
	t    *testing.T
	ln   net.Listener
	addr string
	hold atomic.Bool
	got  chan struct{} // a request (not STARTUP) arrived while holding
	// refuse answers requests (not STARTUP or OPTIONS) with this error code
	// (0: none), as a draining or joining node does.
	refusing atomic.Int32

	mu    sync.Mutex
	conns []net.Conn
}

func newClusterNode(t *testing.T) *clusterNode {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	n := &clusterNode{t: t, ln: ln, addr: ln.Addr().String(), got: make(chan struct{}, 1024)}
	t.Cleanup(func() { n.refuse(); n.drop() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			n.mu.Lock()
			n.conns = append(n.conns, nc)
			n.mu.Unlock()
			go n.serve(nc)
		}
	}()
	return n
}

func (n *clusterNode) serve(nc net.Conn) {
	defer nc.Close()
	h := make([]byte, wire.HeaderLen)
	for readRequest(nc, h) {
		var out []byte
		switch {
		case h[4] == wire.OpStartup:
			out = answerFrame(h, wire.OpReady, nil)
		case n.hold.Load():
			n.got <- struct{}{}
			continue
		case h[4] == wire.OpOptions:
			out = answerFrame(h, wire.OpSupported, wire.AppendShort(nil, 0))
		case n.refusing.Load() != 0:
			out = answerFrame(h, wire.OpError, wire.AppendString(wire.AppendInt(nil, n.refusing.Load()), "Server is shutting down"))
		default:
			out = answerFrame(h, wire.OpResult, wire.AppendInt(nil, wire.ResultVoid))
		}
		if _, err := nc.Write(out); err != nil {
			return
		}
	}
}

// drop resets every connection of the node.
func (n *clusterNode) drop() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, nc := range n.conns {
		if tc, ok := nc.(*net.TCPConn); ok {
			tc.SetLinger(0)
		}
		nc.Close()
	}
	n.conns = nil
}

// refuse stops accepting connections (the node is gone).
func (n *clusterNode) refuse() { n.ln.Close() }

// clusterRelay is a testRelay over nodes (in that order: a request goes to
// the first node up first).
func clusterRelay(t *testing.T, nodes ...*clusterNode) *Relay {
	t.Helper()
	rl := testRelay(1)
	for _, n := range nodes {
		rl.nodes = append(rl.nodes, n.addr)
	}
	t.Cleanup(rl.shutdown)
	return rl
}

// first makes the next request start with the relay's first node.
func (rl *Relay) first() { rl.next.Store(uint64(len(rl.nodes) - 1)) }

// waitFor polls cond (a state the relay reports) for up to 10s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for i := 0; !cond(); i++ {
		if i > 2000 {
			t.Fatalf("%s: not after 10s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func queryReq(idempotent bool) Request {
	return Request{Version: 4, Op: wire.OpQuery, Body: queryBody("SELECT * FROM t", 4), Idempotent: idempotent}
}

// lostMidway sends req to node a (held), resets a's connections once the
// request arrived there (gone: a accepts no new ones either), and returns
// the relay's answer.
func lostMidway(t *testing.T, rl *Relay, a *clusterNode, req Request, gone bool) (Response, error) {
	t.Helper()
	a.hold.Store(true)
	rl.first()
	type result struct {
		r   Response
		err error
	}
	done := make(chan result, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		r, err := rl.Do(ctx, req)
		done <- result{r, err}
	}()
	awaitChan(t, a.got, "the request on node a")
	if gone {
		a.refuse()
	}
	a.drop()
	res := awaitChan(t, done, "the answer")
	return res.r, res.err
}

// TestRelayResendsIdempotentRequest: a read whose connection is reset
// after it went out is sent to the next node and answered there; the
// lost node is down and counted.
func TestRelayResendsIdempotentRequest(t *testing.T) {
	a, b := newClusterNode(t), newClusterNode(t)
	rl := clusterRelay(t, a, b)
	resp, err := lostMidway(t, rl, a, queryReq(true), true)
	if err != nil || resp.Node != b.addr || resp.Header.Op != wire.OpResult {
		t.Fatalf("answer %+v from %s, %v; want a RESULT from %s", resp.Header, resp.Node, err, b.addr)
	}
	if got := rl.Stats().Resends; got != 1 {
		t.Errorf("resends = %d, want 1", got)
	}
	st := nodeStats(rl, a.addr)
	if st.State != "down" || st.Lost != 1 || st.Downs != 1 {
		t.Errorf("node a: %+v, want down, 1 lost, 1 down", st)
	}
}

// TestRelayLostNonIdempotent: a write that may not run twice is not sent
// again; its answer is RelayLostError naming the node.
func TestRelayLostNonIdempotent(t *testing.T) {
	a, b := newClusterNode(t), newClusterNode(t)
	rl := clusterRelay(t, a, b)
	_, err := lostMidway(t, rl, a, queryReq(false), false)
	var lost *bindings.RelayLostError
	if !errors.As(err, &lost) || lost.Node != a.addr {
		t.Fatalf("answer %v, want RelayLostError for %s", err, a.addr)
	}
	if got := rl.Stats().Resends; got != 0 {
		t.Errorf("resends = %d, want 0", got)
	}
	if got := nodeStats(rl, b.addr).Requests; got != 0 {
		t.Errorf("node b got %d requests, want 0", got)
	}
}

// TestRelayNodeDownAtFirstError: once one connection to a node fails, no
// new request goes to the node, although another of its connections is
// still open; the node's prober brings it back when it answers again.
func TestRelayNodeDownAtFirstError(t *testing.T) {
	a, b := newClusterNode(t), newClusterNode(t)
	rl := clusterRelay(t, a, b)
	ctx := context.Background()
	ka, kb := poolKey{node: a.addr, version: 4}, poolKey{node: b.addr, version: 4}
	var conns []*Conn
	for range 2 { // two connections to a, one to b
		bc, err := rl.dial(ctx, startDialing(rl.pool(ka)), ka, nil)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, bc)
	}
	if _, err := rl.dial(ctx, startDialing(rl.pool(kb)), kb, nil); err != nil {
		t.Fatal(err)
	}
	a.hold.Store(true) // a's probes wait until the test says
	conns[0].fail(errors.New("reset by the test"))
	if st := nodeStats(rl, a.addr); st.State != "down" {
		t.Fatalf("node a after one connection failed: %s, want down", st.State)
	}
	if conns[1].isClosed() {
		t.Fatal("the other connection was closed too")
	}
	for i := range 20 {
		key, bc := rl.liveConn(4, nil, "", nil)
		if bc == nil || key.node != b.addr {
			t.Fatalf("pick %d: %v on %s, want a connection to %s", i, bc, key.node, b.addr)
		}
	}
	a.hold.Store(false)
	waitFor(t, "node a up again", func() bool { return nodeStats(rl, a.addr).State == "up" })
	seen := map[string]bool{}
	for range 4 {
		if key, bc := rl.liveConn(4, nil, "", nil); bc != nil {
			seen[key.node] = true
		}
	}
	if !seen[a.addr] || !seen[b.addr] {
		t.Errorf("picks after a came back: %v, want both nodes", seen)
	}
}

// TestRelaySilentNodeRoutedAround: a node that reads requests and answers
// nothing (no reset) is suspect once a connection has had a request
// waiting for SuspectAfter, its stall probe gets no answer, the
// connection is closed and the waiting idempotent request is answered by
// the other node.
func TestRelaySilentNodeRoutedAround(t *testing.T) {
	a, b := newClusterNode(t), newClusterNode(t)
	rl := clusterRelay(t, a, b)
	rl.cfg.SuspectAfter = 50 * time.Millisecond
	a.hold.Store(true)
	rl.first()
	done := make(chan error, 1)
	var resp Response
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		var err error
		resp, err = rl.Do(ctx, queryReq(true))
		done <- err
	}()
	awaitChan(t, a.got, "the request on node a")
	// The maintenance loop's stall check, run by the test until the
	// request is answered.
	var err error
	for answered := false; !answered; {
		rl.checkStalls()
		select {
		case err = <-done:
			answered = true
		case <-time.After(10 * time.Millisecond):
		}
	}
	if err != nil || resp.Node != b.addr {
		t.Fatalf("answer from %q, %v; want one from %s", resp.Node, err, b.addr)
	}
	if st := nodeStats(rl, a.addr); st.Lost != 1 || st.Downs != 1 {
		t.Errorf("node a: %+v, want 1 lost, 1 down", st)
	}
}

// TestRelaySilentOnlyNodeKept: with no other node up, a stalled
// connection is left open (nowhere better to send its requests) and its
// node is up again.
func TestRelaySilentOnlyNodeKept(t *testing.T) {
	a := newClusterNode(t)
	rl := clusterRelay(t, a)
	rl.cfg.SuspectAfter = 20 * time.Millisecond
	ka := poolKey{node: a.addr, version: 4}
	bc, err := rl.dial(context.Background(), startDialing(rl.pool(ka)), ka, nil)
	if err != nil {
		t.Fatal(err)
	}
	a.hold.Store(true)
	w := newTestExpirer()
	if _, ok, err := bc.submitTimeout(0, wire.OpQuery, queryBody("SELECT * FROM t", 4), w, time.Minute); !ok || err != nil {
		t.Fatalf("submit: %v, %v", ok, err)
	}
	bc.Flush()
	awaitChan(t, a.got, "the request on node a")
	// Stall probes run until one has been sent and given up on.
	waitFor(t, "a stall probe sent", func() bool {
		rl.checkStalls()
		select {
		case <-a.got:
			return true
		default:
			return false
		}
	})
	waitFor(t, "the probe given up", func() bool { return !bc.probing.Load() })
	if bc.isClosed() {
		t.Fatal("the only node's connection was closed")
	}
	if st := nodeStats(rl, a.addr); st.State != "up" || st.Downs != 0 {
		t.Errorf("node a: %+v, want up, never down", st)
	}
}

func startDialing(p *subPool) *subPool {
	p.mu.Lock()
	p.startDial()
	p.mu.Unlock()
	return p
}

func nodeStats(rl *Relay, addr string) NodeStats {
	for _, st := range rl.NodeStats() {
		if st.Node == addr {
			return st
		}
	}
	return NodeStats{}
}

// testReceiver records a fast-path request's answer.
type testReceiver struct {
	done atomic.Bool
	got  chan bindings.RelayAnswer
	errs chan error
}

func (r *testReceiver) Relayed(ans bindings.RelayAnswer, err error) {
	if r.done.CompareAndSwap(false, true) {
		r.errs <- err
		r.got <- ans
	}
}
func (r *testReceiver) Expire() bool { return r.done.CompareAndSwap(false, true) }
func (r *testReceiver) Expired()     { r.errs <- context.DeadlineExceeded; r.got <- bindings.RelayAnswer{} }

// TestRelayFastPathResends: on the fast path (a request with a timeout,
// answered on the connection's reader), an idempotent request lost with
// its node's connections is answered by the next node; a non-idempotent
// one gets RelayLostError.
func TestRelayFastPathResends(t *testing.T) {
	for _, idempotent := range []bool{true, false} {
		a, b := newClusterNode(t), newClusterNode(t)
		rl := clusterRelay(t, a, b)
		for _, n := range []*clusterNode{a, b} {
			k := poolKey{node: n.addr, version: 4}
			if _, err := rl.dial(context.Background(), startDialing(rl.pool(k)), k, nil); err != nil {
				t.Fatal(err)
			}
		}
		a.hold.Store(true)
		rl.first()
		rcv := &testReceiver{got: make(chan bindings.RelayAnswer, 1), errs: make(chan error, 1)}
		req := &bindings.RelayRequest{Version: 4, Op: wire.OpQuery, Body: queryBody("SELECT * FROM t", 4),
			Timeout: 20 * time.Second, Idempotent: idempotent}
		if !rl.RelayFrame(context.Background(), req, rcv) {
			t.Fatal("the fast path did not take the request")
		}
		awaitChan(t, a.got, "the request on node a")
		a.refuse()
		a.drop()
		err := awaitChan(t, rcv.errs, "the answer")
		ans := <-rcv.got
		if idempotent {
			if err != nil || ans.Node != b.addr {
				t.Errorf("idempotent: answer from %q, %v; want one from %s", ans.Node, err, b.addr)
			}
			continue
		}
		var lost *bindings.RelayLostError
		if !errors.As(err, &lost) || lost.Node != a.addr {
			t.Errorf("not idempotent: %v, want RelayLostError for %s", err, a.addr)
		}
	}
}

// TestRelayRefusedUnrun: a node that refuses a request before running it
// (Overloaded while it drains, IsBootstrapping while it joins) passes the
// request on to the next node, on both paths: idempotent requests after
// Overloaded, every request after IsBootstrapping; a non-idempotent one
// refused with Overloaded gets the node's answer.
func TestRelayRefusedUnrun(t *testing.T) {
	for _, tc := range []struct {
		code       bindings.ErrorCode
		idempotent bool
		moved      bool
	}{
		{bindings.CodeOverloaded, true, true},
		{bindings.CodeOverloaded, false, false},
		{bindings.CodeBootstrapping, false, true},
	} {
		for _, fast := range []bool{false, true} {
			name := fmt.Sprintf("%v idempotent=%v fast=%v", tc.code, tc.idempotent, fast)
			a, b := newClusterNode(t), newClusterNode(t)
			a.refusing.Store(int32(tc.code))
			rl := clusterRelay(t, a, b)
			rl.first()
			var node string
			var op byte
			if fast {
				for _, n := range []*clusterNode{a, b} {
					k := poolKey{node: n.addr, version: 4}
					if _, err := rl.dial(context.Background(), startDialing(rl.pool(k)), k, nil); err != nil {
						t.Fatal(err)
					}
				}
				rl.first()
				rcv := &testReceiver{got: make(chan bindings.RelayAnswer, 1), errs: make(chan error, 1)}
				req := &bindings.RelayRequest{Version: 4, Op: wire.OpQuery, Body: queryBody("SELECT * FROM t", 4),
					Timeout: 20 * time.Second, Idempotent: tc.idempotent}
				if !rl.RelayFrame(context.Background(), req, rcv) {
					t.Fatal("the fast path did not take the request")
				}
				if err := awaitChan(t, rcv.errs, "the answer"); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				ans := <-rcv.got
				node, op = ans.Node, ans.Op
			} else {
				resp, err := rl.Do(context.Background(), queryReq(tc.idempotent))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				node, op = resp.Node, resp.Header.Op
			}
			want, wantOp := a.addr, byte(wire.OpError)
			if tc.moved {
				want, wantOp = b.addr, wire.OpResult
			}
			if node != want || op != wantOp {
				t.Errorf("%s: answer op %#x from %s, want op %#x from %s", name, op, node, wantOp, want)
			}
		}
	}
}

// TestEventInet: a STATUS_CHANGE or TOPOLOGY_CHANGE event names its node by
// [inet] (address bytes and port), read as the node's host:port.
func TestEventInet(t *testing.T) {
	body := wire.AppendString(nil, "STATUS_CHANGE")
	body = wire.AppendString(body, "UP")
	body = append(body, 4, 127, 0, 0, 3)
	body = wire.AppendInt(body, 9042)
	r := wire.NewReader(body)
	r.Str()
	r.Str()
	if got := eventInet(r); got != "127.0.0.3:9042" {
		t.Errorf("eventInet = %q, want 127.0.0.3:9042", got)
	}
	if got := eventInet(wire.NewReader([]byte{4, 127})); got != "" {
		t.Errorf("eventInet of a short body = %q, want \"\"", got)
	}
}
