package cqlserver

import (
	"context"
	"sync"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/telemetry"
)

// A relayed request with the TRACING flag is traced twice: by dohyo (its
// session, whose id the client gets) and by Cassandra, to which the flag
// is relayed. relayTraces links the two sessions, so that
// system_traces.events lists dohyo's events followed by Cassandra's own
// (fetched from Cassandra's system_traces, under dohyo's session id).

// maxRelayTraces bounds the linked sessions (oldest forgotten first).
const maxRelayTraces = 1000

// traceSettle bounds how long after a relayed request Cassandra's events
// are re-read while Cassandra has not finished its session (it writes
// events and the session's duration asynchronously).
const traceSettle = 5 * time.Second

type relayTraces struct {
	mu    sync.Mutex
	links map[cql.UUID]*traceLink
	order []cql.UUID
}

type traceLink struct {
	rl      bindings.TraceEventSource
	cass    cql.UUID
	at      time.Time
	events  []telemetry.TraceEvent
	settled bool // complete, or older than traceSettle: not read again
}

func newRelayTraces() *relayTraces { return &relayTraces{links: map[cql.UUID]*traceLink{}} }

// link records that the traced request in ctx ran as Cassandra's tracing
// session cassID.
func (rt *relayTraces) link(ctx context.Context, rl bindings.TraceEventSource, cassID []byte) {
	req := telemetry.FromContext(ctx)
	id, ok := req.SessionID()
	if !ok {
		return
	}
	var cass cql.UUID
	copy(cass[:], cassID)
	req.Event("relay", "Cassandra tracing session "+cass.String())
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if len(rt.order) >= maxRelayTraces {
		delete(rt.links, rt.order[0])
		rt.order = rt.order[1:]
	}
	rt.links[id] = &traceLink{rl: rl, cass: cass, at: time.Now()}
	rt.order = append(rt.order, id)
}

// TraceEvents returns Cassandra's events of the linked sessions, as events of
// dohyo's sessions. Sessions younger than traceSettle are read again.
func (rt *relayTraces) TraceEvents(ctx context.Context) []telemetry.TraceEvent {
	rt.mu.Lock()
	type todo struct {
		id cql.UUID
		l  *traceLink
	}
	var out []telemetry.TraceEvent
	var fetch []todo
	for _, id := range rt.order {
		l := rt.links[id]
		if l.settled {
			out = append(out, l.events...)
		} else {
			fetch = append(fetch, todo{id, l})
		}
	}
	rt.mu.Unlock()
	for _, f := range fetch {
		evs, _ := rt.refresh(ctx, f.id, f.l)
		out = append(out, evs...)
	}
	return out
}

// refresh reads l's events from Cassandra again, and settles l once
// Cassandra has finished the session or traceSettle has passed. It
// returns l's events and whether l is settled now.
func (rt *relayTraces) refresh(ctx context.Context, id cql.UUID, l *traceLink) ([]telemetry.TraceEvent, bool) {
	evs, complete, err := l.rl.TraceEvents(ctx, l.cass, id)
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if err == nil {
		l.events = evs
	}
	l.settled = l.settled || (err == nil && complete) || time.Since(l.at) > traceSettle
	return l.events, l.settled
}

// Pending reports whether dohyo's session id is linked to a Cassandra
// session whose events may still be coming: its session in
// system_traces.sessions then shows no duration yet, so that clients
// (cqlsh, drivers) wait and read the trace again, as they do with
// Cassandra's own traces.
func (rt *relayTraces) Pending(ctx context.Context, id cql.UUID) bool {
	rt.mu.Lock()
	l := rt.links[id]
	settled := l == nil || l.settled
	rt.mu.Unlock()
	if settled {
		return false
	}
	_, settled = rt.refresh(ctx, id, l)
	return !settled
}
