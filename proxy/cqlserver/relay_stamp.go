package cqlserver

import (
	"encoding/binary"

	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/cql/wire"
	"github.com/dohyo/dohyo/proxy"
)

// A relayed write of a mirrored keyspace that carries no client timestamp
// gets the coordinator's before it is relayed, as on the executed path
// (proxy.Coordinator.Stamps): the relay sets the timestamp flag and field
// in the frame, so Cassandra and the mirrors (which get the same
// timestamp through the Tap) resolve last-write-wins alike.

// stampPos is where a request body's query flags and timestamp are, as
// the number of body bytes from each to the end (0: unknown).
type stampPos struct{ flags, ts int }

// stampRelayed gives req the coordinator's timestamp when the coordinator
// stamps its statement (every child, for a BATCH) and the client sent
// none; protocol v3 and later only (v1 and v2 frames have no timestamp).
func (c *conn) stampRelayed(p *relayPlan, req *request) {
	coord := c.srv.coord
	if c.version < 3 || req.stamp.flags == 0 || !coord.Stamping() {
		return
	}
	stamps := coord.StampsQuery
	switch req.op {
	case wire.OpQuery:
		if req.params.hasTimestamp || !stamps(req.query, p.Keyspace) {
			return
		}
	case wire.OpExecute:
		if req.params.hasTimestamp || p.Prepared.Query == "" || !stamps(p.Prepared.Query, p.Prepared.Keyspace) {
			return
		}
	case wire.OpBatch:
		b := req.batch
		if b.HasTimestamp || b.Type == cql.BatchCounter || len(b.Entries) == 0 {
			return
		}
		for _, e := range b.Entries {
			q, ks := e.Query, p.Keyspace
			if e.PreparedID != nil {
				rp, ok := proxy.PreparedBy(p.Relayer, e.PreparedID)
				if !ok {
					return
				}
				q, ks = rp.Query, rp.Keyspace
			}
			if !stamps(q, ks) {
				return
			}
		}
	default:
		return
	}
	ts := coord.Now().UnixMicro()
	req.body = withTimestamp(req.body, c.version, req.stamp, ts)
	if req.op == wire.OpBatch {
		req.batch.Timestamp, req.batch.HasTimestamp = ts, true
	} else {
		req.params.timestamp, req.params.hasTimestamp = ts, true
	}
}

// withTimestamp returns a copy of body with the timestamp flag set and
// the timestamp inserted where pos says (<query_parameters> and a BATCH's
// tail put it after the serial consistency, before a v5 keyspace).
func withTimestamp(body []byte, version byte, pos stampPos, ts int64) []byte {
	flagsAt, tsAt := len(body)-pos.flags, len(body)-pos.ts
	out := make([]byte, 0, len(body)+8)
	out = append(out, body[:tsAt]...)
	out = binary.BigEndian.AppendUint64(out, uint64(ts))
	out = append(out, body[tsAt:]...)
	low := flagsAt // the flags' low byte: a [byte] before v5, an [int] since
	if version >= 5 {
		low += 3
	}
	out[low] |= byte(wire.QueryFlagTimestamp)
	return out
}
