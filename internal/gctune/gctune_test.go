package gctune

import (
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func TestPercent(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		heap, floor uint64
		base, want  int
	}{
		{64 * mib, 64 * mib, 100, 100},   // large enough
		{200 * mib, 64 * mib, 100, 100},  // larger
		{32 * mib, 64 * mib, 100, 100},   // GOGC=100 reaches the floor already
		{2 * mib, 64 * mib, 100, 3100},   // 2 MiB live: goal 64 MiB
		{3 * mib, 64 * mib, 100, 2121},   // 2034 rounded up to a multiple of 101
		{2 * mib, 64 * mib, 5000, 5000},  // the base is higher already
		{0, 64 * mib, 100, MaxPercent},   // nothing live: bounded
		{100, 64 * mib, 100, MaxPercent}, // almost nothing live
		{60 * mib, 64 * mib, 1, 7},       // a low base
	} {
		if got := Percent(tc.heap, tc.floor, tc.base); got != tc.want {
			t.Errorf("Percent(%d, %d, %d) = %d, want %d", tc.heap, tc.floor, tc.base, got, tc.want)
		}
	}
	// Properties: the goal reaches the floor (unless bounded), the base is
	// a lower bound, and the rounding adds at most a tenth.
	r := rand.New(rand.NewPCG(1, 2))
	for range 10_000 {
		floor := 1 + r.Uint64N(1<<32)
		heap := r.Uint64N(2 * floor)
		base := r.IntN(500)
		p := Percent(heap, floor, base)
		h := max(heap, 1)
		goal := float64(h) * (1 + float64(p)/100)
		switch {
		case p < base || p > MaxPercent:
			t.Fatalf("Percent(%d, %d, %d) = %d: outside [base, MaxPercent]", heap, floor, base, p)
		case p < MaxPercent && goal < float64(floor):
			t.Fatalf("Percent(%d, %d, %d) = %d: goal %.0f below the floor", heap, floor, base, p, goal)
		case p > base && p < MaxPercent && float64(p) > 1.1*(float64(floor-h)/float64(h)*100)+1:
			t.Fatalf("Percent(%d, %d, %d) = %d: more than a tenth above what the floor needs", heap, floor, base, p)
		}
	}
}

// gogc reads the collector's current percentage.
func gogc(t *testing.T) int {
	t.Helper()
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}

// TestTunerFollowsCollections: a running tuner sets the percentage after
// each collection, and Stop restores the base.
func TestTunerFollowsCollections(t *testing.T) {
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)
	seen := make(chan int, 64)
	tu := start(1<<40, 100, func(p int) { // a floor no test heap reaches
		select {
		case seen <- p:
		default:
		}
	})
	defer tu.Stop()
	if p := <-seen; p != MaxPercent || gogc(t) != MaxPercent {
		t.Fatalf("at start: computed %d, collector at %d; want %d", p, gogc(t), MaxPercent)
	}
	// Each collection runs the tuner again (a cleanup re-armed per cycle).
	for i := range 3 {
		debug.SetGCPercent(100) // somebody else changed it
		runtime.GC()
		select {
		case p := <-seen:
			if p != MaxPercent {
				t.Fatalf("collection %d: computed %d", i, p)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("collection %d: the tuner did not run", i)
		}
	}
	tu.Stop()
	if got := gogc(t); got != 100 {
		t.Errorf("after Stop: collector at %d, want the base 100", got)
	}
	runtime.GC()
	select {
	case p := <-seen:
		t.Errorf("the tuner ran after Stop (computed %d)", p)
	default:
	}
}

func TestStartNothingToTune(t *testing.T) {
	if Start(0, 100) != nil || Start(1<<20, -1) != nil {
		t.Error("Start with no floor or the collector off returned a tuner")
	}
	var tu *Tuner
	tu.Stop() // a nil tuner stops without harm
}
