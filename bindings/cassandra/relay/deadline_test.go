package relay

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dohyo/dohyo/cql/wire"
)

// testExpirer records how a request with a deadline ended.
type testExpirer struct {
	done      atomic.Bool
	delivered chan error
	timedOut  chan struct{}
}

func newTestExpirer() *testExpirer {
	return &testExpirer{delivered: make(chan error, 1), timedOut: make(chan struct{}, 1)}
}

func (w *testExpirer) Deliver(_ Response, err error) {
	if w.done.CompareAndSwap(false, true) {
		w.delivered <- err
	}
}
func (w *testExpirer) Expire() bool { return w.done.CompareAndSwap(false, true) }
func (w *testExpirer) Expired()     { w.timedOut <- struct{}{} }

func awaitChan[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: nothing after 10s", what)
	}
	var zero T
	return zero
}

// TestRelayDeadlineSweep: requests on a node that never answers are timed
// out by the connection's sweep, the earliest deadline first even when it
// was submitted after a later one; their stream ids stay reserved
// (orphans) and a request whose deadline has not passed keeps waiting.
func TestRelayDeadlineSweep(t *testing.T) {
	bc, err := dialBackend(context.Background(), silentNode(t), 4, nil, "", 2*time.Second, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer bc.close(errors.New("test over"))
	late, mid, early := newTestExpirer(), newTestExpirer(), newTestExpirer()
	for _, r := range []struct {
		w       *testExpirer
		timeout time.Duration
	}{{late, time.Hour}, {mid, 300 * time.Millisecond}, {early, 20 * time.Millisecond}} {
		if _, ok, err := bc.submitTimeout(0, wire.OpOptions, nil, r.w, r.timeout); !ok || err != nil {
			t.Fatalf("submit: %v %v", ok, err)
		}
	}
	bc.Flush()
	// Were the timer left armed for the first (hour-long) deadline, these
	// would not time out within awaitChan's 10s.
	awaitChan(t, early.timedOut, "20ms request")
	awaitChan(t, mid.timedOut, "300ms request")
	if n, f := bc.orphans.Load(), bc.inflight.Load(); n != 2 || f != 1 {
		t.Fatalf("orphans %d, in flight %d; want 2 and 1", n, f)
	}
	select {
	case <-late.timedOut:
		t.Fatal("the hour-long request timed out")
	case err := <-late.delivered:
		t.Fatalf("the hour-long request was answered: %v", err)
	default:
	}
	bc.close(errBackendClosed)
	if err := awaitChan(t, late.delivered, "hour-long request at close"); !errors.Is(err, errBackendClosed) {
		t.Fatalf("at close: %v", err)
	}
	for _, w := range []*testExpirer{early, mid} {
		select {
		case err := <-w.delivered:
			t.Fatalf("timed-out request delivered too: %v", err)
		default:
		}
	}
}

// TestRelayDeadlineAnswered: a request answered in time is delivered, never
// expired, and leaves no deadline behind; its stream id is free again.
func TestRelayDeadlineAnswered(t *testing.T) {
	bc, err := dialBackend(context.Background(), echoNode(t), 4, nil, "", 2*time.Second, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer bc.close(errBackendClosed)
	w := newTestExpirer()
	id, ok, err := bc.submitTimeout(0, wire.OpQuery, []byte("x"), w, 50*time.Millisecond)
	if !ok || err != nil {
		t.Fatalf("submit: %v %v", ok, err)
	}
	bc.Flush()
	if err := awaitChan(t, w.delivered, "answer"); err != nil {
		t.Fatal(err)
	}
	bc.mu.Lock()
	at, orphan := bc.dl.at[id], bc.orphan[id]
	bc.mu.Unlock()
	if at != 0 || orphan {
		t.Fatalf("after the answer: deadline %d, orphan %v", at, orphan)
	}
	// The sweep at the 50ms deadline finds nothing to expire and the
	// stream id (taken back by the reader) is free.
	w2 := newTestExpirer()
	if _, ok, err := bc.submitTimeout(0, wire.OpQuery, []byte("y"), w2, time.Millisecond); !ok || err != nil {
		t.Fatalf("submit: %v %v", ok, err)
	}
	bc.Flush()
	select {
	case <-w2.delivered:
	case <-w2.timedOut: // a 1ms deadline may pass before a loaded machine answers
	case <-time.After(10 * time.Second):
		t.Fatal("second request neither answered nor timed out")
	}
	select {
	case <-w.timedOut:
		t.Fatal("an answered request timed out")
	default:
	}
}
