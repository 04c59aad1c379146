package rawnet

import (
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// keepInterval bounds how long the runtime's monitor thread sleeps while
// raw connections are in use.
const keepInterval = 10 * time.Millisecond

// keeper runs a ticker while raw connections are in use. The runtime's
// monitor thread (sysmon) also preempts goroutines that have run for more
// than 10 ms; when it parks because the process is idle, it sleeps until
// the next timer, and only a system call made through the runtime's
// syscall state (which raw reads and writes skip) wakes it earlier. Without
// a pending timer, a goroutine woken by a raw read after an idle moment
// could compute for seconds with GOMAXPROCS=1 and no one else would run
// (TestPreemptAfterIdleRead). A timer always due within keepInterval bounds
// that sleep; it costs one wake-up per interval.
//
// So that a process does not pay those wake-ups (and sysmon's own, every
// 10 ms while the timer is pending) for as long as its connections stay
// open, the ticker pauses itself after an interval in which no raw read or
// write was made, and the next raw read or write that finds it paused
// starts it again, first waking sysmon with a system call made the
// ordinary way (which is what a raw read skipped). That read happens
// before the goroutine it wakes computes, so sysmon is awake again before
// anything could need preempting; while the keeper pauses during work, a P
// is busy and sysmon is not in its deep sleep. Under steady traffic the
// keeper never pauses (no restarts, no extra sysmon wake-ups); a process
// whose connections carry a request every now and then (the tier's polls)
// is woken by those and about one tick after each.
//
// It is process-wide state because what it compensates for is: there is
// one sysmon per process.
type keeper struct {
	mu      sync.Mutex
	n       int           // open raw connections
	stop    chan struct{} // the running ticker's; nil while none runs
	active  atomic.Bool   // a raw read or write since the last tick
	paused  atomic.Bool   // no ticker although connections are open
	resumes atomic.Int64  // times a raw operation restarted the ticker

	// run runs a started ticker until stop is closed or it pauses; nil
	// runs k.tick in a goroutine. Tests set it to drive ticks by hand
	// (onTick), so that what the keeper decides is checked without a
	// real clock.
	run func(stop chan struct{})
}

var sysmonKeeper keeper

func (k *keeper) add() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.n++
	if k.stop == nil {
		k.startLocked()
	}
}

func (k *keeper) done() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.n--
	if k.n > 0 {
		return
	}
	if k.stop != nil {
		close(k.stop)
		k.stop = nil
	}
	k.paused.Store(false)
}

// used is called after every raw read or write: it marks the interval
// active (a store only when it is not yet, so that busy connections on
// several cores do not contend for the flag) and restarts a paused ticker.
func (k *keeper) used() {
	if !k.active.Load() {
		k.active.Store(true)
	}
	if k.paused.Load() {
		k.resume()
	}
}

func (k *keeper) resume() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.paused.Load() || k.stop != nil || k.n == 0 {
		return
	}
	// An ordinary system call: entering it wakes sysmon if it sleeps.
	syscall.Syscall(syscall.SYS_GETPID, 0, 0, 0)
	k.resumes.Add(1)
	k.startLocked()
}

func (k *keeper) startLocked() {
	k.stop = make(chan struct{})
	k.paused.Store(false)
	k.active.Store(true) // the interval that starts now counts as active
	if k.run != nil {
		k.run(k.stop)
		return
	}
	go k.tick(k.stop)
}

// tick keeps a timer pending until stop is closed or an interval passes
// without a raw read or write; then it marks the keeper paused. A
// goroutine must wait on the ticker's channel: since Go 1.23 a timer nobody
// receives from is not scheduled.
func (k *keeper) tick(stop chan struct{}) {
	t := time.NewTicker(keepInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-stop:
			return
		}
		if k.onTick(stop) {
			return
		}
	}
}

// onTick is what one tick of the ticker started with stop decides: an
// interval with a raw read or write keeps it running (false); an interval
// without one ends it (true) and marks the keeper paused, unless stop is
// no longer the running ticker's.
func (k *keeper) onTick(stop chan struct{}) (ended bool) {
	if k.active.Swap(false) {
		return false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.stop == stop {
		k.stop = nil
		k.paused.Store(true)
	}
	return true
}
