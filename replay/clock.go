package replay

import (
	"context"
	"runtime"
	"sort"
	"sync"
	"time"
)

// Clock is the time source of a replay, injectable so the scheduler can be
// tested on virtual time.
type Clock interface {
	Now() time.Time
	// NewTimer returns a timer that fires once, d from now.
	NewTimer(d time.Duration) Timer
}

// Timer is a one-shot timer, as time.Timer.
type Timer interface {
	C() <-chan time.Time
	Stop() bool
}

// holder is implemented by clocks that must know which goroutines are
// running (the fake clock advances only when every one of them waits on it).
type holder interface {
	Hold()
	Release()
}

// RealClock is the wall clock.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// NewTimer wraps time.NewTimer.
func (RealClock) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

// preciseClock is implemented by clocks that can wait for a deadline more
// precisely than their timers fire.
type preciseClock interface {
	// WaitUntil returns when t has come (true) or ctx ended (false),
	// busy-waiting (yielding) for the last spin.
	WaitUntil(ctx context.Context, t time.Time, spin time.Duration) bool
}

// coarseSlack is how late a Go timer may fire: on Linux the runtime sleeps
// in epoll_wait, whose timeout is in whole milliseconds.
const coarseSlack = 2 * time.Millisecond

// WaitUntil waits for t in three steps: a Go timer (cancellable) until
// coarseSlack before t, then a thread sleep (precise to the kernel's timer
// slack) until spin before t, then a yielding busy-wait.
func (RealClock) WaitUntil(ctx context.Context, t time.Time, spin time.Duration) bool {
	if d := time.Until(t) - coarseSlack - spin; d > 0 {
		tm := time.NewTimer(d)
		select {
		case <-tm.C:
		case <-ctx.Done():
			tm.Stop()
			return false
		}
	}
	if d := time.Until(t) - spin; d > 0 {
		sleepThread(d)
	}
	for i := 0; time.Now().Before(t); i++ {
		if i%64 == 63 && ctx.Err() != nil {
			return false
		}
		runtime.Gosched()
	}
	return ctx.Err() == nil
}

type realTimer struct{ t *time.Timer }

func (r realTimer) C() <-chan time.Time { return r.t.C }
func (r realTimer) Stop() bool          { return r.t.Stop() }

// FakeClock is virtual time for tests: it jumps to the earliest pending
// timer as soon as every held goroutine is blocked on one of its timers, so
// tests never sleep and timing is exact.
type FakeClock struct {
	mu      sync.Mutex
	now     time.Time
	running int
	timers  []*fakeTimer
}

// NewFakeClock starts virtual time at start.
func NewFakeClock(start time.Time) *FakeClock { return &FakeClock{now: start} }

type fakeTimer struct {
	c     *FakeClock
	at    time.Time
	ch    chan time.Time
	fired bool
}

// Now returns the virtual time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// NewTimer registers a timer; one with d <= 0 fires at once.
func (c *FakeClock) NewTimer(d time.Duration) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now.Add(d), ch: make(chan time.Time, 1)}
	if d <= 0 {
		t.fired = true
		t.ch <- c.now
		return t
	}
	c.timers = append(c.timers, t)
	c.advanceLocked()
	return t
}

// Hold marks one more goroutine as running.
func (c *FakeClock) Hold() {
	c.mu.Lock()
	c.running++
	c.mu.Unlock()
}

// Release marks a running goroutine as finished.
func (c *FakeClock) Release() {
	c.mu.Lock()
	c.running--
	c.advanceLocked()
	c.mu.Unlock()
}

// advanceLocked jumps to the earliest timer when every running goroutine
// waits on a timer.
func (c *FakeClock) advanceLocked() {
	if len(c.timers) == 0 || len(c.timers) < c.running {
		return
	}
	sort.SliceStable(c.timers, func(i, j int) bool { return c.timers[i].at.Before(c.timers[j].at) })
	at := c.timers[0].at
	if at.After(c.now) {
		c.now = at
	}
	n := 0
	for _, t := range c.timers {
		if !t.at.After(c.now) {
			t.fired = true
			t.ch <- c.now
			continue
		}
		c.timers[n] = t
		n++
	}
	c.timers = c.timers[:n]
}

func (t *fakeTimer) C() <-chan time.Time { return t.ch }

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	if t.fired {
		return false
	}
	for i, x := range t.c.timers {
		if x == t {
			t.c.timers = append(t.c.timers[:i], t.c.timers[i+1:]...)
			break
		}
	}
	t.fired = true
	t.c.advanceLocked()
	return true
}
