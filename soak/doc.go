// Package soak runs a long, fixed-rate workload through dohyo while a fault
// schedule restarts and kills parts of the system under it, samples the
// dohyo processes (RSS, heap, goroutines, open files, CPU) and the clients
// (throughput, latency, errors) every few seconds, checks at the end that
// nothing acknowledged was lost (every acknowledged row read back, counter
// and LWT totals within what was acknowledged and what is unknown), and
// writes a report: JSON and one offline HTML page, the verdict first.
//
// The verdict's rules are stated in Rules and Verdict: the RSS slope of
// every sampled dohyo over the second half of the run below a bound, no
// client error outside a fault window, no lost acknowledged write, no stale
// read, counters and LWT sequences exact, every fault run.
package soak
