package cqlserver

import (
	"bufio"
	"bytes"
	"context"
	"sync/atomic"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql/wire"
)

// The relay's fast path. A request without tracing, custom payload or
// per-keyspace budgets is written to a backend connection by the client
// connection's reader itself, and its answer is sent to the client by the
// backend connection's reader: no goroutine and no channel hand-off per
// request (on a 2-core machine shared with Cassandra, the relay's CPU per
// request is what its throughput costs Cassandra). The backend
// connection's deadline sweep answers the request timeout (no timer per
// request; relay_deadline.go). Anything unusual — no live connection yet (dialing),
// no free stream id, no request timeout to bound the wait, an UNPREPARED
// answer to re-prepare — goes the general way (relayRun on a goroutine).

// asyncRelay is one request on the fast path.
type asyncRelay struct {
	c     *conn
	p     *relayPlan // &plan
	plan  relayPlan
	req   *request
	bc    *backendConn
	key   poolKey
	creds *credentials
	start time.Time
	done  atomic.Bool // answered (by the response or the timeout)
}

// relayAsync starts req on the fast path; false means it sent nothing and
// the general path must take it.
func (c *conn) relayAsync(p *relayPlan, req *request) bool {
	timeout := c.srv.timeoutFor(req)
	if timeout <= 0 {
		return false // nothing would bound the wait for Cassandra
	}
	creds := c.relayCreds(p.rl)
	key, bc := p.rl.liveConn(c.version, creds, p.group)
	if bc == nil {
		return false
	}
	if err := c.acquire(); err != nil {
		c.send(c.errorFrame(req.stream, err))
		return true
	}
	c.inflight.Add(1)
	x := p.rl.newAsync()
	x.c, x.plan, x.req, x.bc, x.key, x.creds, x.start = c, *p, req, bc, key, creds, c.srv.coord.Now()
	x.p = &x.plan
	// From here x belongs to the connection (answer, timeout or close),
	// which recycles it: it must not be touched once submitted.
	_, ok, err := bc.submitTimeout(req.flags, req.op, req.body, x, timeout)
	if !ok {
		x.recycle()
		c.release()
		c.inflight.Done()
		return false
	}
	c.cork(bc)
	p.rl.requests.Add(1)
	if err != nil {
		x.deliver(relayResp{}, err)
	}
	return true
}

// newAsync returns a recycled asyncRelay, or a new one.
func (rl *Relay) newAsync() *asyncRelay {
	if x, ok := rl.asyncs.Get().(*asyncRelay); ok {
		return x
	}
	return &asyncRelay{}
}

// recycle clears x and hands it back to its Relay's pool. Only the one
// that answered the request calls it (finish, expired), once nothing else
// can reach x: the backend connection has taken it off its stream (the
// reader before deliver, the sweep before expired, close before deliver)
// and the re-prepare goroutine, if any, is the one finishing.
func (x *asyncRelay) recycle() {
	rl := x.plan.rl
	x.c, x.p, x.plan, x.req, x.bc, x.key, x.creds, x.start = nil, nil, relayPlan{}, nil, nil, poolKey{}, nil, time.Time{}
	x.done.Store(false)
	rl.asyncs.Put(x)
}

// deliver runs on the backend connection's reader with Cassandra's
// answer (or the error that closed the connection).
func (x *asyncRelay) deliver(resp relayResp, err error) {
	if err == nil && resp.h.Op == wire.OpError && (x.req.op == wire.OpExecute || x.req.op == wire.OpBatch) {
		e := respError(resp)
		if e.Code == bindings.CodeUnprepared {
			if rp, ok := x.p.rl.prepared.Get(string(e.UnpreparedID)); ok {
				resp.hold = nil
				resp.body = bytes.Clone(resp.body) // the reader's buffer (waiter)
				go x.reprepare(rp, resp)           // needs more round trips: off this reader
				return
			}
		}
	}
	if err != nil {
		x.p.rl.failures.Add(1)
		err = bindings.Errorf(bindings.CodeServerError, "dohyo relay: %v", err)
	}
	resp.node = x.key.node
	x.finish(resp, err)
}

// reprepare prepares the statement again on the node that forgot it and
// relays the request once more, within what is left of its timeout.
func (x *asyncRelay) reprepare(rp *relayPrepared, unprepared relayResp) {
	ctx, cancel := context.WithTimeout(x.c.reqCtx, x.c.srv.timeoutFor(x.req)-time.Since(x.start))
	defer cancel()
	resp := unprepared // when the client must prepare again (see Relay.reprepare)
	changed, err := x.p.rl.reprepare(ctx, x.key, rp)
	if err == nil && (!changed || x.req.op != wire.OpExecute) {
		resp, err = x.p.rl.send(ctx, x.bc, x.key, x.creds, x.req)
	} else if err != nil && ctx.Err() == nil {
		x.p.rl.log.Debug("relay: re-prepare failed", "node", x.key.node, "err", err)
		err = nil // the driver prepares it again itself
	}
	if err != nil && ctx.Err() != nil {
		if x.expire() { // off its stream already: the sweep cannot answer
			x.expired()
		}
		return
	}
	resp.node = x.key.node
	x.finish(resp, err)
}

// finish answers the client, unless the timeout did.
func (x *asyncRelay) finish(resp relayResp, err error) {
	if !x.done.CompareAndSwap(false, true) {
		return
	}
	c := x.c
	frame := c.relayAnswer(c.reqCtx, x.start, x.p, x.creds, x.req, resp, err)
	x.recycle()
	if resp.hold != nil {
		resp.hold.add(c, frame)
		return
	}
	c.answer(frame)
}

// answer sends a relayed request's answer and frees its slot.
func (c *conn) answer(frame []byte) {
	c.send(frame)
	c.release()
	c.inflight.Done()
}

// heldAnswers are answers a backend connection's reader holds back while
// it has more responses buffered: handed to the clients' writers together,
// they leave in fewer writes (a writer woken by the first answer would
// write it alone).
type heldAnswers struct {
	a []heldAnswer
}

type heldAnswer struct {
	c     *conn
	frame []byte
}

func (h *heldAnswers) add(c *conn, frame []byte) { h.a = append(h.a, heldAnswer{c, frame}) }

func (h *heldAnswers) send() {
	for i, a := range h.a {
		a.c.answer(a.frame)
		h.a[i] = heldAnswer{}
	}
	h.a = h.a[:0]
}

// expire claims the request for its timeout (expirer): false when it was
// answered already.
func (x *asyncRelay) expire() bool { return x.done.CompareAndSwap(false, true) }

// expired answers the request timeout; the backend connection's sweep has
// taken the request off its stream (Cassandra's answer will be dropped).
func (x *asyncRelay) expired() {
	c, req := x.c, x.req
	c.srv.timedOut.Add(1)
	err := c.timeoutError(req)
	c.observeRelayed(x.start, x.p, req, relayedError(err))
	x.recycle()
	c.send(c.errorFrame(req.stream, err))
	c.release()
	c.inflight.Done()
}

// cork remembers that bc has frames of this connection's requests queued
// but not written; the reader writes them (uncork) before it waits for the
// client's next frame, so that requests that arrived together go to
// Cassandra in one write. Reader goroutine only.
func (c *conn) cork(bc *backendConn) {
	for _, b := range c.corked {
		if b == bc {
			return
		}
	}
	c.corked = append(c.corked, bc)
}

// uncork writes what cork held back.
func (c *conn) uncork() {
	for i, bc := range c.corked {
		bc.flush()
		c.corked[i] = nil
	}
	c.corked = c.corked[:0]
}

// nextFrameBuffered tells whether the client's next frame is already
// read in full, so the reader will not wait for it: with v5 framing, the
// current segment holds more envelopes (drivers pack many small requests
// into one segment) or the next self-contained segment is buffered whole.
func (c *conn) nextFrameBuffered() bool {
	if c.seg == nil {
		return frameBuffered(c.br)
	}
	if c.seg.Unread() > 0 {
		return true
	}
	whole, self := c.seg.NextBuffered()
	return whole && self
}

// frameBuffered tells whether br holds a whole v3/v4 frame.
func frameBuffered(br *bufio.Reader) bool {
	if br.Buffered() < wire.HeaderLen {
		return false
	}
	hb, err := br.Peek(wire.HeaderLen)
	if err != nil {
		return false
	}
	h := wire.ParseHeader(hb)
	return h.Length >= 0 && br.Buffered() >= wire.HeaderLen+int(h.Length)
}
