package cqlserver

import (
	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql/wire"
	"github.com/dohyo/dohyo/internal/conncore"
)

// A connection's answers leave through its conncore.Writer (c.wq): one
// goroutine writes at a time (the writer role). A request worker that
// finishes while nobody writes takes the role and writes its answer
// itself, with whatever else was queued meanwhile (sendDirect); others
// append and return. Senders that must not block on a slow client (a
// backend connection's reader answering relayed requests, a DDL pushing
// events, the read loop) append and wake the connection's writer goroutine
// instead (send). Either way frames leave in the order they were queued,
// and frames queued during a write leave together in the next one.

// initWriter sets up the connection's Writer.
func (c *conn) initWriter() {
	c.wq.Init(conncore.Config{
		Conn:    c.nc,
		BufSize: writeBufSize,
		Timeout: c.srv.cfg.WriteTimeout,
		Now:     c.clock,
		Written: c.written,
		Failed:  c.writeFailed,
		Wake:    c.wakeWriter,
	})
}

// send hands an encoded frame (from StartFrame) to the writer, compressing
// the body first on v3/v4 connections that negotiated compression. Its
// bytes count as unsent until they are written (guard.go). It never
// writes to the socket itself.
func (c *conn) send(frame []byte) { c.wq.Post(c.outFrame(frame)) }

// sendDirect is send for a connection's own request workers: when no
// write is in progress the caller writes the frame (and what else is
// queued) itself, which saves waking the writer goroutine per answer.
// It may block until the client reads (at most WriteTimeout).
// While other requests of the connection are in flight, the new writer
// lets the goroutines that are ready to run (answers arriving from the
// backend at the same time) queue theirs first, so that they leave in this
// write instead of one write each.
func (c *conn) sendDirect(frame []byte) { c.wq.Send(c.outFrame(frame), c.running.Load() > 1) }

// outFrame finishes and, where negotiated, compresses a frame for the
// queue, counting it as unsent.
func (c *conn) outFrame(frame []byte) conncore.Msg {
	wire.FinishFrame(frame)
	frame = c.compressFrame(frame, true)
	c.unsent.Add(int64(len(frame)))
	return conncore.Msg{Frame: frame, Pooled: true, Counted: true}
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
	c.wq.Post(conncore.Msg{Frame: c.compressFrame(f, false)})
}

// wakeWriter asks writeLoop to write what send queued.
func (c *conn) wakeWriter() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// writeLoop takes the writer role for frames queued by senders that do
// not write themselves, and at the end writes what is left.
func (c *conn) writeLoop() {
	defer close(c.writerDone)
	for {
		select {
		case <-c.wake:
			c.wq.Flush()
		case <-c.quit:
			c.wq.Drain()
			return
		}
	}
}

// written counts answers' bytes off the unsent backlog once written (or
// dropped after a failed write).
func (c *conn) written(n int64) {
	c.unsent.Add(-n)
	c.signalDrained()
}

// writeFailed gives up on the connection after a failed write: the reader
// notices the closed socket and tears the connection down.
func (c *conn) writeFailed(err error) {
	if isTimeout(err) {
		c.srv.guard.writeTimeouts.Add(1)
		c.srv.noteGuard("client does not read its answers: connection closed", "remote", c.nc.RemoteAddr().String(),
			"timeout", c.srv.cfg.WriteTimeout, "unsent_bytes", c.unsent.Load())
	}
	c.nc.Close()
	c.cancel() // and a reader waiting for the backlog to drain too
}
