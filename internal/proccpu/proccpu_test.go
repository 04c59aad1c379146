package proccpu

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	// A command name with spaces and parentheses, utime 250, stime 7.
	rest := "S 1 2 3 4 5 6 7 8 9 10 250 7 0 0 20 0 1 0 100"
	got, err := parse([]byte("1234 (a (b) c) " + rest + "\n"))
	if err != nil || got != 2570*time.Millisecond {
		t.Fatalf("parse = %v, %v; want 2.57s", got, err)
	}
	for _, bad := range []string{
		"",
		"1234 no-parenthesis S 1 2",
		"1234 (x) S 1 2 3", // too short
		"1234 (x) S 1 2 3 4 5 6 7 8 9 10 2x5 7 0",         // not a number
		"1234 (x) S 1 2 3 4 5 6 7 8 9 10 -1 7 0 0 20 0 1", // negative
	} {
		if d, err := parse([]byte(bad)); err == nil {
			t.Errorf("parse(%q) = %v, want an error", bad, d)
		}
	}
}

func TestParseMachine(t *testing.T) {
	// user 100, nice 2, system 30, idle 5000, iowait 7, irq 1, softirq 4,
	// steal 3, guest 50 (already in user), guest_nice 0.
	stat := "cpu  100 2 30 5000 7 1 4 3 50 0\ncpu0 50 1 15 2500 3 0 2 1 25 0\n"
	got, err := parseMachine([]byte(stat))
	if err != nil || got != 1400*time.Millisecond {
		t.Fatalf("parseMachine = %v, %v; want 1.4s", got, err)
	}
	for _, bad := range []string{
		"",
		"cpu0 1 2 3 4 5 6 7 8\n",     // not the machine's line
		"cpu 1 2 3 4 5 6 7\n",        // too short
		"cpu 1 2 x 4 5 6 7 8 9 10\n", // not a number
	} {
		if d, err := parseMachine([]byte(bad)); err == nil {
			t.Errorf("parseMachine(%q) = %v, want an error", bad, d)
		}
	}
	if _, err := os.Stat("/proc/stat"); err == nil {
		if _, err := MachineBusy(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestOfOwnProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc on this system")
	}
	before, err := Of(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// Spin until the process has used at least two more ticks (bounded).
	deadline := time.Now().Add(10 * time.Second)
	after := before
	for after < before+2*tick && time.Now().Before(deadline) {
		var s strings.Builder
		for i := 0; i < 10000; i++ {
			s.WriteByte(byte(i))
		}
		if after, err = Of(os.Getpid()); err != nil {
			t.Fatal(err)
		}
	}
	if after < before+2*tick {
		t.Fatalf("CPU time %v → %v after 10 s of spinning", before, after)
	}
	if _, err := Of(-1); err == nil {
		t.Error("Of(-1) succeeded")
	}
}
