package cqlserver

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/bindings/faulty"
)

// TestRelayRecycleAfterTimeout: a request that timed out gives its
// asyncRelay back to the pool while the node still holds its answer;
// requests running meanwhile reuse it, and the late answer (on the
// orphaned stream id) must reach none of them — each gets its own row.
// Run with -race: a late delivery into a recycled asyncRelay also races
// with its new owner.
func TestRelayRecycleAfterTimeout(t *testing.T) {
	const timeout = 200 * time.Millisecond
	r := newRelayRig(t, rigOptions{frontTimeout: timeout})
	s := r.session(t, "", nil)
	exec(t, s, "CREATE KEYSPACE rk"+rf1)
	exec(t, s, "CREATE TABLE rk.t (k int PRIMARY KEY, v int)")
	for k := 1; k <= 8; k++ {
		exec(t, s, "INSERT INTO rk.t (k, v) VALUES (?, ?)", k, 100+k)
	}
	held := make(chan struct{}, 1)
	remove := r.nodeEmb.InjectFault(faulty.Fault{Match: "SELECT v FROM rk.t WHERE k = 1", Delay: time.Second,
		Hit: func() { held <- struct{}{} }})
	defer remove()
	var v int
	var rt *gocql.RequestErrReadTimeout
	if err := s.Query("SELECT v FROM rk.t WHERE k = 1").Scan(&v); !errors.As(err, &rt) {
		t.Fatalf("slow read: %v, want a ReadTimeout", err)
	}
	<-held
	orphans := func() int { return r.relay.Stats().Orphans }
	if orphans() == 0 {
		t.Fatal("the timed-out request left no orphaned stream id")
	}
	// Until the late answer has come (its orphan released) and a while
	// after, four clients read other rows through the relay.
	stop := time.Now().Add(30 * time.Second)
	for orphans() > 0 && time.Now().Before(stop) {
		var wg sync.WaitGroup
		for k := 2; k <= 5; k++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 10; i++ {
					var got int
					err := s.Query("SELECT v FROM rk.t WHERE k = ?", k).Scan(&got)
					var rt *gocql.RequestErrReadTimeout
					if errors.As(err, &rt) {
						continue // a loaded machine can miss the short timeout too
					}
					if err != nil {
						t.Errorf("k=%d: %v", k, err)
						return
					}
					if got != 100+k {
						t.Errorf("k=%d: got %d, want %d (another request's answer)", k, got, 100+k)
					}
				}
			}()
		}
		wg.Wait()
		if t.Failed() {
			return
		}
	}
	if n := orphans(); n != 0 {
		t.Fatalf("the late answer never came: %d orphaned stream ids", n)
	}
}
