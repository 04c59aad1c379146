package relay

import (
	"bytes"
	"context"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql/wire"
)

// The relay as the raw-frame last hop (bindings.FrameRelayer). A request
// with a timeout takes the fast path: its frame is queued on a live
// connection (pickRoute, fastRoute.submit) and the connection's reader hands
// Cassandra's answer to the server's receiver; the connection's deadline
// sweep expires it (deadline.go). No goroutine and no channel per request:
// the waiter standing between the connection and the receiver is pooled.
// What Cassandra needs besides (re-preparing on UNPREPARED, remembering
// PREPARE answers, counting lost connections, refreshing the catalog
// after a schema change) is done here before the receiver is called.

// RelayFrame implements bindings.FrameRelayer.
func (rl *Relay) RelayFrame(ctx context.Context, req *bindings.RelayRequest, rcv bindings.RelayReceiver) bool {
	creds := rl.credsFor(req.Creds)
	if req.Timeout <= 0 {
		resp, err := rl.Do(ctx, Request{Version: req.Version, Flags: req.Flags, Op: req.Op, Body: req.Body, Creds: creds,
			Group: req.Group, Idempotent: req.Idempotent})
		if err == nil && isSchemaChange(resp) {
			rl.awaitSchemaAgreement(ctx, resp.Node, nil)
		}
		rl.answered(req, creds, resp, err)
		rcv.Relayed(answerOf(resp), err)
		return true
	}
	route, ok := rl.pickRoute(req, creds)
	if !ok {
		return false
	}
	cork := req.Cork
	w := rl.newWaiter()
	w.rl, w.route, w.ctx, w.rcv, w.req, w.creds, w.start = rl, route, ctx, rcv, req, creds, time.Now()
	// From here w, rcv and req belong to the connection (answer, timeout
	// or close): once submitted, they may be answered and reused before
	// submit returns.
	ok, err := route.submit(req.Flags, req.Op, req.Body, w, req.Timeout)
	if !ok || err != nil { // nothing was sent (the connection closed meanwhile)
		w.recycle()
		return false
	}
	if cork != nil {
		cork.Add(route.conn())
	} else {
		route.conn().Flush()
	}
	return true
}

// credsFor are the credentials a client's requests are relayed with: its
// own when Cassandra requires authentication, none otherwise (one pool
// for every client).
func (rl *Relay) credsFor(c *Credentials) *Credentials {
	if !rl.RequiresAuth() {
		return nil
	}
	return c
}

// answered keeps what the relay learns from an answer before its client
// gets it: a PREPARE's statement, and a schema change (Answered).
func (rl *Relay) answered(req *bindings.RelayRequest, creds *Credentials, resp Response, err error) {
	if err != nil {
		return
	}
	if req.Op == wire.OpPrepare {
		rl.Remember(Request{Version: req.Version, Creds: creds, Group: req.PrepareGroup}, req.Query, req.Keyspace, resp)
	}
	rl.Answered(resp)
}

func answerOf(resp Response) bindings.RelayAnswer {
	return bindings.RelayAnswer{Flags: resp.Header.Flags, Op: resp.Header.Op, Body: resp.Body, Node: resp.Node, Hold: resp.Hold}
}

// frameWaiter is one fast-path request between its connection and the
// server's receiver (an expirer).
type frameWaiter struct {
	rl    *Relay
	route fastRoute
	ctx   context.Context
	rcv   bindings.RelayReceiver
	req   *bindings.RelayRequest
	creds *Credentials
	start time.Time
}

func (rl *Relay) newWaiter() *frameWaiter {
	if w, ok := rl.waiters.Get().(*frameWaiter); ok {
		return w
	}
	return &frameWaiter{}
}

// recycle clears w and hands it back to its relay's pool; nothing may
// reach w any more (see asyncRelay in proxy/cqlserver).
func (w *frameWaiter) recycle() {
	rl := w.rl
	*w = frameWaiter{}
	rl.waiters.Put(w)
}

// Deliver runs on the connection's reader with Cassandra's answer (or the
// error that closed the connection).
func (w *frameWaiter) Deliver(resp Response, err error) {
	if err == nil && (w.req.Op == wire.OpExecute || w.req.Op == wire.OpBatch) {
		if rp, ok := w.rl.Unprepared(resp); ok {
			resp.Hold = nil
			resp.Body = bytes.Clone(resp.Body) // the reader's buffer (waiter)
			go w.reprepare(rp, resp)           // needs more round trips: off this reader
			return
		}
	}
	if err != nil {
		err = w.route.lost(err)
		if w.req.Idempotent && time.Since(w.start) < w.req.Timeout {
			go w.resend() // waits for another node: off this goroutine
			return
		}
	} else if refusedUnrun(resp, w.req.Idempotent) && time.Since(w.start) < w.req.Timeout {
		go w.resend() // refused before it ran: another node may take it
		return
	} else if isSchemaChange(resp) && w.rl.cfg.SchemaAgreement > 0 {
		resp.Hold = nil
		resp.Body = bytes.Clone(resp.Body) // the reader's buffer (waiter)
		go w.afterSchemaChange(resp)       // polls the node: off this reader
		return
	}
	resp.Node = w.route.Node()
	w.finish(resp, err)
}

// resend sends an idempotent request whose connection was lost (or one a
// node refused before running it) to the next node that takes it (a lost
// node is down already, so it comes last), within what is left of its
// timeout (issue #46: clients of dohyo
// see a node's death no more than clients of a driver do).
func (w *frameWaiter) resend() {
	ctx, cancel := context.WithTimeout(w.ctx, w.req.Timeout-time.Since(w.start))
	defer cancel()
	w.rl.resends.Add(1)
	req := Request{Version: w.req.Version, Flags: w.req.Flags, Op: w.req.Op, Body: w.req.Body, Creds: w.creds,
		Group: w.req.Group, Idempotent: w.req.Idempotent}
	resp, err := w.rl.do(ctx, &req)
	if err != nil && ctx.Err() != nil {
		rcv := w.rcv
		w.recycle()
		if rcv.Expire() { // off its stream already: the sweep cannot answer
			rcv.Expired()
		}
		return
	}
	w.finish(resp, err)
}

// reprepare prepares the statement again on the node that forgot it and
// relays the request once more, within what is left of its timeout.
func (w *frameWaiter) reprepare(rp *Prepared, unprepared Response) {
	ctx, cancel := context.WithTimeout(w.ctx, w.req.Timeout-time.Since(w.start))
	defer cancel()
	resp, err := w.route.retry(ctx, rp, w.req.Flags, w.req.Op, w.req.Body, unprepared)
	if err != nil && ctx.Err() != nil {
		rcv := w.rcv
		w.recycle()
		if rcv.Expire() { // off its stream already: the sweep cannot answer
			rcv.Expired()
		}
		return
	}
	w.finish(resp, err)
}

// afterSchemaChange answers a schema change once the nodes agree on the
// schema (agreement.go), within what is left of the request's timeout: the
// change was applied, so the client gets its answer either way.
func (w *frameWaiter) afterSchemaChange(resp Response) {
	ctx, cancel := context.WithTimeout(w.ctx, w.req.Timeout-time.Since(w.start))
	defer cancel()
	w.rl.awaitSchemaAgreement(ctx, w.route.Node(), w.route.conn())
	resp.Node = w.route.Node()
	w.finish(resp, nil)
}

// finish keeps what the answer teaches and hands it to the receiver.
func (w *frameWaiter) finish(resp Response, err error) {
	rl, req, creds, rcv := w.rl, w.req, w.creds, w.rcv
	w.recycle()
	rl.answered(req, creds, resp, err)
	rcv.Relayed(answerOf(resp), err)
}

// Expire implements expirer.
func (w *frameWaiter) Expire() bool { return w.rcv.Expire() }

// Expired implements expirer.
func (w *frameWaiter) Expired() {
	rcv := w.rcv
	w.recycle()
	rcv.Expired()
}
