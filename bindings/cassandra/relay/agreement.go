package relay

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"sort"
	"time"

	"github.com/dohyo/dohyo/cql/wire"
)

// Schema agreement after a relayed schema change. A driver connected to
// Cassandra waits, after a DDL statement's SCHEMA_CHANGE answer, until
// every node reports the same schema version (system.local and
// system.peers), so that its next statement may go to any node. Through
// dohyo the driver asks dohyo's own system tables, which cannot see the
// cluster's versions: the relay waits instead, before the client is
// answered, asking the node that made the change (it has the new version
// from the start; another node asked first may report the old version for
// itself and, not having heard of the change yet, for every peer: an
// agreement on the old schema). Its connection that carried the change is
// used, or another of its connections; the control connection when none is
// left. Without it a CREATE TABLE answered by one
// node and a statement on the new table sent to another (a second dohyo
// instance, or the next node of the pool) fails with "table ... does not
// exist" while the schema travels.
//
// A peer the relay has marked down is not waited for (it learns the
// schema when it comes back, as drivers assume); the wait is bounded by
// Config.SchemaAgreement and the request's own deadline, and a change is
// answered (it was applied) whether or not the nodes agreed in time.

// agreementPoll is the pause between two reads of the schema versions.
const agreementPoll = 200 * time.Millisecond

// isSchemaChange tells whether resp is a RESULT of kind SCHEMA_CHANGE.
func isSchemaChange(resp Response) bool {
	return resp.Header.Op == wire.OpResult && len(resp.Body) >= 4 &&
		int32(binary.BigEndian.Uint32(resp.Body)) == wire.ResultSchemaChange
}

// awaitSchemaAgreement waits until node (which made a schema change)
// reports one schema version for itself and its peers that are not down,
// at most Config.SchemaAgreement and while ctx lasts; via, when live, is
// node's connection to ask on.
func (rl *Relay) awaitSchemaAgreement(ctx context.Context, node string, via *Conn) {
	if rl.cfg.SchemaAgreement <= 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, rl.cfg.SchemaAgreement)
	defer cancel()
	var versions []string
	var err error
	t := time.NewTimer(agreementPoll)
	defer t.Stop()
	for {
		bc := rl.agreementConn(node, via)
		if bc == nil {
			return // no connection left to ask
		}
		versions, err = rl.schemaVersions(ctx, bc)
		if err != nil && ctx.Err() == nil {
			// The node cannot tell (not the system tables of a Cassandra
			// node): give up at once, as the Cassandra binding does.
			rl.disagreed.Add(1)
			rl.log.Warn("relay: cannot read the schema versions after a schema change; answering the client without waiting",
				"node", bc.addr, "err", err)
			return
		}
		if err == nil && len(versions) <= 1 {
			rl.agreed.Add(1)
			return
		}
		t.Reset(agreementPoll)
		select {
		case <-ctx.Done():
			rl.disagreed.Add(1)
			rl.log.Warn("relay: Cassandra nodes did not agree on the schema after a schema change; answering the client anyway",
				"versions", versions, "err", err, "bound", rl.cfg.SchemaAgreement)
			return
		case <-t.C:
		}
	}
}

// agreementConn is a live connection to ask about node's schema view: via,
// another connection to node, or the control connection.
func (rl *Relay) agreementConn(node string, via *Conn) *Conn {
	if via != nil && !via.isClosed() {
		return via
	}
	for _, bc := range rl.allConns() {
		if bc.addr == node && !bc.isClosed() {
			return bc
		}
	}
	if bc := rl.control.Load(); bc != nil && !bc.isClosed() {
		return bc
	}
	return nil
}

// schemaVersions returns the distinct schema versions bc's node
// reports for itself and for its peers that the relay has not marked down.
func (rl *Relay) schemaVersions(ctx context.Context, bc *Conn) ([]string, error) {
	set := map[string]bool{}
	local, err := rl.controlQuery(ctx, bc, "SELECT schema_version FROM system.local")
	if err != nil {
		return nil, err
	}
	for _, row := range local {
		if len(row) == 1 && len(row[0]) > 0 {
			set[hex.EncodeToString(row[0])] = true
		}
	}
	peers, err := rl.peers(ctx, bc, "schema_version")
	if err != nil {
		return nil, err
	}
	for _, p := range peers {
		if len(p.value) == 0 || rl.knownDown(p.node) {
			continue
		}
		set[hex.EncodeToString(p.value)] = true
	}
	out := make([]string, 0, len(set))
	for v := range set {
		out = append(out, v)
	}
	sort.Strings(out)
	return out, nil
}

// knownDown tells whether the relay has marked node down (without
// creating its health entry).
func (rl *Relay) knownDown(node string) bool {
	h, ok := rl.healthMap.Load(node)
	return ok && h.(*nodeHealth).get() == nodeDown
}
