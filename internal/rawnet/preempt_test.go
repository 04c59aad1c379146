package rawnet

import (
	"fmt"
	"net"
	"os/exec"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// After the process has been idle (nothing running, no system call made
// through the runtime), a goroutine woken by a raw read that then computes
// is still preempted, so that others run: with one P and without the
// keeper's timer, the other goroutine waited for the whole computation.
// The bytes come from another process, so that nothing in this one wakes
// the runtime before the read does.
//
// The keeper pauses after an interval without raw reads or writes, so it
// is paused whenever the bytes arrive (the script sleeps 300 ms between
// them, and the resumes counter shows it was): the read that resumes it
// must also wake sysmon.
//
// What is checked is an ordering, not a duration: with GOMAXPROCS=1 the
// goroutine started by the computing one can run before the computation
// ends only if the computing one was preempted. The computation ends when
// it sees the other has run, or after spinLimit, which only stops a broken
// keeper from spinning for the minute sysmon may sleep: preemption comes
// after about 10 ms of sysmon's time, however busy the machine is.
func TestPreemptAfterIdleRead(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	const rounds, spinLimit = 3, 10 * time.Second
	script := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d; for i in $(seq %d); do sleep 0.3; printf x >&3; done; sleep 1",
		ln.Addr().(*net.TCPAddr).Port, rounds)
	cmd := exec.Command("bash", "-c", script)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	nc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	c := Wrap(nc)
	defer c.Close()
	buf := make([]byte, 1)
	resumed := sysmonKeeper.resumes.Load()
	for round := 0; round < rounds; round++ {
		if _, err := c.Read(buf); err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		var ran atomic.Bool
		go ran.Store(true)
		for !ran.Load() && time.Since(t0) < spinLimit {
		}
		if !ran.Load() {
			t.Fatalf("round %d: a goroutine woken by a raw read computed for %v and no other goroutine ran meanwhile; want it preempted", round, spinLimit)
		}
		t.Logf("round %d: another goroutine ran after %v", round, time.Since(t0))
	}
	if n := sysmonKeeper.resumes.Load() - resumed; n < rounds {
		t.Errorf("the keeper was resumed %d times in %d rounds; the test did not run against a paused keeper", n, rounds)
	}
}

// TestKeeperPauses: with raw connections open and no traffic the keeper
// pauses; the next raw read or write starts it again, once. (What the
// keeper decides at each tick, steady traffic included, is
// TestKeeperTicks, without a real clock.)
func TestKeeperPauses(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dialed, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer dialed.Close()
	nc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	c := Wrap(nc)
	defer c.Close()
	waitPaused := func() {
		t.Helper()
		for end := time.Now().Add(30 * time.Second); !sysmonKeeper.paused.Load(); {
			if time.Now().After(end) {
				t.Fatal("the keeper did not pause within 30 s of idleness")
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitPaused()
	resumed := sysmonKeeper.resumes.Load()
	if _, err := c.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	// Not paused.Load(): on a busy machine the restarted keeper may
	// already have paused again by the time this goroutine looks.
	if got := sysmonKeeper.resumes.Load(); got != resumed+1 {
		t.Fatalf("after a write: resumes %d, want %d", got, resumed+1)
	}
	waitPaused()
	if _, err := dialed.Write([]byte("y")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Read(make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	if got := sysmonKeeper.resumes.Load(); got != resumed+2 {
		t.Fatalf("after a read: resumes %d, want %d", got, resumed+2)
	}
}

// TestKeeperTicks drives a keeper's ticks by hand: a tick after an
// interval with a raw read or write keeps the ticker running, so steady
// traffic never pauses it (no restarts); the first tick after an interval
// without one pauses it; the next raw operation restarts it, once; the
// last connection's close stops it.
func TestKeeperTicks(t *testing.T) {
	var started []chan struct{}
	k := &keeper{run: func(stop chan struct{}) { started = append(started, stop) }}
	k.add()
	if len(started) != 1 {
		t.Fatalf("add started %d tickers, want 1", len(started))
	}
	first := started[0]
	for i := range 50 { // steady traffic: a raw operation in every interval
		k.used()
		if ended := k.onTick(first); ended || k.paused.Load() {
			t.Fatalf("tick %d after an interval with traffic: ended %v, paused %v; want running", i, ended, k.paused.Load())
		}
	}
	if n := k.resumes.Load(); n != 0 || len(started) != 1 {
		t.Fatalf("steady traffic: %d resumes, %d tickers started; want 0 and 1", n, len(started))
	}
	if !k.onTick(first) || !k.paused.Load() {
		t.Fatalf("tick after an idle interval: paused %v, want the ticker ended and the keeper paused", k.paused.Load())
	}
	k.used()
	k.used()
	if n := k.resumes.Load(); n != 1 || len(started) != 2 || k.paused.Load() {
		t.Fatalf("two raw operations after the pause: %d resumes, %d tickers, paused %v; want 1, 2, false", n, len(started), k.paused.Load())
	}
	second := started[1]
	k.done()
	select {
	case <-second:
	default:
		t.Fatal("closing the last connection did not stop the ticker")
	}
	if k.paused.Load() {
		t.Fatal("paused with no connections open")
	}
}
