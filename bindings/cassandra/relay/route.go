package relay

import (
	"context"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql/wire"
)

// The fast path. RelayFrame (frames.go), when it need not wait for the
// answer (Relay.Do does), picks a live connection for the request
// (pickRoute), submits its frame there with a waiter (fastRoute.submit)
// and returns: the backend connection's reader hands Cassandra's answer to
// the waiter, and the connection's deadline sweep calls it on the request
// timeout (no timer per request; deadline.go). No goroutine and no channel
// per request. No live connection yet or no free stream id is left to
// RelayFrame's caller (which relays with Relay.Do instead); an UNPREPARED
// answer is re-prepared by fastRoute.retry on a goroutine of its own.

// fastRoute is where a fast-path request goes: a live connection of a node's
// pool. It is a value, so that the caller keeps it in its per-request
// state without allocating.
type fastRoute struct {
	rl    *Relay
	bc    *Conn
	key   poolKey
	creds *Credentials
}

// pickRoute returns a live connection for req (its partition's replicas
// first, else the next node's pool) at its protocol version and keyspace
// group with creds, or ok=false (without dialing) when that pool has none.
func (rl *Relay) pickRoute(req *bindings.RelayRequest, creds *Credentials) (r fastRoute, ok bool) {
	key, bc := rl.liveConn(req.Version, creds, req.Group, rl.replicasFor(req.Op, req.Version, req.Body))
	if bc == nil {
		return fastRoute{}, false
	}
	return fastRoute{rl: rl, bc: bc, key: key, creds: creds}, true
}

// submit queues one request's frame on the route's connection (written by
// Conn.Flush) with a timeout: w gets the answer, or, when timeout passes
// first, the connection's sweep takes it off its stream and calls
// w.Expired. ok=false means nothing was sent (no free stream id); an
// error means the connection is closed (w is not called: the caller
// answers). Once submitted, w may run before submit returns.
func (r fastRoute) submit(flags, op byte, body []byte, w expirer, timeout time.Duration) (ok bool, err error) {
	_, ok, err = r.bc.submitTimeout(flags, op, body, w, timeout)
	if ok && err == nil {
		r.rl.requests.Add(1)
		r.rl.health(r.key.node).requests.Add(1)
	}
	return ok, err
}

// conn is the route's connection.
func (r fastRoute) conn() *Conn { return r.bc }

// Node is the route's node (host:port).
func (r fastRoute) Node() string { return r.key.node }

// lost counts a request whose connection failed (the error a waiter got)
// and returns the error that stands for its answer.
func (r fastRoute) lost(err error) error { return r.rl.lost(r.key.node, err) }

// retry prepares rp again on the route's node (the node answered
// UNPREPARED for it) and relays the request once more on the route's
// connection, within ctx. When the statement changed shape, or the
// re-prepare failed, the client gets the UNPREPARED answer (unprepared,
// whose body the caller owns) and prepares again itself. An error other
// than ctx's is a lost connection (counted, see lost).
func (r fastRoute) retry(ctx context.Context, rp *Prepared, flags, op byte, body []byte, unprepared Response) (Response, error) {
	resp := unprepared
	changed, err := r.rl.reprepare(ctx, r.key, rp)
	if err == nil && (!changed || op != wire.OpExecute) {
		req := Request{Version: r.key.version, Flags: flags, Op: op, Body: body, Creds: r.creds, Group: r.key.keyspace}
		resp, err = r.rl.send(ctx, r.bc, r.key, &req)
	} else if err != nil && ctx.Err() == nil {
		r.rl.log.Debug("relay: re-prepare failed", "node", r.key.node, "err", err)
		err = nil // the driver prepares it again itself
	}
	resp.Node = r.key.node
	return resp, err
}
