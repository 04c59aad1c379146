package relay

import (
	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql/wire"
)

// The prepared registry: PREPARE requests the relay has seen answered,
// by statement id, so that a node that answers UNPREPARED (restarted, or
// its cache evicted the statement) gets the statement prepared again
// without the client noticing, and so that the server can route an
// EXECUTE and name its statement for the Tap.

// Prepared is a remembered PREPARE: enough to prepare it again, and the
// text the Tap records for its executions.
type Prepared struct {
	// Query is the statement's text.
	Query string
	// Keyspace is the session keyspace at PREPARE time.
	Keyspace string

	group string // the keyspace group it was prepared in
	creds *Credentials
	// shape is what the client was told about the statement (the
	// PREPARED result after its id: bind and result metadata, and in v5
	// the result metadata id), at protocol version; see reprepare.
	version byte
	shape   []byte
	// pk are the bind indexes of the partition key columns (token.go).
	pk []int
}

// Prepared returns the statement prepared with id through this relay.
func (rl *Relay) Prepared(id []byte) (*Prepared, bool) {
	return rl.prepared.Get(string(id))
}

// Remember records the statement of a PREPARE request (query, under
// session keyspace) when resp is its PREPARED answer; req is the request
// as relayed, except that Group is the keyspace group it is to be prepared
// again in: a connection using the keyspace it was prepared under (a v5
// PREPARE may carry its own), so that Cassandra computes the same id.
func (rl *Relay) Remember(req Request, query, keyspace string, resp Response) {
	id, shape := preparedResult(resp)
	if id == nil {
		return
	}
	rl.prepared.Put(string(id), &Prepared{
		Query: query, Keyspace: keyspace, group: req.Group, creds: req.Creds,
		version: req.Version, shape: shape, pk: pkIndexes(shape, req.Version),
	})
}

// Unprepared returns the remembered statement resp (an answer to EXECUTE
// or BATCH) reports unknown to the node, if resp is UNPREPARED and the
// relay has seen the statement prepared.
func (rl *Relay) Unprepared(resp Response) (*Prepared, bool) {
	if resp.Header.Op != wire.OpError {
		return nil, false
	}
	e := resp.Err()
	if e.Code != bindings.CodeUnprepared {
		return nil, false
	}
	return rl.prepared.Get(string(e.UnpreparedID))
}

// Answered is called with Cassandra's answer to a relayed request before
// its client gets it: when the answer reports a schema change, the
// catalog is refreshed (Config.OnSchemaChange) before the client goes on.
func (rl *Relay) Answered(resp Response) {
	if rl.cfg.OnSchemaChange == nil {
		return
	}
	ch := schemaChangeOf(resp, false)
	if ch == nil {
		return
	}
	// The event for other clients comes from the control connection;
	// without one, this is the only news of the change.
	if c := rl.control.Load(); c != nil && !c.isClosed() {
		ch = nil
	}
	rl.cfg.OnSchemaChange(eventWorthy(ch))
}
