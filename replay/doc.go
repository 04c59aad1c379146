// Package replay re-runs captures against one or more targets on an absolute
// schedule and compares throughput, latency and results.
package replay
