package cqlserver

import (
	"testing"

	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

// onlyConn returns the server's single connection.
func onlyConn(t *testing.T, ts *testServer) *conn {
	t.Helper()
	var c *conn
	waitFor(t, "one connection", func() bool {
		ts.srv.mu.Lock()
		defer ts.srv.mu.Unlock()
		for k := range ts.srv.conns {
			c = k
		}
		return len(ts.srv.conns) == 1
	})
	return c
}

// TestRequestWorkers: concurrent requests each get a worker; once answered,
// at most maxIdleWorkers stay for the next requests (which run on them:
// no new worker starts), and every worker exits with its connection.
func TestRequestWorkers(t *testing.T) {
	ts := newTestServer(t, nil)
	cl := ts.tcpClient(t, ts.listen(t), primitive.ProtocolVersion4)
	cl.startup("")
	sc := onlyConn(t, ts)
	selects := func(n int) {
		t.Helper()
		for range n {
			if r, ok := cl.query("SELECT * FROM ks.t", nil).(*message.RowsResult); !ok || len(r.Data) != 2 {
				t.Fatalf("SELECT: %v", r)
			}
		}
	}
	// Small answers first: the outbound budget's estimate of an answer
	// starts at an eighth of the budget (guard.go) and learns.
	// One request at a time needs one worker, or two when a request
	// arrives before the previous worker is back waiting: they are reused.
	selects(50)
	waitFor(t, "an idle worker", func() bool { return sc.idleWorkers.Load() >= 1 })
	if n := sc.idleWorkers.Load(); n > 4 {
		t.Errorf("idle workers after 50 sequential requests: %d, want at most a few (reused)", n)
	}

	const burst = 40
	ids := map[int16]bool{}
	for range burst {
		ids[cl.send(slowQuery)] = true
	}
	waitFor(t, "every slow request running", func() bool { return sc.running.Load() == burst })
	close(ts.fake.release)
	for range burst {
		f := cl.read()
		if !ids[f.Header.StreamId] {
			t.Fatalf("answer on unexpected stream %d", f.Header.StreamId)
		}
		delete(ids, f.Header.StreamId)
	}
	waitFor(t, "idle workers", func() bool { return sc.idleWorkers.Load() == maxIdleWorkers })

	// Sequential requests reuse the idle workers: the count stays put.
	selects(50)
	waitFor(t, "idle workers after sequential requests", func() bool { return sc.idleWorkers.Load() == maxIdleWorkers })
	if n := sc.idleWorkers.Load(); n != maxIdleWorkers {
		t.Errorf("idle workers: %d, want %d", n, maxIdleWorkers)
	}

	cl.nc.Close()
	waitFor(t, "workers gone with the connection", func() bool { return sc.idleWorkers.Load() == 0 })
	sc.workers.Wait() // returns: every worker has exited
}
