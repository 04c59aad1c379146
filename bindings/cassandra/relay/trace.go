package relay

import (
	"context"
	"encoding/binary"
	"net"
	"time"

	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/telemetry"
)

// TraceEvents reads Cassandra's events of its tracing session cass (a
// relayed request with the TRACING flag), labelled as events of dohyo's
// session id, on the control connection. Cassandra writes a session's
// events and, last, its duration asynchronously and in order, so the
// session row is read first: when it has a duration, the events read
// after it are all there are (complete), as drivers assume when they
// fetch a trace.
func (rl *Relay) TraceEvents(ctx context.Context, cass, id cql.UUID) ([]telemetry.TraceEvent, bool, error) {
	bc := rl.control.Load()
	if bc == nil || bc.isClosed() {
		return nil, false, errBackendClosed
	}
	ctx, cancel := context.WithTimeout(ctx, rl.cfg.ConnectTimeout)
	defer cancel()
	sess, err := rl.controlQuery(ctx, bc, "SELECT duration FROM system_traces.sessions WHERE session_id = "+cass.String())
	if err != nil {
		return nil, false, err
	}
	complete := len(sess) == 1 && len(sess[0]) == 1 && len(sess[0][0]) == 4
	rows, err := rl.controlQuery(ctx, bc, "SELECT event_id, activity, source, source_elapsed, source_port, thread "+
		"FROM system_traces.events WHERE session_id = "+cass.String())
	if err != nil {
		return nil, false, err
	}
	out := make([]telemetry.TraceEvent, 0, len(rows))
	for _, r := range rows {
		if len(r) != 6 || len(r[0]) != 16 {
			continue
		}
		e := telemetry.TraceEvent{Session: id, Activity: string(r[1]), Source: net.IP(append([]byte(nil), r[2]...)),
			Thread: string(r[5])}
		copy(e.ID[:], r[0])
		if len(r[3]) == 4 {
			e.Elapsed = time.Duration(int32(binary.BigEndian.Uint32(r[3]))) * time.Microsecond
		}
		if len(r[4]) == 4 {
			e.SourcePort = int(int32(binary.BigEndian.Uint32(r[4])))
		}
		out = append(out, e)
	}
	return out, complete, nil
}
