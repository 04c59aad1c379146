// Package mirror sends live traffic to candidate backends as it happens
// (issue: live comparison). A Mirror is one of the coordinator's taps: for
// every successful write of a mirrored keyspace it re-applies the same
// statement, values, consistency and timestamp to each of the keyspace's
// mirrors, and it sends a configured sample of reads too, comparing each
// mirror's first page with the primary's (order-insensitive digest).
//
// The primary is never waited for: each mirror has bounded queues, one per
// worker, and a request that finds its queue full is dropped and counted.
// Requests are sharded by partition (see partitionHash) so one worker
// applies a partition's requests in the primary's order. The coordinator
// gives mirrored plain writes a timestamp when the client sent none
// (Stampable), so last-write-wins resolves alike on both sides.
//
// Status and the Prometheus collector report, per mirror: state (ok,
// behind, down), requests sent, applied, failed (by error code) and
// dropped, queue length and lag, reads compared and mismatches with
// examples, and mean latency per statement class on primary and mirror.
//
// Beside the tap: Reapply re-sends a capture's writes a mirror missed;
// Backfill copies a keyspace's existing rows to a new mirror with each
// cell's write time and TTL (so it converges while mirroring is live);
// Compare full-scans a keyspace on two backends and reports the rows that
// differ in value or write time. RegisterAdmin serves the /admin/mirror
// endpoints (status, mirrored keyspaces, the live report).
package mirror
