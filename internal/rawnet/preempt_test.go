package rawnet

import (
	"fmt"
	"io"
	"net"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

// After the process has been idle (nothing running, no system call made
// through the runtime), a goroutine woken by a raw read that then computes
// for a long time is still preempted, so that others run: with one P and
// without the keeper's timer, the other goroutine waited for the whole
// spin. The bytes come from another process, so that nothing in this one
// wakes the runtime before the read does.
//
// The keeper pauses after an interval without raw reads or writes, so it
// is paused whenever the bytes arrive (the script sleeps 300 ms between
// them): the read that resumes it must also wake sysmon.
func TestPreemptAfterIdleRead(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	const rounds, spin = 3, 600 * time.Millisecond
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
		other := make(chan time.Duration, 1)
		go func() { other <- time.Since(t0) }()
		for time.Since(t0) < spin {
		}
		if d := <-other; d > spin/2 {
			t.Fatalf("round %d: another goroutine ran %v after a goroutine woken by a raw read began to compute for %v; want it preempted", round, d, spin)
		} else {
			t.Logf("round %d: another goroutine ran after %v", round, d)
		}
	}
	if n := sysmonKeeper.resumes.Load() - resumed; n < rounds {
		t.Errorf("the keeper was resumed %d times in %d rounds; the test did not run against a paused keeper", n, rounds)
	}
}

// TestKeeperPauses: with raw connections open and no traffic the keeper
// pauses; the next raw read or write starts it again; under steady traffic
// it does not pause (a few restarts are allowed for a loaded machine that
// deschedules the writer for a whole interval; a keeper that pauses after
// every tick restarts about once per interval, ~50 times here).
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
		for end := time.Now().Add(5 * time.Second); !sysmonKeeper.paused.Load(); {
			if time.Now().After(end) {
				t.Fatal("the keeper did not pause within 5 s of idleness")
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitPaused()
	resumed := sysmonKeeper.resumes.Load()
	if _, err := c.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if sysmonKeeper.paused.Load() || sysmonKeeper.resumes.Load() != resumed+1 {
		t.Fatalf("after a write: paused %v, resumes %d (was %d)", sysmonKeeper.paused.Load(), sysmonKeeper.resumes.Load(), resumed)
	}
	waitPaused()
	if _, err := dialed.Write([]byte("y")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Read(make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	if sysmonKeeper.resumes.Load() != resumed+2 {
		t.Fatalf("after a read: resumes %d, want %d", sysmonKeeper.resumes.Load(), resumed+2)
	}
	drained := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, dialed)
		drained <- err
	}()
	for start := time.Now(); time.Since(start) < 50*keepInterval; {
		if _, err := c.Write([]byte("z")); err != nil {
			t.Fatal(err)
		}
	}
	if n := sysmonKeeper.resumes.Load() - resumed - 2; n > 5 {
		t.Errorf("steady traffic for 50 intervals: %d restarts, want at most 5", n)
	}
	c.Close()
	if err := <-drained; err != nil {
		t.Errorf("reader: %v", err)
	}
}
