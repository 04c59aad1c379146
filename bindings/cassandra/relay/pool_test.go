package relay

import (
	"context"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dohyo/dohyo/cql/wire"
	"github.com/dohyo/dohyo/internal/lru"
)

// readyNode is a fake Cassandra node (unit test) that answers STARTUP with
// READY and nothing else; accepts (when not nil) counts the connections it
// accepted.
func readyNode(t *testing.T, accepts *atomic.Int32) string {
	t.Helper()
	return fakeNode(t, func(nc net.Conn) {
		if accepts != nil {
			accepts.Add(1)
		}
		h := make([]byte, wire.HeaderLen)
		for readRequest(nc, h) {
			if h[4] == wire.OpStartup {
				nc.Write(answerFrame(h, wire.OpReady, nil))
			}
		}
	})
}

// testRelay is a Relay without control connection or maintenance loop,
// for the pool's own logic.
func testRelay(connsPerNode int) *Relay {
	log := slog.New(slog.DiscardHandler)
	rl := &Relay{
		cfg:      Config{ConnsPerNode: connsPerNode, ConnectTimeout: 5 * time.Second, SuspectAfter: time.Second, Logger: log},
		log:      log,
		pools:    map[poolKey]*subPool{},
		stop:     make(chan struct{}),
		prepared: lru.New[string, *Prepared](100),
	}
	rl.ctx, rl.cancel = context.WithCancel(context.Background())
	rl.lostHook = rl.lostConn
	return rl
}

// shutdown ends a testRelay: its probes, then its connections.
func (rl *Relay) shutdown() {
	close(rl.stop)
	rl.cancel()
	rl.bgMu.Lock()
	rl.closing = true
	rl.bgMu.Unlock()
	for _, bc := range rl.allConns() {
		bc.close(errBackendClosed)
	}
	rl.bg.Wait()
}

// TestRelayPoolBurstDialsOnce: many requests that find a node's pool empty
// at once share one dial (and the pool grows to ConnsPerNode, not to one
// connection per request).
func TestRelayPoolBurstDialsOnce(t *testing.T) {
	var accepts atomic.Int32
	addr := readyNode(t, &accepts)
	rl := testRelay(2)
	defer func() {
		for _, bc := range rl.allConns() {
			bc.close(errBackendClosed)
		}
	}()
	key := poolKey{node: addr, version: 4}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := make(chan struct{})
	var wg sync.WaitGroup
	got := make([]*Conn, 32)
	errs := make([]error, len(got))
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			got[i], errs[i] = rl.conn(ctx, key, nil)
		}()
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil || got[i] == nil {
			t.Fatalf("request %d: %v, %v", i, got[i], err)
		}
	}
	// The background growth to ConnsPerNode may still be dialing.
	p := rl.pool(key)
	p.mu.Lock()
	dialed := p.dialed
	p.mu.Unlock()
	if dialed != nil {
		select {
		case <-dialed:
		case <-ctx.Done():
			t.Fatal("the pool's dial did not end")
		}
	}
	if n := accepts.Load(); n < 1 || n > 2 {
		t.Errorf("%d connections dialed for a burst of %d requests, want 1..2 (ConnsPerNode)", n, len(got))
	}
}

// TestRelayPoolPacks: pick keeps choosing the first connection while it
// has fewer than packInflight requests in flight, then the least loaded.
func TestRelayPoolPacks(t *testing.T) {
	var accepts atomic.Int32
	addr := readyNode(t, &accepts)
	rl := testRelay(2)
	key := poolKey{node: addr, version: 4}
	p := rl.pool(key)
	var conns []*Conn
	for range 2 {
		bc, err := dialBackend(context.Background(), addr, 4, nil, "", 5*time.Second, rl.log)
		if err != nil {
			t.Fatal(err)
		}
		defer bc.close(errBackendClosed)
		conns = append(conns, bc)
	}
	p.conns = conns
	a, b := conns[0], conns[1]
	b.inflight.Store(0)
	a.inflight.Store(packInflight - 1)
	if got := rl.pick(p, key, nil); got != a {
		t.Errorf("first connection below packInflight: picked the other one")
	}
	a.inflight.Store(packInflight)
	if got := rl.pick(p, key, nil); got != b {
		t.Errorf("first connection at packInflight: want the less loaded one")
	}
	b.inflight.Store(packInflight + 5)
	if got := rl.pick(p, key, nil); got != a {
		t.Errorf("both over packInflight: want the less loaded one")
	}
	a.inflight.Store(0)
	b.inflight.Store(0)
}
