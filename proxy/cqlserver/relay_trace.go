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

// traceSettle is how long after a relayed request Cassandra's events are
// still re-read: Cassandra writes them asynchronously.
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
	settled bool
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
		evs, err := f.l.rl.TraceEvents(ctx, f.l.cass, f.id)
		if err != nil {
			continue
		}
		rt.mu.Lock()
		f.l.events = evs
		f.l.settled = len(evs) > 0 && time.Since(f.l.at) > traceSettle
		rt.mu.Unlock()
		out = append(out, evs...)
	}
	return out
}
