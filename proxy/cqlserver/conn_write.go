package cqlserver

import (
	"bufio"
	"sync"
	"syscall"
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
	bw     *bufio.Writer // allocated at the first answer, writes to out
	out    sockWriter
	seg    *wire.SegmentWriter
	failed bool
	armed  time.Time
}

// sockWriter is what a connection's buffered writer writes to: the
// client's socket, either blocking (bounded by the write deadline) or,
// for a writer that must never block (a backend connection's reader
// answering relayed requests), without waiting: what the socket does not
// take at once is kept in rest, which the connection's writer goroutine
// writes, blocking, before anything else.
type sockWriter struct {
	c        *conn
	raw      syscall.RawConn // nil when the socket has none (TLS, pipes): nothing is written without blocking
	nonblock bool
	rest     []byte

	// tryWrite's arguments and results for rawWrite.
	write func(uintptr) bool // rawWrite, bound once
	p     []byte
	n     int
	werr  error
}

func (s *sockWriter) Write(p []byte) (int, error) {
	if !s.nonblock {
		return s.c.nc.Write(p)
	}
	n := len(p)
	if len(s.rest) == 0 {
		w, err := s.tryWrite(p)
		if err != nil {
			return 0, err
		}
		p = p[w:]
	}
	s.rest = append(s.rest, p...)
	return n, nil
}

// tryWrite writes what the socket takes without waiting (nothing when its
// buffer is full or the write deadline has passed).
func (s *sockWriter) tryWrite(p []byte) (int, error) {
	if s.raw == nil {
		return 0, nil
	}
	s.p = p
	err := s.raw.Write(s.write)
	n, werr := s.n, s.werr
	s.p, s.n, s.werr = nil, 0, nil
	switch {
	case err != nil && isTimeout(err):
		return 0, nil // the writer goroutine arms a new deadline
	case err != nil:
		return 0, err
	case werr == syscall.EAGAIN:
		return 0, nil
	case werr != nil:
		return 0, werr
	}
	return n, nil
}

// rawWrite is the write tryWrite hands to the raw socket (as a method
// value made once: a closure per write would be allocated). It reports
// done whatever happened: tryWrite never waits for the socket.
func (s *sockWriter) rawWrite(fd uintptr) bool {
	for {
		s.n, s.werr = syscall.Write(int(fd), s.p)
		if s.werr != syscall.EINTR {
			return true
		}
	}
}

// socketRaw is nc's raw socket for writes that must not wait, or nil.
func socketRaw(nc any) syscall.RawConn {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return rc
}

// How a sender hands a frame to the connection's writer (enqueue).
const (
	// queueWake queues and wakes the writer goroutine.
	queueWake = iota
	// queueDirect makes the sender the writer when nobody is writing; it
	// may block until the client reads (at most WriteTimeout).
	queueDirect
	// queueTry makes the sender the writer when nobody is writing, but
	// only for what the socket takes without waiting: the rest is left
	// to the writer goroutine. It never blocks on the client.
	queueTry
	// queueOnly queues and neither writes nor wakes: the caller calls
	// kick once it has queued everything it had (heldAnswers).
	queueOnly
)

// send hands an encoded frame (from StartFrame) to the writer, compressing
// the body first on v3/v4 connections that negotiated compression. Its
// bytes count as unsent until they are written (guard.go). It never
// writes to the socket itself.
func (c *conn) send(frame []byte) { c.enqueue(c.outFrame(frame), queueWake) }

// sendDirect is send for a connection's own request workers: when no
// write is in progress the caller writes the frame (and what else is
// queued) itself, which saves waking the writer goroutine per answer.
// It may block until the client reads (at most WriteTimeout).
func (c *conn) sendDirect(frame []byte) { c.enqueue(c.outFrame(frame), queueDirect) }

// sendTry is send for senders that must never block on this client (a
// backend connection's reader): when no write is in progress the caller
// writes what the socket takes at once, and only what it does not take
// is left to the writer goroutine (woken then).
func (c *conn) sendTry(frame []byte) { c.enqueue(c.outFrame(frame), queueTry) }

// kick writes, as sendTry does, what queueOnly sends left queued.
func (c *conn) kick() {
	w := &c.wq
	w.mu.Lock()
	if w.writing || len(w.q) == 0 {
		w.mu.Unlock()
		return
	}
	c.tryWriteQueued()
}

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

// enqueue queues m; how (queueWake, ...) says who writes it.
func (c *conn) enqueue(m outMsg, how int) {
	w := &c.wq
	w.mu.Lock()
	w.q = append(w.q, m)
	if w.writing {
		w.mu.Unlock()
		return
	}
	switch how {
	case queueDirect:
		w.writing = true
		c.writeQueued()
	case queueTry:
		c.tryWriteQueued()
	case queueOnly:
		w.mu.Unlock()
	default:
		w.mu.Unlock()
		c.wakeWriter()
	}
}

func (c *conn) wakeWriter() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// tryWriteQueued takes the writer role (nobody holds it; the caller holds
// w.mu, released on return) to write the queue without blocking: one
// batch, written as far as the socket takes it. Whatever is left (bytes
// the socket did not take, frames queued meanwhile) goes to the writer
// goroutine. Bytes left over from an earlier try must leave first, so
// then the writer goroutine does it all.
func (c *conn) tryWriteQueued() {
	w := &c.wq
	if w.bw == nil || w.out.raw == nil || len(w.out.rest) > 0 || w.failed {
		w.mu.Unlock()
		c.wakeWriter()
		return
	}
	w.writing = true
	batch := w.q
	w.q = w.spare[:0]
	w.mu.Unlock()
	w.out.nonblock = true
	c.writeBatch(batch, false)
	w.out.nonblock = false
	clear(batch)
	w.mu.Lock()
	w.spare = batch[:0]
	left := len(w.q) > 0 || len(w.out.rest) > 0
	w.writing = false
	w.idle.Broadcast()
	w.mu.Unlock()
	if left {
		c.wakeWriter()
	}
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
	c.enqueue(outMsg{frame: c.compressFrame(f, false)}, queueWake)
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
			if w.writing || len(w.q) == 0 && len(w.out.rest) == 0 {
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
	for len(w.q) > 0 || len(w.out.rest) > 0 {
		batch := w.q
		w.q = w.spare[:0]
		w.mu.Unlock()
		c.writeBatch(batch, true)
		clear(batch)
		w.mu.Lock()
		w.spare = batch[:0]
	}
	w.writing = false
	w.idle.Broadcast()
	w.mu.Unlock()
}

// writeBatch writes frames in one flush: one syscall for answers that
// were queued together. A blocking writer (block) first writes what a
// non-blocking one left (sockWriter.rest), which stays counted as unsent
// until then.
func (c *conn) writeBatch(batch []outMsg, block bool) {
	w := &c.wq
	var counted int64
	if block {
		c.armWrite()
		if n := len(w.out.rest); n > 0 {
			if !w.failed {
				if _, err := c.nc.Write(w.out.rest); err != nil {
					c.writeFailed(err)
				}
			}
			w.out.rest = w.out.rest[:0]
			counted += int64(n)
		}
	}
	rest := len(w.out.rest)
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
	counted -= int64(len(w.out.rest) - rest) // left to the writer goroutine: still unsent
	if counted != 0 {
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
		if now := time.Now(); now.Sub(w.armed) > time.Second {
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
		w.out = sockWriter{c: c, raw: socketRaw(c.nc)}
		w.out.write = w.out.rawWrite
		w.bw = bufio.NewWriterSize(&w.out, writeBufSize)
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
