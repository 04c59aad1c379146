// Package lwtbench drives the LWT and counter benchmarks of dohyo's
// coordinator tier and of Cassandra with one workload shape, so that their
// figures compare: concurrent clients spread round-robin over instances,
// each statement on a random key of a fixed key set, throughput and
// latency percentiles reported as benchmark metrics.
package lwtbench
