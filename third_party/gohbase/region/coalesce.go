package region

import (
	"net"
	"runtime"
	"sync"
)

// dohyo patch: RPCs that several goroutines send at about the same time
// leave in one write. The first sender takes the writer role; while other
// RPCs are in flight it yields once (runtime.Gosched) so that goroutines
// ready to run (requests that arrived together) append their RPCs behind
// it, then writes everything queued, and keeps writing until nothing is
// left. A sender that finds the role taken appends its bytes and returns:
// its RPC is registered already, so if the shared write fails, the
// writer's caller fails the connection (ServerError → client.fail), which
// fails every registered RPC, its own included. Each RPC's bytes stay
// contiguous, which is all the protocol needs (responses carry call ids).
type writeGroup struct {
	mu      sync.Mutex
	writing bool
	pending []byte // RPCs queued behind the writer, in order
	spare   []byte // the other buffer (swapped per write)
}

// maxSpare bounds the buffer kept between writes.
const maxSpare = 256 << 10

// writeGrouped writes one RPC (b, then its cellblocks) alone or together
// with others.
func (c *client) writeGrouped(b []byte, cellblocks net.Buffers) error {
	w := &c.wg
	w.mu.Lock()
	w.pending = append(w.pending, b...)
	for _, cb := range cellblocks {
		w.pending = append(w.pending, cb...)
	}
	if w.writing {
		w.mu.Unlock()
		return nil
	}
	w.writing = true
	w.mu.Unlock()
	if c.busy() {
		runtime.Gosched()
	}
	w.mu.Lock()
	var err error
	for len(w.pending) > 0 && err == nil {
		buf := w.pending
		w.pending = w.spare[:0]
		w.mu.Unlock()
		err = c.write(buf)
		w.mu.Lock()
		if cap(buf) <= maxSpare {
			w.spare = buf[:0]
		} else {
			w.spare = nil
		}
	}
	if err != nil {
		w.pending = w.pending[:0] // the connection is failed: nothing more goes out
	}
	w.writing = false
	w.mu.Unlock()
	return err
}

// busy reports whether RPCs are in flight on the connection, i.e. whether
// others may be about to send too.
func (c *client) busy() bool {
	c.inFlightM.Lock()
	n := c.inFlight
	c.inFlightM.Unlock()
	return n > 0
}
