package rawnet

import (
	"fmt"
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
}
