package cqlserver

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

type ctxKey struct{}

// bareRequestCtx is a requestCtx without a timer or connection: the tests
// end it by hand, as the timer and finish do; its registry ends with
// parent, as a connection's does.
func bareRequestCtx(parent context.Context) *requestCtx {
	return registeredCtx(parent, newTestRegistry(parent))
}

func newTestRegistry(parent context.Context) *ctxRegistry {
	reg := &ctxRegistry{}
	context.AfterFunc(parent, func() { reg.end(parent.Err()) })
	return reg
}

func registeredCtx(parent context.Context, reg *ctxRegistry) *requestCtx {
	return &requestCtx{parent: parent, deadline: time.Now().Add(time.Hour), reg: reg}
}

// waitClosed fails unless ch is closed within 30 seconds: a bound that
// only stops a test from hanging, not a latency (the timers waited for
// here are of tens of milliseconds).
func waitClosed(t *testing.T, what string, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: not closed", what)
	}
}

// TestRequestCtxContract: a requestCtx behaves as a context.Context that
// ends with its deadline, with the request, or with its parent, and
// everything derived from it ends with it.
func TestRequestCtxContract(t *testing.T) {
	t.Run("deadline", func(t *testing.T) {
		parent := context.WithValue(context.Background(), ctxKey{}, "v")
		r := bareRequestCtx(parent)
		if dl, ok := r.Deadline(); !ok || !dl.Equal(r.deadline) {
			t.Errorf("Deadline = %v, %v", dl, ok)
		}
		if r.Value(ctxKey{}) != "v" {
			t.Errorf("Value = %v, want the parent's", r.Value(ctxKey{}))
		}
		child, cancelChild := context.WithCancel(r)
		defer cancelChild()
		ran := make(chan struct{})
		context.AfterFunc(r, func() { close(ran) })
		done := r.Done()
		if r.Err() != nil {
			t.Fatalf("Err before the end = %v", r.Err())
		}
		r.cancel(context.DeadlineExceeded)
		waitClosed(t, "Done", done)
		waitClosed(t, "derived ctx", child.Done())
		waitClosed(t, "AfterFunc", ran)
		if !errors.Is(r.Err(), context.DeadlineExceeded) || !errors.Is(child.Err(), context.DeadlineExceeded) {
			t.Errorf("Err = %v, child %v; want DeadlineExceeded", r.Err(), child.Err())
		}
		if !errors.Is(context.Cause(r), context.DeadlineExceeded) {
			t.Errorf("Cause = %v", context.Cause(r))
		}
		r.cancel(context.Canceled) // a second end changes nothing
		if !errors.Is(r.Err(), context.DeadlineExceeded) {
			t.Errorf("Err after a second cancel = %v", r.Err())
		}
	})
	t.Run("parent ends, nobody waits", func(t *testing.T) {
		parent, cancel := context.WithCancel(context.Background())
		r := bareRequestCtx(parent)
		cancel()
		if !errors.Is(r.Err(), context.Canceled) {
			t.Fatalf("Err = %v, want Canceled", r.Err())
		}
		waitClosed(t, "Done after the end", r.Done())
	})
	t.Run("parent ends, Done watched", func(t *testing.T) {
		parent, cancel := context.WithCancel(context.Background())
		r := bareRequestCtx(parent)
		done := r.Done()
		child, cancelChild := context.WithTimeout(r, time.Hour)
		defer cancelChild()
		cancel()
		waitClosed(t, "Done", done)
		waitClosed(t, "derived ctx", child.Done())
		if !errors.Is(r.Err(), context.Canceled) {
			t.Errorf("Err = %v, want Canceled", r.Err())
		}
	})
	t.Run("parent ended before Done", func(t *testing.T) {
		parent, cancel := context.WithCancel(context.Background())
		cancel()
		r := bareRequestCtx(parent)
		waitClosed(t, "Done", r.Done())
		if !errors.Is(r.Err(), context.Canceled) {
			t.Errorf("Err = %v", r.Err())
		}
	})
	t.Run("request ends first", func(t *testing.T) {
		parent, cancel := context.WithCancel(context.Background())
		defer cancel()
		r := bareRequestCtx(parent)
		stopped := make(chan struct{})
		stop := context.AfterFunc(r, func() { close(stopped) })
		if !stop() {
			t.Fatal("stop before the end = false")
		}
		ran := make(chan struct{})
		context.AfterFunc(r, func() { close(ran) })
		r.cancel(context.Canceled)
		waitClosed(t, "AfterFunc", ran)
		select {
		case <-stopped:
			t.Fatal("a stopped AfterFunc ran")
		default:
		}
		if r.reg.list.head != nil || len(r.afters) != 0 {
			t.Errorf("after the end: still in the registry %v, %d functions kept", r.reg.list.head != nil, len(r.afters))
		}
		// The parent's end later does not touch the ended request.
		cancel()
		if !errors.Is(r.Err(), context.Canceled) {
			t.Errorf("Err = %v", r.Err())
		}
	})
	t.Run("AfterFunc on an ended ctx", func(t *testing.T) {
		r := bareRequestCtx(context.Background())
		r.cancel(context.DeadlineExceeded)
		ran := make(chan struct{})
		if stop := r.AfterFunc(func() { close(ran) }); stop() {
			t.Error("stop after the end = true")
		}
		waitClosed(t, "AfterFunc", ran)
	})
}

// TestCtxRegistry: the connection's end cancels every request of it,
// waited on or not, and requests that end leave the registry.
func TestCtxRegistry(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	reg := newTestRegistry(parent)
	var waited, plain []*requestCtx
	for i := range 6 {
		r := registeredCtx(parent, reg)
		if i%2 == 0 {
			r.Done()
			waited = append(waited, r)
		} else {
			plain = append(plain, r)
		}
	}
	// One waited request ends on its own: it leaves the registry.
	waited[0].cancel(context.DeadlineExceeded)
	n := 0
	reg.mu.Lock()
	for r := reg.list.head; r != nil; r = reg.list.next(r) {
		n++
	}
	reg.mu.Unlock()
	if n != len(waited)-1 {
		t.Fatalf("%d requests listed, want %d", n, len(waited)-1)
	}
	cancel()
	for i, r := range waited {
		waitClosed(t, "waited request", r.Done())
		want := context.Canceled
		if i == 0 {
			want = context.DeadlineExceeded
		}
		if !errors.Is(r.Err(), want) {
			t.Errorf("waited request %d: Err = %v, want %v", i, r.Err(), want)
		}
	}
	for i, r := range plain {
		if !errors.Is(r.Err(), context.Canceled) {
			t.Errorf("request %d: Err = %v, want Canceled", i, r.Err())
		}
	}
	// A request that starts waiting after the end ends at once.
	late := registeredCtx(parent, reg)
	waitClosed(t, "late request", late.Done())
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if reg.list.head != nil {
		t.Error("requests still listed after the connection's end")
	}
}

// TestRequestCtxConcurrent ends contexts while others derive from them and
// wait on them (for the race detector): every derived context ends.
func TestRequestCtxConcurrent(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := range 200 {
		r := bareRequestCtx(parent)
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				child, stop := context.WithCancel(r)
				defer stop()
				<-child.Done()
				_ = r.Err()
			}()
		}
		if i%2 == 0 {
			r.cancel(context.DeadlineExceeded)
		} else {
			go r.cancel(context.Canceled)
		}
		wg.Wait()
	}
	// The connection ends while requests wait and end.
	parent2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	reg := newTestRegistry(parent2)
	var wg sync.WaitGroup
	for i := range 50 {
		r := registeredCtx(parent2, reg)
		wg.Add(1)
		go func() {
			defer wg.Done()
			child, stop := context.WithCancel(r)
			defer stop()
			if i%3 == 0 {
				r.cancel(context.Canceled)
			}
			<-child.Done()
		}()
		if i == 25 {
			cancel2()
		}
	}
	wg.Wait()
}

// TestDeadlinesOneTimer: a connection's deadlines share one timer. A
// request listed after another with an earlier deadline re-arms it; a
// sweep expires exactly the requests that are due and arms the timer for
// the earliest one left; a request answered in time leaves the list, and
// one the sweep expired is reported as such.
func TestDeadlinesOneTimer(t *testing.T) {
	var d deadlines
	d.alarm.Init(time.Now(), d.sweep)
	defer d.close()
	at := func(after time.Duration) *requestCtx {
		r := bareRequestCtx(context.Background())
		r.deadline = time.Now().Add(after)
		r.expired.Add(1)
		r.answered.Store(true) // expire only ends the ctx (no connection to answer on)
		d.add(r)
		return r
	}
	long := at(time.Hour)
	short := at(20 * time.Millisecond)
	answered := at(30 * time.Millisecond)
	mid := at(60 * time.Millisecond)
	if !d.remove(answered) {
		t.Fatal("remove of a listed request = false")
	}
	waitClosed(t, "short", short.Done())
	waitClosed(t, "mid", mid.Done())
	if now := time.Now(); now.Before(mid.deadline) { // never early, against its own deadline
		t.Errorf("mid expired %v before its deadline", mid.deadline.Sub(now))
	}
	for _, r := range []*requestCtx{short, mid} {
		if !errors.Is(r.Err(), context.DeadlineExceeded) {
			t.Errorf("expired request: Err = %v", r.Err())
		}
		if d.remove(r) {
			t.Error("remove of an expired request = true")
		}
	}
	if long.Err() != nil || answered.Err() != nil {
		t.Errorf("not due: Err = %v, %v", long.Err(), answered.Err())
	}
	d.mu.Lock()
	armed, _ := d.alarm.Armed()
	head, tail := d.list.head, d.list.tail
	d.mu.Unlock()
	if want := d.alarm.At(long.deadline); armed != want || head != long || tail != long {
		t.Errorf("after the sweeps: armed %v (want %v), list %p..%p (want only %p)", armed, want, head, tail, long)
	}
	if !d.remove(long) {
		t.Error("remove of the long request = false")
	}
}
