package relay

import (
	"bufio"
	"sync"

	"github.com/dohyo/dohyo/cql/wire"
	"github.com/dohyo/dohyo/internal/bufpool"
)

// writeQueue is a backend connection's outgoing frames. Any goroutine may
// add frames; flush writes them, unless another flush is already writing,
// in which case that one writes them as well before it returns: one
// write syscall per batch of frames that became ready together, and no
// writer goroutine to wake per request.
type writeQueue struct {
	mu      sync.Mutex
	pending [][]byte // pooled frames, in order
	spare   [][]byte // the last batch written, reused (flusher only)
	writing bool     // a flush is writing
	closed  bool

	bw  *bufio.Writer       // flusher only
	seg *wire.SegmentWriter // v5 framing (flusher only)
}

// add queues f; false when the queue is closed (f was not taken).
func (q *writeQueue) add(f []byte) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false
	}
	q.pending = append(q.pending, f)
	return true
}

// flush writes every queued frame, including those added while it writes,
// or returns at once when another flush is writing (it writes them). It
// returns the error of a failed write (the connection must be closed).
func (q *writeQueue) flush() error {
	q.mu.Lock()
	if q.writing || q.closed || len(q.pending) == 0 {
		q.mu.Unlock()
		return nil
	}
	q.writing = true
	for {
		batch := q.pending
		if len(batch) == 0 || q.closed {
			q.writing = false
			q.mu.Unlock()
			return nil
		}
		q.pending = q.spare[:0]
		q.mu.Unlock()
		err := q.write(batch)
		clear(batch)
		q.mu.Lock()
		q.spare = batch[:0]
		if err != nil {
			q.writing = false
			q.mu.Unlock()
			return err
		}
	}
}

// write writes one batch and flushes it to the socket.
func (q *writeQueue) write(batch [][]byte) error {
	var err error
	for _, f := range batch {
		if err == nil {
			if q.seg != nil {
				err = q.seg.Add(f)
			} else {
				_, err = q.bw.Write(f)
			}
		}
		bufpool.Put(f)
	}
	if err == nil && q.seg != nil {
		err = q.seg.Flush()
	}
	if err == nil {
		err = q.bw.Flush()
	}
	return err
}

// close drops the queued frames; later adds fail.
func (q *writeQueue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	for _, f := range q.pending {
		bufpool.Put(f)
	}
	q.pending = nil
}
