package cqlserver

import (
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
// request). The relay (a bindings.FrameRelayer) re-prepares on UNPREPARED
// itself. When it cannot take the request without waiting (no live
// connection yet, no free stream id), or when no request timeout bounds
// the wait, the request goes the general way (relayRun on a goroutine).

// asyncRelay is one request on the fast path: the
// bindings.RelayReceiver its answer (or its timeout) is delivered to.
type asyncRelay struct {
	c     *conn
	p     *relayPlan // &plan
	plan  relayPlan
	req   *request
	rreq  bindings.RelayRequest // what the relay keeps until it answers
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
	if err := c.acquire(); err != nil {
		c.send(c.errorFrame(req.stream, err))
		return true
	}
	c.inflight.Add(1)
	x := c.srv.newAsync()
	x.c, x.plan, x.req, x.start = c, *p, req, c.srv.coord.Now()
	x.p = &x.plan
	c.relayRequest(&x.rreq, x.p, req)
	x.rreq.Timeout, x.rreq.Cork = timeout, &c.corked
	// From here x belongs to the relay (answer, timeout or close), and
	// is recycled by whichever answers: it must not be touched once
	// handed over.
	if !p.Relayer.RelayFrame(c.reqCtx, &x.rreq, x) {
		x.recycle()
		c.release()
		c.inflight.Done()
		return false
	}
	return true
}

// relayRequest fills r with what the relay needs of req.
func (c *conn) relayRequest(r *bindings.RelayRequest, p *relayPlan, req *request) {
	*r = bindings.RelayRequest{Version: c.version, Flags: req.flags, Op: req.op, Body: req.body, Creds: c.creds,
		Group: p.Group, Idempotent: p.Idempotent}
	if req.op == wire.OpPrepare {
		r.Idempotent = true // preparing twice prepares once
		// Re-prepared on a connection using the keyspace it was
		// prepared under (a v5 PREPARE may carry its own), so that
		// Cassandra computes the same id.
		r.Query, r.Keyspace, r.PrepareGroup = req.query, p.Keyspace, p.Group
		if r.PrepareGroup == "" {
			r.PrepareGroup = req.keyspace
		}
	}
}

// newAsync returns a recycled asyncRelay, or a new one.
func (s *Server) newAsync() *asyncRelay {
	if x, ok := s.asyncs.Get().(*asyncRelay); ok {
		return x
	}
	return &asyncRelay{}
}

// recycle clears x and hands it back to its Server's pool. Only the one
// that answered the request calls it (Relayed, Expired), once nothing
// else can reach x: the relay has let go of it.
func (x *asyncRelay) recycle() {
	srv := x.c.srv
	x.c, x.p, x.plan, x.req, x.rreq, x.start = nil, nil, relayPlan{}, nil, bindings.RelayRequest{}, time.Time{}
	x.done.Store(false)
	srv.asyncs.Put(x)
}

// Relayed answers the client, unless the timeout did
// (bindings.RelayReceiver); on the backend connection's reader, or on the
// relay's re-prepare goroutine.
func (x *asyncRelay) Relayed(ans bindings.RelayAnswer, err error) {
	if !x.done.CompareAndSwap(false, true) {
		return
	}
	c := x.c
	frame := c.relayAnswer(c.reqCtx, x.start, x.p, x.req, ans, err)
	x.recycle()
	if ans.Hold != nil {
		heldOn(ans.Hold).add(c, frame)
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

// Expire claims the request for its timeout (bindings.RelayReceiver):
// false when it was answered already.
func (x *asyncRelay) Expire() bool { return x.done.CompareAndSwap(false, true) }

// Expired answers the request timeout; the backend connection's sweep has
// taken the request off its stream (Cassandra's answer will be dropped).
func (x *asyncRelay) Expired() {
	c, req := x.c, x.req
	c.srv.timedOut.Add(1)
	err := c.timeoutError(req)
	c.observeRelayed(x.start, x.p, req, relayedError(err))
	x.recycle()
	c.send(c.errorFrame(req.stream, err))
	c.release()
	c.inflight.Done()
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
