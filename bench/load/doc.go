// Package load is a YCSB-like CQL load generator on gocql: a load phase of
// N records, then a timed run of point reads/updates/inserts at a fixed rate
// or as fast as possible, with latency histograms per operation measured
// from the actual send and, when rate-limited, from the intended time.
package load
