package systemks

import (
	"context"
	"time"

	"github.com/dohyo/dohyo/schema"
	"github.com/dohyo/dohyo/telemetry"
)

// system_traces: the trace sessions and events of requests traced on this
// instance, with Cassandra 5.0's schemas, so cqlsh's TRACING ON prints them.

func traceParams(p *schema.TableParams) {
	p.GCGraceSeconds = 0
	p.DefaultTimeToLive = 0
}

// addTraceTables defines system_traces.sessions and .events over the
// configured trace sessions.
func (v *Backend) addTraceTables() {
	v.define("system_traces", "tracing sessions", `CREATE TABLE sessions (
		session_id uuid PRIMARY KEY, client inet, command text, coordinator inet,
		coordinator_port int, duration int, parameters map<text, text>, request text,
		started_at timestamp)`, traceParams, func(ctx context.Context, _ *schema.Catalog) ([][][]byte, error) {
		return v.sessionRows(ctx)
	}, false)
	v.define("system_traces", "tracing events", `CREATE TABLE events (
		session_id uuid, event_id timeuuid, activity text, source inet, source_elapsed int,
		source_port int, thread text, PRIMARY KEY ((session_id), event_id))`, traceParams,
		func(ctx context.Context, _ *schema.Catalog) ([][][]byte, error) { return v.eventRows(ctx) }, false)
	// Cassandra replicates its traces (SimpleStrategy, RF 2).
	v.system["system_traces"].Replication = map[string]string{
		"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "2"}
}

func (v *Backend) sessionRows(ctx context.Context) ([][][]byte, error) {
	b := &rowBuilder{t: v.tables["system_traces"]["sessions"].meta}
	if v.cfg.Traces == nil {
		return b.sorted()
	}
	for _, s := range v.cfg.Traces.List() {
		row := map[string]any{
			"session_id": s.ID, "client": s.Client, "command": s.Command, "coordinator": s.Coordinator,
			"coordinator_port": s.CoordinatorPort, "parameters": s.Parameters, "request": s.Request,
			"started_at": s.StartedAt,
		}
		if s.Done && (v.cfg.TraceEvents == nil || !v.cfg.TraceEvents.Pending(ctx, s.ID)) {
			row["duration"] = micros(s.Duration)
		}
		b.add(row)
	}
	return b.sorted()
}

// eventRows lists dohyo's events, then those of the TraceEvents source
// (Cassandra's own for relayed requests).
func (v *Backend) eventRows(ctx context.Context) ([][][]byte, error) {
	b := &rowBuilder{t: v.tables["system_traces"]["events"].meta}
	var events []telemetry.TraceEvent
	if v.cfg.Traces != nil {
		events = v.cfg.Traces.Events()
	}
	if v.cfg.TraceEvents != nil {
		events = append(events, v.cfg.TraceEvents.TraceEvents(ctx)...)
	}
	for _, e := range events {
		b.add(map[string]any{
			"session_id": e.Session, "event_id": e.ID, "activity": e.Activity, "source": e.Source,
			"source_elapsed": micros(e.Elapsed), "source_port": e.SourcePort, "thread": e.Thread,
		})
	}
	return b.sorted()
}

// micros is a duration in whole microseconds, as system_traces keeps them.
func micros(d time.Duration) int32 {
	return int32(min(d.Microseconds(), 1<<31-1))
}
