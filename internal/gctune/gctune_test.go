package gctune

import (
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// goal is the runtime's heap goal after a collection that left heap bytes,
// at percentage p: the live heap's share, but never below the minimum goal
// scaled by p.
func goal(heap uint64, p int) float64 {
	return max(float64(max(heap, 1))*(1+float64(p)/100), float64(runtimeHeapMinimum)*float64(p)/100)
}

func TestPercent(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		heap, floor uint64
		base, want  int
	}{
		{64 * mib, 64 * mib, 100, 100},  // large enough
		{200 * mib, 64 * mib, 100, 100}, // larger
		{32 * mib, 64 * mib, 100, 100},  // GOGC=100 reaches the floor already
		{16 * mib, 64 * mib, 100, 300},  // 16 MiB live: goal 64 MiB
		{5 * mib, 64 * mib, 100, 1180},  // 1180, a multiple of its step (59)
		{2 * mib, 64 * mib, 100, 1600},  // the minimum goal at 1600 % is the floor
		{2 * mib, 64 * mib, 5000, 5000}, // the base is higher already
		{0, 64 * mib, 100, 1600},        // nothing live (before the first collection)
		{100, 64 * mib, 100, 1600},      // almost nothing live
		{60 * mib, 64 * mib, 1, 7},      // a low base
		{1 * mib, 16 * mib, 100, 400},   // a smaller floor
		{1 * mib, 2 * mib, 100, 100},    // below the runtime's own minimum goal
		{100, 1 << 50, 100, MaxPercent}, // bounded
	} {
		if got := Percent(tc.heap, tc.floor, tc.base); got != tc.want {
			t.Errorf("Percent(%d, %d, %d) = %d, want %d", tc.heap, tc.floor, tc.base, got, tc.want)
		}
	}
	// Properties: the goal reaches the floor (unless bounded by
	// MaxPercent), the base is a lower bound, and the goal is at most a
	// tenth above the floor unless the base alone puts it higher.
	r := rand.New(rand.NewPCG(1, 2))
	for range 10_000 {
		floor := 1 + r.Uint64N(1<<36)
		heap := r.Uint64N(2 * floor)
		base := r.IntN(500)
		p := Percent(heap, floor, base)
		g := goal(heap, p)
		switch {
		case p < base || p > MaxPercent:
			t.Fatalf("Percent(%d, %d, %d) = %d: outside [base, MaxPercent]", heap, floor, base, p)
		case p < MaxPercent && g < float64(floor):
			t.Fatalf("Percent(%d, %d, %d) = %d: goal %.0f below the floor", heap, floor, base, p, g)
		case p > base && g > 1.1*float64(floor)+1:
			t.Fatalf("Percent(%d, %d, %d) = %d: goal %.0f more than a tenth above the floor", heap, floor, base, p, g)
		}
	}
}

// TestGoalAtFloor reads the runtime's own heap goal after a tuner starts
// with a floor far above this test's live heap: the goal is the floor
// (the runtime's minimum goal scaled by the percentage), not the many
// times the floor a percentage computed from the live heap alone gives
// (4 GiB for this floor, with MaxPercent).
func TestGoalAtFloor(t *testing.T) {
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)
	runtime.GC()
	const floor = 64 << 20
	tu := Start(floor, 100)
	defer tu.Stop()
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	g, live := s[0].Value.Uint64(), s[1].Value.Uint64()
	if live > floor/20 {
		t.Skipf("live heap %d bytes: too large for this check", live)
	}
	if g < floor || g > floor+floor/10 {
		t.Fatalf("heap goal %d bytes with a floor of %d (live heap %d, GC percent %d)", g, floor, live, gogc(t))
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
