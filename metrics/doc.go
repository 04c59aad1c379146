// Package metrics defines dohyo's Prometheus metrics (prefix dohyo_) and
// feeds them: a tap wrapper counts and times every request the coordinator
// executes (labels endpoint, keyspace, op, backend, status, with bounded
// cardinality), and function-backed collectors read the gauges and counters
// other packages keep (CQL server, prepared-statement cache, capture).
// Metrics are registered on a registry the caller passes in: no globals.
package metrics
