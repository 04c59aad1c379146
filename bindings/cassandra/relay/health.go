package relay

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql/wire"
)

// Node health (issue #46). Each node the relay knows is up, suspect or
// down, and requests are spread over the nodes that are up:
//
//   - A node is down from the first sign of its loss: a connection to it
//     fails (read or write error, reset, a heartbeat or stall probe
//     without an answer) or a dial is refused. It is marked down before
//     the requests waiting on the failed connection are answered, so that
//     those re-sent elsewhere (frames.go) and every new request avoid it,
//     instead of the node's other connections taking new requests until
//     the reset reaches each of them.
//   - A down node is probed (a dial with its handshake) after 100 ms,
//     doubling up to maxDialBackoff, and at once on Cassandra's UP event
//     for it; the first answer brings it back up.
//   - A node is suspect while a stall probe runs: a connection with
//     requests waiting that has read nothing for Config.SuspectAfter (a
//     node stopped or partitioned away sends no reset) gets an OPTIONS
//     with the same deadline. New requests avoid a suspect node; an
//     answer makes it up again, silence closes the connection (the node
//     is down and the requests waiting there are re-sent or answered).
//     With no other node up, a stalled connection is left alone: there is
//     nowhere better to send its requests, and the request timeout bounds
//     them.
//
// Nodes that are not up are still tried, last, when no node is up.

// nodeState is a node's health.
type nodeState int32

const (
	nodeUp nodeState = iota
	nodeSuspect
	nodeDown
)

func (s nodeState) String() string {
	return [...]string{"up", "suspect", "down"}[s]
}

// nodeHealth is one node's state and counters.
type nodeHealth struct {
	addr  string
	state atomic.Int32 // nodeState
	// Counters: requests sent to the node (new and re-sent), requests
	// lost with a connection to it, times it was marked down.
	requests, lost, downs atomic.Uint64

	mu      sync.Mutex
	probing bool          // a prober goroutine runs for the node
	wake    chan struct{} // pokes the prober (UP event)
	lastErr error         // why it is down
}

func (h *nodeHealth) get() nodeState { return nodeState(h.state.Load()) }

// health returns the state of addr, creating it (up) on first use.
func (rl *Relay) health(addr string) *nodeHealth {
	if h, ok := rl.healthMap.Load(addr); ok {
		return h.(*nodeHealth)
	}
	h, _ := rl.healthMap.LoadOrStore(addr, &nodeHealth{addr: addr, wake: make(chan struct{}, 1)})
	return h.(*nodeHealth)
}

// usable tells whether new requests may go to addr (it is up).
func (rl *Relay) usable(addr string) bool { return rl.health(addr).get() == nodeUp }

// othersUp tells whether a node other than addr is up.
func (rl *Relay) othersUp(addr string) bool {
	for _, n := range rl.Nodes() {
		if n != addr && rl.usable(n) {
			return true
		}
	}
	return false
}

// nodeLost marks addr down (a connection to it failed, or it could not be
// reached) and starts its prober.
func (rl *Relay) nodeLost(addr string, err error) {
	h := rl.health(addr)
	if nodeState(h.state.Swap(int32(nodeDown))) != nodeDown {
		h.downs.Add(1)
		rl.log.Warn("relay: Cassandra node down; routing around it", "node", addr, "err", err)
	}
	h.mu.Lock()
	h.lastErr = err
	start := !h.probing
	h.probing = true
	h.mu.Unlock()
	if start && !rl.goBG(func() { rl.probeDown(h) }) {
		h.mu.Lock()
		h.probing = false // closed: nothing to probe for
		h.mu.Unlock()
	}
}

// goBG runs f on a goroutine Close waits for, unless the relay is closing
// (false).
func (rl *Relay) goBG(f func()) bool {
	rl.bgMu.Lock()
	defer rl.bgMu.Unlock()
	if rl.closing {
		return false
	}
	rl.bg.Add(1)
	go func() {
		defer rl.bg.Done()
		f()
	}()
	return true
}

// nodeBack marks addr up again.
func (rl *Relay) nodeBack(h *nodeHealth) {
	if nodeState(h.state.Swap(int32(nodeUp))) == nodeDown {
		rl.log.Info("relay: Cassandra node up again", "node", h.addr)
		rl.retryNode(h.addr)
	}
}

// wakeProber makes addr's prober try at once (Cassandra reported it UP).
func (rl *Relay) wakeProber(addr string) {
	h := rl.health(addr)
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// probeDown dials h's node until it answers, with backoff, then marks it
// up. It ends with the relay.
func (rl *Relay) probeDown(h *nodeHealth) {
	backoff := 100 * time.Millisecond
	for {
		t := time.NewTimer(backoff)
		select {
		case <-rl.stop:
			t.Stop()
			return
		case <-h.wake:
			t.Stop()
		case <-t.C:
		}
		if h.get() != nodeDown { // a request's dial got through meanwhile
			break
		}
		ctx, cancel := context.WithTimeout(rl.ctx, rl.cfg.ConnectTimeout)
		err := rl.probeDial(ctx, h.addr)
		cancel()
		if err == nil {
			break
		}
		h.mu.Lock()
		h.lastErr = err
		h.mu.Unlock()
		backoff = min(2*backoff, maxDialBackoff)
	}
	h.mu.Lock()
	h.probing = false
	h.mu.Unlock()
	rl.nodeBack(h)
	// A loss reported while the prober was finishing starts a new one.
	if h.get() == nodeDown {
		h.mu.Lock()
		err := h.lastErr
		h.mu.Unlock()
		rl.nodeLost(h.addr, err)
	}
}

// probeDial connects to addr and runs the handshake: the node answers
// (asking for credentials counts: it speaks the protocol).
func (rl *Relay) probeDial(ctx context.Context, addr string) error {
	var creds *Credentials
	if rl.cfg.User != "" {
		creds = &Credentials{User: rl.cfg.User, Password: rl.cfg.Password}
	}
	bc, err := dialBackend(ctx, addr, 4, creds, "", rl.cfg.ConnectTimeout, rl.log)
	if err != nil {
		var be *bindings.Error
		if errors.As(err, &be) { // an error answer (credentials refused): it speaks
			return nil
		}
		return err
	}
	bc.close(errProbeDone)
	return nil
}

var errProbeDone = errors.New("probe done")

// retryNode ends the dial backoff of addr's pools (it answers again).
func (rl *Relay) retryNode(addr string) {
	rl.poolsMu.Lock()
	var ps []*subPool
	for k, p := range rl.pools {
		if k.node == addr {
			ps = append(ps, p)
		}
	}
	rl.poolsMu.Unlock()
	for _, p := range ps {
		p.mu.Lock()
		p.downUntil, p.backoff = time.Time{}, 0
		p.mu.Unlock()
	}
}

// checkStalls starts a stall probe on every connection that has had
// requests waiting, and read nothing, for SuspectAfter.
func (rl *Relay) checkStalls() {
	d := rl.cfg.SuspectAfter
	now := time.Now().UnixNano()
	for _, bc := range rl.allConns() {
		if bc.isClosed() || bc.inflight.Load() == 0 {
			continue
		}
		quiet := max(bc.lastRead.Load(), bc.busySince.Load())
		if now-quiet < int64(d) || !bc.probing.CompareAndSwap(false, true) {
			continue
		}
		if !rl.goBG(func() { rl.stallProbe(bc) }) {
			bc.probing.Store(false)
		}
	}
}

// stallProbe sends OPTIONS on a stalled connection with a SuspectAfter
// deadline, the node suspect meanwhile; without an answer the connection
// is closed and its node is down (unless no other node is up).
func (rl *Relay) stallProbe(bc *Conn) {
	defer bc.probing.Store(false)
	h := rl.health(bc.addr)
	h.state.CompareAndSwap(int32(nodeUp), int32(nodeSuspect))
	ctx, cancel := context.WithTimeout(context.Background(), rl.cfg.SuspectAfter)
	defer cancel()
	r, err := bc.roundTrip(ctx, 0, wire.OpOptions, nil)
	if err == nil && r.Header.Op == wire.OpSupported {
		h.state.CompareAndSwap(int32(nodeSuspect), int32(nodeUp))
		return
	}
	if bc.isClosed() {
		return // lost meanwhile: the node is down already
	}
	if !rl.othersUp(bc.addr) {
		h.state.CompareAndSwap(int32(nodeSuspect), int32(nodeUp))
		rl.log.Warn("relay: Cassandra node silent, and no other node is up; keeping its connection", "node", bc.addr)
		return
	}
	bc.fail(fmt.Errorf("Cassandra node %s silent: no answer for %v with requests waiting", bc.addr, 2*rl.cfg.SuspectAfter))
}

// NodeStats are one node's health and counters.
type NodeStats struct {
	Node  string
	State string // up, suspect or down
	// Requests sent to the node, requests lost with a connection to it,
	// and times it was marked down.
	Requests, Lost, Downs uint64
}

// NodeStats returns the health and counters of every node the relay knows
// (the cluster's nodes first, in their order).
func (rl *Relay) NodeStats() []NodeStats {
	var out []NodeStats
	seen := map[string]bool{}
	add := func(h *nodeHealth) {
		if seen[h.addr] {
			return
		}
		seen[h.addr] = true
		out = append(out, NodeStats{Node: h.addr, State: h.get().String(),
			Requests: h.requests.Load(), Lost: h.lost.Load(), Downs: h.downs.Load()})
	}
	for _, n := range rl.Nodes() {
		add(rl.health(n))
	}
	rl.healthMap.Range(func(_, v any) bool {
		add(v.(*nodeHealth))
		return true
	})
	return out
}
