package engine

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/dohyo/dohyo/engine/kv"
)

// slowDropKV blocks every DropTable until release is closed.
type slowDropKV struct {
	*memKV
	release chan struct{}
	mu      sync.Mutex
	dropped int
}

func (s *slowDropKV) DropTable(ctx context.Context, t *kv.TableSpec) error {
	<-s.release
	s.mu.Lock()
	s.dropped++
	s.mu.Unlock()
	return s.memKV.DropTable(ctx, t)
}

// TestDropInBackground: DROP KEYSPACE answers while the store's table drops
// are still blocked, the dropped tables are invisible at once, a re-created
// table is empty and other DDL proceeds; Close waits for the drops.
func TestDropInBackground(t *testing.T) {
	kv := &slowDropKV{memKV: newMemKV(), release: make(chan struct{})}
	e, err := New(context.Background(), kv, Options{DropInBackground: true, DropWorkers: 2})
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, kv: kv.memKV, e: e, ks: "ks"}
	h.exec("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	for i := 0; i < 5; i++ {
		h.exec(fmt.Sprintf("CREATE TABLE t%d (k int PRIMARY KEY, v int)", i))
		h.exec(fmt.Sprintf("INSERT INTO t%d (k, v) VALUES (1, 1)", i))
	}
	h.exec("DROP KEYSPACE ks") // returns although no drop can finish yet
	if _, err := h.run("SELECT * FROM t0"); err == nil {
		t.Fatal("dropped table still readable")
	}
	h.exec("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	h.exec("CREATE TABLE t0 (k int PRIMARY KEY, v int)")
	if rows := h.exec("SELECT * FROM t0").Rows; len(rows) != 0 {
		t.Fatalf("re-created table has %d old rows", len(rows))
	}
	kv.mu.Lock()
	if kv.dropped != 0 {
		t.Fatalf("%d drops finished before release", kv.dropped)
	}
	kv.mu.Unlock()
	close(kv.release)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	kv.mu.Lock()
	defer kv.mu.Unlock()
	if kv.dropped != 5 {
		t.Fatalf("Close returned with %d of 5 drops done", kv.dropped)
	}
}
