package conncore

import (
	"sync"
	"testing"
	"time"
)

// TestAlarmArmsForEarliest: Want keeps the earliest deadline, Rearm sets
// the next one (or none), Stop ends it for good; the sweep runs when the
// earliest deadline passes, not for later ones.
func TestAlarmArmsForEarliest(t *testing.T) {
	var mu sync.Mutex
	fired := make(chan time.Duration, 4)
	var a Alarm
	a.Init(time.Now(), func() {
		mu.Lock()
		defer mu.Unlock()
		fired <- a.Now()
	})
	mu.Lock()
	a.Want(time.Hour)
	a.Want(a.Now() + 20*time.Millisecond)
	a.Want(2 * time.Hour) // later: ignored
	if !a.isArmed || a.armed >= time.Hour {
		t.Fatalf("armed %v, want the 20ms deadline", a.armed)
	}
	want := a.armed
	mu.Unlock()
	select {
	case at := <-fired:
		if at < want {
			t.Fatalf("fired at %v, before the deadline %v", at, want)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the alarm did not fire")
	}
	mu.Lock()
	a.Rearm(0, a.Now(), false)
	if a.isArmed {
		t.Fatal("armed after a sweep that left no deadline")
	}
	a.Stop()
	a.Want(a.Now())
	if a.isArmed {
		t.Fatal("a stopped alarm was armed again")
	}
	mu.Unlock()
}
