package cqlserver

import (
	"bytes"
	"context"
	"sync/atomic"
	"time"

	"github.com/dohyo/dohyo/bindings/cassandra/relay"
	"github.com/dohyo/dohyo/cql/wire"
)

// The relay's fast path. A request without tracing, custom payload or
// per-keyspace budgets is written to a backend connection by the client
// connection's reader itself, and its answer is sent to the client by the
// backend connection's reader: no goroutine and no channel hand-off per
// request (on a 2-core machine shared with Cassandra, the relay's CPU per
// request is what its throughput costs Cassandra). The backend
// connection's deadline sweep answers the request timeout (no timer per
// request; bindings/cassandra/relay). Anything unusual — no live connection yet (dialing),
// no free stream id, no request timeout to bound the wait, an UNPREPARED
// answer to re-prepare — goes the general way (relayRun on a goroutine).

// asyncRelay is one request on the fast path: the relay.Expirer its
// answer (or its timeout) is delivered to.
type asyncRelay struct {
	c     *conn
	p     *relayPlan // &plan
	plan  relayPlan
	req   *request
	route relay.Route
	creds *relay.Credentials
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
	route, ok := p.rl.Pick(c.version, creds, p.group)
	if !ok {
		return false
	}
	if err := c.acquire(); err != nil {
		c.send(c.errorFrame(req.stream, err))
		return true
	}
	c.inflight.Add(1)
	x := c.srv.newAsync()
	x.c, x.plan, x.req, x.route, x.creds, x.start = c, *p, req, route, creds, c.srv.coord.Now()
	x.p = &x.plan
	// From here x belongs to the connection (answer, timeout or close),
	// which recycles it: it must not be touched once submitted.
	ok, err := route.Submit(req.flags, req.op, req.body, x, timeout)
	if !ok {
		x.recycle()
		c.release()
		c.inflight.Done()
		return false
	}
	c.cork(route.Conn())
	if err != nil {
		x.Deliver(relay.Response{}, err)
	}
	return true
}

// newAsync returns a recycled asyncRelay, or a new one.
func (s *Server) newAsync() *asyncRelay {
	if x, ok := s.asyncs.Get().(*asyncRelay); ok {
		return x
	}
	return &asyncRelay{}
}

// recycle clears x and hands it back to its Server's pool. Only the one
// that answered the request calls it (finish, expired), once nothing else
// can reach x: the backend connection has taken it off its stream (the
// reader before Deliver, the sweep before expired, close before Deliver)
// and the re-prepare goroutine, if any, is the one finishing.
func (x *asyncRelay) recycle() {
	srv := x.c.srv
	x.c, x.p, x.plan, x.req, x.route, x.creds, x.start = nil, nil, relayPlan{}, nil, relay.Route{}, nil, time.Time{}
	x.done.Store(false)
	srv.asyncs.Put(x)
}

// Deliver runs on the backend connection's reader with Cassandra's
// answer (or the error that closed the connection): relay.Waiter.
func (x *asyncRelay) Deliver(resp relay.Response, err error) {
	if err == nil && (x.req.op == wire.OpExecute || x.req.op == wire.OpBatch) {
		if rp, ok := x.p.rl.Unprepared(resp); ok {
			resp.Hold = nil
			resp.Body = bytes.Clone(resp.Body) // the reader's buffer (relay.Waiter)
			go x.reprepare(rp, resp)           // needs more round trips: off this reader
			return
		}
	}
	if err != nil {
		err = x.route.Lost(err)
	}
	resp.Node = x.route.Node()
	x.finish(resp, err)
}

// reprepare prepares the statement again on the node that forgot it and
// relays the request once more, within what is left of its timeout.
func (x *asyncRelay) reprepare(rp *relay.Prepared, unprepared relay.Response) {
	ctx, cancel := context.WithTimeout(x.c.reqCtx, x.c.srv.timeoutFor(x.req)-time.Since(x.start))
	defer cancel()
	resp, err := x.route.Retry(ctx, rp, x.req.flags, x.req.op, x.req.body, unprepared)
	if err != nil && ctx.Err() != nil {
		if x.expire() { // off its stream already: the sweep cannot answer
			x.expired()
		}
		return
	}
	x.finish(resp, err)
}

// finish answers the client, unless the timeout did.
func (x *asyncRelay) finish(resp relay.Response, err error) {
	if !x.done.CompareAndSwap(false, true) {
		return
	}
	c := x.c
	frame := c.relayAnswer(c.reqCtx, x.start, x.p, x.creds, x.req, resp, err)
	x.recycle()
	if resp.Hold != nil {
		heldOn(resp.Hold).add(c, frame)
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
func (c *conn) cork(bc *relay.Conn) {
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
		bc.Flush()
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
		return wire.FrameBuffered(c.br)
	}
	if c.seg.Unread() > 0 {
		return true
	}
	whole, self := c.seg.NextBuffered()
	return whole && self
}
