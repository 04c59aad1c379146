package cqlserver

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/telemetry"
)

// traceSource is a backend whose session completes after `after` reads.
type traceSource struct {
	reads, after int
	fail         bool
}

func (s *traceSource) TraceEvents(_ context.Context, _, id cql.UUID) ([]telemetry.TraceEvent, bool, error) {
	s.reads++
	if s.fail {
		return nil, false, errors.New("control connection down")
	}
	evs := []telemetry.TraceEvent{{Session: id, Activity: "Parsing"}}
	if s.reads > s.after {
		evs = append(evs, telemetry.TraceEvent{Session: id, Activity: "Read 1 live rows"})
	}
	return evs, s.reads > s.after, nil
}

// A relayed session is pending (no duration for clients) until the
// backend has finished its own, and its events are read again until then;
// once complete they are not read again.
func TestRelayTracePendingUntilBackendCompletes(t *testing.T) {
	ctx := context.Background()
	rt := newRelayTraces()
	src := &traceSource{after: 2}
	id := cql.UUID{1}
	rt.links[id] = &traceLink{rl: src, cass: cql.UUID{2}, at: time.Now()}
	rt.order = append(rt.order, id)

	if !rt.Pending(ctx, id) || !rt.Pending(ctx, id) {
		t.Fatal("pending should hold while the backend's session has no duration")
	}
	if rt.Pending(ctx, id) {
		t.Fatal("still pending after the backend completed its session")
	}
	if evs := rt.TraceEvents(ctx); len(evs) != 2 || evs[1].Activity != "Read 1 live rows" {
		t.Fatalf("events after completion: %+v", evs)
	}
	if src.reads != 3 {
		t.Fatalf("backend read %d times, want 3 (no reads once complete)", src.reads)
	}
	if rt.Pending(ctx, cql.UUID{9}) {
		t.Fatal("a session that is not relayed is never pending")
	}
}

// A backend that never completes (or cannot be read) holds a session back
// for traceSettle at most.
func TestRelayTracePendingBounded(t *testing.T) {
	ctx := context.Background()
	for _, src := range []*traceSource{{after: 1 << 30}, {fail: true}} {
		rt := newRelayTraces()
		id := cql.UUID{1}
		rt.links[id] = &traceLink{rl: src, cass: cql.UUID{2}, at: time.Now()}
		rt.order = append(rt.order, id)
		if !rt.Pending(ctx, id) {
			t.Fatalf("fail=%v: not pending right after the request", src.fail)
		}
		rt.links[id].at = time.Now().Add(-traceSettle - time.Second)
		if rt.Pending(ctx, id) {
			t.Fatalf("fail=%v: still pending after traceSettle", src.fail)
		}
	}
}
