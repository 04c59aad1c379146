package gctune

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// DefaultFloor is dohyo serve's gc-heap-floor-bytes.
const DefaultFloor = 64 << 20

// MaxPercent bounds the GC percentage a Tuner sets (a nearly empty heap
// would otherwise ask for an absurd one).
const MaxPercent = 100_000

// Tuner adjusts the GC percentage after every collection (see the package
// documentation). Start one per process; Stop restores the base.
type Tuner struct {
	floor   uint64
	base    int
	samples []metrics.Sample
	// observe, when set, is called with every percentage the tuner
	// computes (tests).
	observe func(percent int)

	mu      sync.Mutex
	stopped bool
	current int
}

// Start makes the next heap goal at least floor bytes, from the next
// collection on, with base (GOGC's value, e.g. 100) as the percentage of
// a heap large enough without help. It returns nil when floor is 0 or base
// is negative (the collector off): nothing to tune.
func Start(floor uint64, base int) *Tuner {
	return start(floor, base, nil)
}

func start(floor uint64, base int, observe func(int)) *Tuner {
	if floor == 0 || base < 0 {
		return nil
	}
	// Read after each collection: the live heap, and the stacks and
	// globals the collector counts with it towards the next goal.
	t := &Tuner{floor: floor, base: base, current: base, observe: observe, samples: []metrics.Sample{
		{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/stack:bytes"}, {Name: "/gc/scan/globals:bytes"}}}
	t.adjust()
	return t
}

// Stop ends the tuning and restores the base percentage.
func (t *Tuner) Stop() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	t.stopped = true
	if t.current != t.base {
		debug.SetGCPercent(t.base)
	}
}

// arm asks to be called after the next collection: the cleanup of an
// object nothing references runs once a collection has found it
// unreachable, and re-arms.
func (t *Tuner) arm() {
	runtime.AddCleanup(new(sentinel), afterGC, t)
}

// sentinel is large enough to be an object of its own (the tiny
// allocator packs smaller pointer-free objects together, which would
// delay their cleanup until all of them are unreachable).
type sentinel [32]byte

func afterGC(t *Tuner) { t.adjust() }

// adjust asks to run again after the next collection and sets the
// percentage for the live heap the last collection left (nothing once the
// tuner is stopped).
func (t *Tuner) adjust() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	t.arm()
	metrics.Read(t.samples)
	var heap uint64
	for _, s := range t.samples {
		if s.Value.Kind() == metrics.KindUint64 {
			heap += s.Value.Uint64()
		}
	}
	p := Percent(heap, t.floor, t.base)
	if t.observe != nil {
		t.observe(p)
	}
	if p != t.current {
		debug.SetGCPercent(p)
		t.current = p
	}
}

// runtimeHeapMinimum is the Go runtime's smallest heap goal at GOGC=100
// (defaultHeapMinimum, 4 MiB). The runtime scales it with the GC
// percentage: at GOGC=p no goal is below runtimeHeapMinimum*p/100, however
// small the live heap (TestGoalAtFloor checks this against the runtime).
const runtimeHeapMinimum = 4 << 20

// Percent is the GC percentage that makes the goal after a collection
// that left heap bytes (live heap, stacks and globals) at least floor,
// and never below base. It is rounded up in steps of a twentieth of itself
// (so that small changes of the live heap do not change it), and bounded by
// ceilPercent(floor), the percentage at which the runtime's own minimum
// goal is the floor (a nearly empty heap, before the first collection
// above all, would otherwise get a percentage whose minimum goal is far
// above the floor), and by MaxPercent.
func Percent(heap, floor uint64, base int) int {
	if heap == 0 {
		heap = 1
	}
	if heap >= floor {
		return base
	}
	limit := ceilPercent(floor) // at most MaxPercent
	p := math.Ceil(float64(floor-heap) / float64(heap) * 100)
	if p >= float64(limit) {
		return max(limit, base)
	}
	need := int(p)
	if need <= base {
		return base
	}
	step := max(need/20, 1)
	need = (need + step - 1) / step * step
	return max(min(need, limit), base)
}

// ceilPercent is the smallest percentage whose minimum goal
// (runtimeHeapMinimum scaled by it) reaches floor.
func ceilPercent(floor uint64) int {
	p := (floor*100 + runtimeHeapMinimum - 1) / runtimeHeapMinimum
	return int(min(p, MaxPercent))
}
