package cqlserver

import (
	"bufio"
	"runtime"
	"sync"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql/wire"
)

// answerQueue is a connection's outgoing frames and the state of the one
// goroutine writing them at a time (the writer role). A request worker
// that finishes while nobody writes takes the role and writes its answer
// itself, with whatever else was queued meanwhile; others append and
// return. Senders that must not block on a slow client (a backend
// connection's reader answering relayed requests, a DDL pushing events,
// the read loop) append and wake the connection's writer goroutine
// instead. Either way frames leave in the order they were queued, and
// frames queued during a write leave together in the next one.
type answerQueue struct {
	mu      sync.Mutex
	idle    sync.Cond // signalled when the writer role is released
	q       []outMsg  // queued, in order
	spare   []outMsg  // the other buffer (swapped with q per batch)
	writing bool      // someone holds the writer role

	// Owned by the writer role.
	bw     *bufio.Writer // allocated at the first answer
	seg    *wire.SegmentWriter
	failed bool
	armed  time.Time
}

// send hands an encoded frame (from StartFrame) to the writer, compressing
// the body first on v3/v4 connections that negotiated compression. Its
// bytes count as unsent until they are written (guard.go). It never
// writes to the socket itself.
func (c *conn) send(frame []byte) { c.enqueue(c.outFrame(frame), false) }

// sendDirect is send for a connection's own request workers: when no
// write is in progress the caller writes the frame (and what else is
// queued) itself, which saves waking the writer goroutine per answer.
// It may block until the client reads (at most WriteTimeout).
func (c *conn) sendDirect(frame []byte) { c.enqueue(c.outFrame(frame), true) }

// outFrame finishes and, where negotiated, compresses a frame for the
// queue, counting it as unsent.
func (c *conn) outFrame(frame []byte) outMsg {
	wire.FinishFrame(frame)
	frame = c.compressFrame(frame, true)
	c.unsent.Add(int64(len(frame)))
	return outMsg{frame: frame, pooled: true, counted: true}
}

// compressFrame returns a finished frame compressed on v3/v4 connections
// that negotiated compression, when that makes it smaller (READY and
// empty bodies stay as they are). With pooled, the buffer left over goes
// back to the pool.
func (c *conn) compressFrame(f []byte, pooled bool) []byte {
	if c.body == nil || c.version >= 5 || f[4] == wire.OpReady || len(f) <= wire.HeaderLen {
		return f
	}
	var dst []byte
	if pooled {
		dst = getBuf()
	}
	z := c.body.Compress(append(dst, f[:wire.HeaderLen]...), f[wire.HeaderLen:])
	if len(z) >= len(f) {
		if pooled {
			putBuf(z)
		}
		return f
	}
	z[1] |= wire.FlagCompressed
	wire.FinishFrame(z)
	if pooled {
		putBuf(f)
	}
	return z
}

// enqueue queues m; with direct, the caller becomes the writer when
// nobody is writing.
func (c *conn) enqueue(m outMsg, direct bool) {
	w := &c.wq
	w.mu.Lock()
	w.q = append(w.q, m)
	if w.writing {
		w.mu.Unlock()
		return
	}
	if !direct {
		w.mu.Unlock()
		select {
		case c.wake <- struct{}{}:
		default:
		}
		return
	}
	w.writing = true
	if c.running.Load() > 1 {
		// Other requests of this connection are in flight: let the
		// goroutines that are ready to run (answers arriving from the
		// backend at the same time) queue theirs first, so that they
		// leave in this write instead of one write each.
		w.mu.Unlock()
		runtime.Gosched()
		w.mu.Lock()
	}
	c.writeQueued()
}

// pushEvent queues an event frame without ever blocking the caller (a DDL
// request on another connection).
func (c *conn) pushEvent(ch *bindings.SchemaChange) {
	c.pushEventFrame(encodeEvent(wire.StartFrame(nil, c.version, 0, -1, wire.OpEvent), ch))
}

// pushEventFrame queues an encoded event body (after its frame header).
func (c *conn) pushEventFrame(f []byte) {
	if c.stopping.Load() {
		return
	}
	wire.FinishFrame(f)
	c.enqueue(outMsg{frame: c.compressFrame(f, false)}, false)
}

// writeLoop takes the writer role for frames queued by senders that do
// not write themselves, and at the end writes what is left.
func (c *conn) writeLoop() {
	defer close(c.writerDone)
	w := &c.wq
	for {
		select {
		case <-c.wake:
			w.mu.Lock()
			if w.writing || len(w.q) == 0 {
				w.mu.Unlock()
				continue
			}
			w.writing = true
			c.writeQueued()
		case <-c.quit:
			w.mu.Lock()
			for w.writing {
				w.idle.Wait()
			}
			w.writing = true
			c.writeQueued()
			return
		}
	}
}

// writeQueued writes batches until the queue is empty, then releases the
// writer role. The caller has just taken the role and holds w.mu, which
// is released on return.
func (c *conn) writeQueued() {
	w := &c.wq
	for len(w.q) > 0 {
		batch := w.q
		w.q = w.spare[:0]
		w.mu.Unlock()
		c.writeBatch(batch)
		clear(batch)
		w.mu.Lock()
		w.spare = batch[:0]
	}
	w.writing = false
	w.idle.Broadcast()
	w.mu.Unlock()
}

// writeBatch writes frames in one flush: one syscall for answers that
// were queued together.
func (c *conn) writeBatch(batch []outMsg) {
	w := &c.wq
	c.armWrite()
	var counted int64
	for _, m := range batch {
		c.writeFrame(m.frame)
		if m.counted {
			counted += int64(len(m.frame))
		}
		if m.pooled {
			putBuf(m.frame)
		}
		if m.v5 != nil {
			c.flushWrites()
			if w.bw != nil {
				w.seg = &wire.SegmentWriter{W: w.bw, Compressed: m.v5.lz4}
			}
		}
	}
	c.flushWrites()
	if counted > 0 {
		c.unsent.Add(-counted)
		c.signalDrained()
	}
}

// armWrite sets the write deadline, one per batch of answers renewed at
// most every second: a client that accepts nothing for WriteTimeout is
// cut.
func (c *conn) armWrite() {
	w := &c.wq
	if d := c.srv.cfg.WriteTimeout; d > 0 && !w.failed {
		if now := c.clock(); now.Sub(w.armed) > time.Second {
			w.armed = now
			c.nc.SetWriteDeadline(now.Add(d))
		}
	}
}

func (c *conn) writeFrame(f []byte) {
	w := &c.wq
	if w.failed {
		return
	}
	if w.bw == nil {
		w.bw = bufio.NewWriterSize(c.nc, writeBufSize)
	}
	var err error
	if w.seg != nil {
		err = w.seg.Add(f)
	} else {
		_, err = w.bw.Write(f)
	}
	if err != nil {
		c.writeFailed(err)
	}
}

func (c *conn) flushWrites() {
	w := &c.wq
	if w.failed || w.bw == nil {
		return
	}
	var err error
	if w.seg != nil {
		err = w.seg.Flush()
	}
	if err == nil {
		err = w.bw.Flush()
	}
	if err != nil {
		c.writeFailed(err)
	}
}

// writeFailed gives up on the connection after a failed write: the reader
// notices the closed socket and tears the connection down.
func (c *conn) writeFailed(err error) {
	c.wq.failed = true
	if isTimeout(err) {
		c.srv.guard.writeTimeouts.Add(1)
		c.srv.noteGuard("client does not read its answers: connection closed", "remote", c.nc.RemoteAddr().String(),
			"timeout", c.srv.cfg.WriteTimeout, "unsent_bytes", c.unsent.Load())
	}
	c.nc.Close()
	c.cancel() // and a reader waiting for the backlog to drain too
}
