// Package telemetry traces requests: OpenTelemetry spans (a root span per
// request, children for parsing, routing, backend calls and the capture
// hand-off) and Cassandra-style request tracing (the CQL TRACING flag,
// answered from dohyo's own system_traces.sessions and events tables).
//
// Nothing here is global: a *Tracer is built from an explicit
// trace.TracerProvider and passed to the front ends, which start one
// Request per client request; lower layers find it in the ctx and start
// child Spans with Start. When a request is not traced (tracing off, or
// not sampled and no TRACING flag) there is no Request in the ctx and
// Start costs one ctx lookup, without allocating.
package telemetry
