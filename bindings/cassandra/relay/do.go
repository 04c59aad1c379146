package relay

import (
	"bytes"
	"context"
	"errors"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql/wire"
)

// Request is one relayed request: a client's frame body with what the
// relay needs to send it on a fitting connection.
type Request struct {
	// Version is the protocol version the client speaks (the frame is
	// relayed at it).
	Version byte
	// Flags, Op and Body are the client's frame's header flags (the
	// compression flag is dropped: bodies are relayed uncompressed), opcode
	// and body.
	Flags, Op byte
	Body      []byte
	// Creds are the client's credentials (nil when Cassandra requires
	// none: one pool serves every client).
	Creds *Credentials
	// Group is the keyspace the connection must be using (USE) for the
	// statement's unqualified names; "" for none.
	Group string
	// Idempotent: the request may be sent to another node when its
	// connection is lost (bindings.RelayRequest.Idempotent).
	Idempotent bool
}

// Do relays one request and waits for its answer: to a connection of the
// next node that can be reached (those up first, see pickNodes),
// re-preparing transparently when the node answers UNPREPARED for a
// statement the relay has seen prepared, and sending an idempotent request
// to the next node when its connection is lost before the answer, and a
// request a node refused before running it (refusedUnrun) to the next. The
// answer's body is the caller's. An error stands for an answer that never
// came (ctx ended, no node could be reached, or the connection was lost:
// bindings.RelayLostError).
func (rl *Relay) Do(ctx context.Context, req Request) (Response, error) {
	rl.requests.Add(1)
	return rl.do(ctx, &req)
}

// do is Do without counting the request (re-sends are counted apart).
func (rl *Relay) do(ctx context.Context, req *Request) (Response, error) {
	var lastErr error
	var refused *Response // the last refusal, answered when no node takes the request
	for _, node := range rl.pickNodes(rl.replicasFor(req.Op, req.Version, req.Body)) {
		key := poolKey{node: node, version: req.Version, keyspace: req.Group, creds: credsKey(req.Creds)}
		bc, err := rl.conn(ctx, key, req.Creds)
		if err != nil {
			lastErr = err
			if ctx.Err() != nil {
				return Response{}, ctx.Err()
			}
			continue // nothing was sent: the next node may take it
		}
		rl.health(node).requests.Add(1)
		resp, err := rl.send(ctx, bc, key, req)
		resp.Node = node
		var lost *bindings.RelayLostError
		if err != nil && req.Idempotent && ctx.Err() == nil && errors.As(err, &lost) {
			rl.resends.Add(1)
			lastErr = err
			continue // safe to send again: the next node may answer
		}
		if err == nil && ctx.Err() == nil && refusedUnrun(resp, req.Idempotent) {
			rl.resends.Add(1)
			refused = &resp
			continue // refused before it ran: the next node may take it
		}
		return resp, err
	}
	if refused != nil {
		return *refused, nil
	}
	if lastErr == nil {
		lastErr = bindings.Errorf(bindings.CodeUnavailable, "dohyo relay: no Cassandra node to send the request to")
	}
	return Response{}, lastErr
}

// send runs the round trip on bc, re-preparing on UNPREPARED (a BATCH may
// need several statements prepared again).
func (rl *Relay) send(ctx context.Context, bc *Conn, key poolKey, req *Request) (Response, error) {
	for attempt := 0; ; attempt++ {
		resp, err := bc.roundTrip(ctx, req.Flags, req.Op, req.Body)
		if err != nil {
			if ctx.Err() != nil {
				return Response{}, ctx.Err()
			}
			return Response{}, rl.lost(key.node, err)
		}
		if resp.Header.Op != wire.OpError || (req.Op != wire.OpExecute && req.Op != wire.OpBatch) || attempt > 8 {
			return resp, nil
		}
		rp, ok := rl.Unprepared(resp)
		if !ok {
			return resp, nil // not UNPREPARED, or the driver prepares it again itself
		}
		changed, err := rl.reprepare(ctx, key, rp)
		if err != nil {
			rl.log.Debug("relay: re-prepare failed", "node", key.node, "err", err)
			return resp, nil
		}
		if changed && req.Op == wire.OpExecute {
			return resp, nil // the client must learn the new shape: it prepares again
		}
	}
}

// reprepare sends a remembered PREPARE to key's node, on a connection of
// the keyspace group it was prepared in. changed reports that the node
// now describes the statement differently from what the client was told
// (a table altered since: other bound variables or result columns): the
// EXECUTE must then not be re-run, for a client that skips result
// metadata would read the new rows with the old columns; the client gets
// Cassandra's UNPREPARED and prepares again, learning the new shape.
func (rl *Relay) reprepare(ctx context.Context, key poolKey, rp *Prepared) (changed bool, err error) {
	rl.reprepares.Add(1)
	pk := poolKey{node: key.node, version: key.version, keyspace: rp.group, creds: credsKey(rp.creds)}
	bc, err := rl.conn(ctx, pk, rp.creds)
	if err != nil {
		return false, err
	}
	body := wire.AppendLongString(nil, rp.Query)
	if key.version >= 5 {
		body = wire.AppendInt(body, 0) // no flags: the group's USE gives the keyspace
	}
	resp, err := bc.roundTrip(ctx, 0, wire.OpPrepare, body)
	if err != nil {
		return false, err
	}
	if resp.Header.Op == wire.OpError {
		return false, resp.Err()
	}
	_, shape := preparedResult(resp)
	return rp.shape != nil && rp.version == key.version && !bytes.Equal(shape, rp.shape), nil
}

// lost counts a request whose connection to node failed after it was
// sent and returns the error that stands for its answer.
func (rl *Relay) lost(node string, err error) error {
	rl.failures.Add(1)
	rl.health(node).lost.Add(1)
	return &bindings.RelayLostError{Node: node, Err: err}
}
