// Package gctune keeps the Go garbage collector from running on a tiny
// heap many times a second.
//
// The collector starts a cycle when the heap reaches the live heap times
// (1 + GOGC/100), and never below 4 MiB. A proxy's live heap is small
// (dohyo serve over HBase: 2–3 MiB), while every request allocates, so with
// the default GOGC=100 the collector ran about ten times a second and cost
// a tenth of dohyo's CPU per request (bench/hbase-ab.sh; docs/BENCHMARKS.md,
// changelog, "A heap floor that holds").
// A Tuner gives the heap a floor instead: after every collection it sets
// the GC percentage so that the next goal is at least the floor, and
// returns to the base percentage once the live heap is large enough to
// reach the floor on its own. The runtime scales its 4 MiB minimum goal
// with the percentage too, so the percentage is capped where that minimum
// is the floor: without the cap a nearly empty heap (before the first
// collection above all) got a percentage whose minimum goal was many
// times the floor (878 MB for a 64 MiB floor; TestGoalAtFloor). The heap
// goal is then at most max(1.1 × floor, what GOGC alone allows); a large
// live heap is collected exactly as without the tuner.
package gctune
