package rawnet

import (
	"sync"
	"time"
)

// keepInterval bounds how long the runtime's monitor thread sleeps while
// raw connections are open.
const keepInterval = 10 * time.Millisecond

// keeper runs a ticker while raw connections are open. The runtime's
// monitor thread (sysmon) also preempts goroutines that have run for more
// than 10 ms; when it parks because the process is idle, it sleeps until
// the next timer, and only a system call made through the runtime's
// syscall state (which raw reads and writes skip) wakes it earlier. Without
// a pending timer, a goroutine woken by a raw read after an idle moment
// could compute for seconds with GOMAXPROCS=1 and no one else would run
// (TestPreemptAfterIdleRead). A timer always due within keepInterval bounds
// that sleep; it costs one wake-up per interval.
//
// It is process-wide state because what it compensates for is: there is
// one sysmon per process.
type keeper struct {
	mu   sync.Mutex
	n    int           // open raw connections
	stop chan struct{} // closed when n drops to 0
}

var sysmonKeeper keeper

func (k *keeper) add() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.n == 0 {
		k.stop = make(chan struct{})
		go tick(k.stop)
	}
	k.n++
}

func (k *keeper) done() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.n--
	if k.n == 0 {
		close(k.stop)
	}
}

// tick keeps a timer pending until stop is closed. A goroutine must wait on
// the ticker's channel: since Go 1.23 a timer nobody receives from is not
// scheduled.
func tick(stop <-chan struct{}) {
	t := time.NewTicker(keepInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-stop:
			return
		}
	}
}
