// Package replay re-runs captures against one or more targets on an absolute
// schedule and compares throughput, latency and results (DESIGN D6, D7, D10).
//
// Scheduler (schedule.go) paces ops on an injectable Clock: one goroutine and
// one bounded queue per captured (node, session), order kept within a
// session, sessions independent. Due times are absolute — start +
// (t − t0)/speed, or start + i/rate — computed per op in float64 nanoseconds
// and rounded once, so fractional speeds never drift. One dispatcher waits
// for each op's due time (a single timer, then on the real clock a thread
// sleep and a short yielding spin: Go's timers fire up to ~1 ms late) and
// hands the op to its session, which sends it at max(due, previous
// completion). Sessions take every queued op at once, and at --max the
// dispatcher batches wake-ups, so goroutine hand-offs are shared by many
// ops; observations are delivered per batch so stats locks are taken once
// per batch. Latency is measured from the due time (coordinated-omission
// corrected) and from the actual send; lag is send − due. Schema changes
// are barriers: they run alone, and the schedule pauses while they run
// (RunStats.Paused), so they make no later op late. FakeClock is virtual
// time for tests.
//
// opBuilder (source.go) turns the merged capture stream into ops (decoded
// ahead on a goroutine of its own, readAhead): batch
// children become one Batch; captured continuation pages are never
// replayed — the first page is re-paged on the target with the captured
// page size and the digests of the first k target pages (k = captured
// pages, linked by node, statement and values since drivers send pages on
// any connection) are compared with the sum of the captured page digests;
// dohyo's virtual system tables are skipped; reads whose captured result is
// nondeterministic (now(), uuid(), TTL(), writetime(), or a write to the
// same table from another session overlapping the read) count as noise.
//
// Targets (target.go, cqltarget) execute ops: BackendTarget over any
// bindings.Backend (re-preparing prepared statements once), cqltarget over
// gocql with raw bytes in and out. Replay (engine.go) runs the phases: the
// schema (--create-schema, untimed, statement by statement), the warm-up
// (the first part of the capture, once per target, in no figure), then
// Repeat measured rounds per target, one target at a time, interleaved
// round by round; it compares each read against the capture and against
// the baseline target. The verdict (verdict.go) compares every target with
// the baseline: medians over rounds with their range, ratios with a
// percentile bootstrap interval over rounds (fixed seed), "within noise"
// when the interval holds 1. Report (report.go, html.go) holds HDR
// histograms per target and statement class, writes YCSB-style text, JSON
// that MergeReports adds exactly across shards, and a self-contained HTML
// page with inline SVG charts; ExitCode has bit flags.
//
// Comparison state is kept per read until the end of a run (a few hundred
// bytes per read).
package replay
