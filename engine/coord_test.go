package engine

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/engine/kv"
)

// condMem is a memKV with coordination cells, shared by several engines
// (unit tests of the protocol; the real stores are tested with real HBase
// and Pebble).
type condMem struct {
	*memKV
	mu    sync.Mutex
	cells map[string][]byte
}

func (c *condMem) CellGet(ctx context.Context, key []byte) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.cells[string(key)]), nil
}

func (c *condMem) CellSwap(ctx context.Context, key, expected, value []byte) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !bytes.Equal(c.cells[string(key)], expected) {
		return false, nil
	}
	c.cells[string(key)] = bytes.Clone(value)
	return true, nil
}

// engineView is one engine's handle on the shared store: Close does not
// close it for the others, and a per-engine hook can pause it after each
// data read.
type engineView struct {
	*condMem
	afterGet func()
}

func (v *engineView) Get(ctx context.Context, t *kv.TableSpec, keys [][]byte) ([]kv.Row, error) {
	rows, err := v.condMem.Get(ctx, t, keys)
	if v.afterGet != nil {
		v.afterGet()
	}
	return rows, err
}

func (v *engineView) Close() error { return nil }

func twoEngines(t *testing.T, a, b Options, pauseA func()) (*Engine, *Engine) {
	t.Helper()
	shared := &condMem{memKV: newMemKV(), cells: map[string][]byte{}}
	ea, err := New(context.Background(), &engineView{condMem: shared, afterGet: pauseA}, a)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, v int)",
	} {
		if _, err := ea.Execute(context.Background(), &bindings.Request{Query: q}); err != nil {
			t.Fatal(err)
		}
	}
	eb, err := New(context.Background(), &engineView{condMem: shared}, b)
	if err != nil {
		t.Fatal(err)
	}
	return ea, eb
}

func execCL(e *Engine, q string, cl bindings.Consistency) (*bindings.Result, error) {
	return e.Execute(context.Background(), &bindings.Request{Query: q, Consistency: cl})
}

func TestCoordCellRoundTrip(t *testing.T) {
	for _, s := range []cellState{
		{},
		{owner: []byte("0123456789abcdef"), expiry: 42, lastTS: 1 << 50},
		{owner: []byte("x"), expiry: -1, lastTS: 7, proposal: []byte{1, 2, 3}},
	} {
		got, err := decodeCell(s.encode())
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.owner, s.owner) || got.expiry != s.expiry || got.lastTS != s.lastTS || !bytes.Equal(got.proposal, s.proposal) {
			t.Errorf("round trip of %+v: %+v", s, got)
		}
	}
	if _, err := decodeCell([]byte{9}); err == nil {
		t.Error("unknown version decoded")
	}
	if _, err := decodeCell([]byte{cellVersion, 5, 1}); err == nil {
		t.Error("truncated cell decoded")
	}
	spec := &kv.TableSpec{ID: "t"}
	muts := []kv.Mutation{{Table: spec, Row: []byte("r1"), Cells: []kv.Cell{{Qualifier: []byte("q"), Timestamp: 9, Value: []byte("v")}, {Qualifier: []byte{}, Timestamp: 1}}}}
	back, err := decodeProposal(spec, encodeProposal(muts))
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != 1 || string(back[0].Row) != "r1" || len(back[0].Cells) != 2 || back[0].Cells[0].Timestamp != 9 || string(back[0].Cells[0].Value) != "v" {
		t.Errorf("proposal round trip: %+v", back)
	}
	if _, err := decodeProposal(spec, []byte{5}); err == nil {
		t.Error("truncated proposal decoded")
	}
}

// TestCoordFencing pauses engine A after it read the partition for its LWT
// (the row is missing) until its lease has expired and engine B has
// inserted the row: A's commit must then fail with a CAS WriteTimeout and
// write nothing.
func TestCoordFencing(t *testing.T) {
	var pause sync.Once
	paused, resume := make(chan struct{}), make(chan struct{})
	var armed bool
	var mu sync.Mutex
	pauseA := func() {
		mu.Lock()
		on := armed
		mu.Unlock()
		if on {
			pause.Do(func() { close(paused); <-resume })
		}
	}
	ea, eb := twoEngines(t, Options{LWTLease: 50 * time.Millisecond}, Options{}, pauseA)
	mu.Lock()
	armed = true
	mu.Unlock()
	errA := make(chan error, 1)
	go func() {
		_, err := execCL(ea, "INSERT INTO ks.t (k, v) VALUES (1, 1) IF NOT EXISTS", bindings.One)
		errA <- err
	}()
	<-paused
	// B waits for A's lease to end, takes the partition and wins.
	res, err := execCL(eb, "INSERT INTO ks.t (k, v) VALUES (1, 2) IF NOT EXISTS", bindings.One)
	if err != nil || !bytes.Equal(res.Rows[0][0], boolTrue) {
		t.Fatalf("B's LWT after A's lease expired: %v %v", res, err)
	}
	close(resume)
	err = <-errA
	var be *bindings.Error
	if !errors.As(err, &be) || be.Code != bindings.CodeWriteTimeout || be.WriteType != "CAS" || !strings.Contains(be.Message, "lease") {
		t.Fatalf("A's commit after losing its lease: %v, want a CAS WriteTimeout", err)
	}
	res, err = execCL(eb, "SELECT v FROM ks.t WHERE k = 1", bindings.Serial)
	if err != nil || len(res.Rows) != 1 || res.Rows[0][0][3] != 2 {
		t.Fatalf("after the race: %v %v, want B's v = 2 only", res, err)
	}
}

// TestCoordCompletesCommittedProposal abandons A after its commit; B's
// next statement on the partition completes A's write first.
func TestCoordCompletesCommittedProposal(t *testing.T) {
	died := errors.New("died")
	var once sync.Once
	ea, eb := twoEngines(t, Options{LWTLease: 20 * time.Millisecond, AfterCommit: func() error {
		var err error
		once.Do(func() { err = died })
		return err
	}}, Options{}, nil)
	if _, err := execCL(ea, "UPDATE ks.t SET v = 5 WHERE k = 1 IF v = null", bindings.One); err == nil || !strings.Contains(err.Error(), "died") {
		t.Fatalf("abandoned LWT: %v", err)
	}
	res, err := execCL(eb, "UPDATE ks.t SET v = 6 WHERE k = 1 IF v = 5", bindings.One)
	if err != nil || !bytes.Equal(res.Rows[0][0], boolTrue) {
		t.Fatalf("CAS on the completed value: %v %v", res, err)
	}
	res, err = execCL(ea, "SELECT v FROM ks.t WHERE k = 1", bindings.Serial)
	if err != nil || len(res.Rows) != 1 || res.Rows[0][0][3] != 6 {
		t.Fatalf("SERIAL read: %v %v, want 6", res, err)
	}
	if _, err := execCL(ea, "SELECT v FROM ks.t WHERE k IN (1, 2)", bindings.Serial); err == nil {
		t.Error("SERIAL read of two partitions accepted")
	}
}

// TestCoordTimestampsMonotonicAcrossEngines gives B a clock an hour behind
// A's: B's LWT after A's must still win by timestamp.
func TestCoordTimestampsMonotonicAcrossEngines(t *testing.T) {
	behind := func() time.Time { return time.Now().Add(-time.Hour) }
	ea, eb := twoEngines(t, Options{}, Options{Clock: behind}, nil)
	if _, err := execCL(ea, "INSERT INTO ks.t (k, v) VALUES (1, 1) IF NOT EXISTS", bindings.One); err != nil {
		t.Fatal(err)
	}
	res, err := execCL(eb, "UPDATE ks.t SET v = 2 WHERE k = 1 IF v = 1", bindings.One)
	if err != nil || !bytes.Equal(res.Rows[0][0], boolTrue) {
		t.Fatalf("B's CAS: %v %v", res, err)
	}
	res, err = execCL(ea, "SELECT v FROM ks.t WHERE k = 1", bindings.Serial)
	if err != nil || len(res.Rows) != 1 || res.Rows[0][0][3] != 2 {
		t.Fatalf("after B's CAS with a slow clock: %v %v, want 2", res, err)
	}
}
