// Package engine is dohyo's wide-column engine: it gives CQL Cassandra's
// semantics on top of an ordered key-value store: row-key and cell
// encoding (DESIGN D4), a planner and an executor. Stores plug in through
// the small KV seam (package engine/kv); the engine imports no store.
//
// Map of the package:
//
//	engine.go     Engine: New, Execute, caches of unprepared statements
//	              (parsed text, plans per keyspace and query),
//	              timestamps, stripe locks
//	stmt.go       prepared statements: the handle PREPARE returns,
//	              which carries its plan to every EXECUTE
//	ddl.go        DDL through schema.Apply; KV tables; the catalog commit
//	catalog_sync.go  the shared schema: compare-and-set commits, version
//	              poll, reload on unknown names, change events
//	layout.go     the storage layout (qualifiers, tombstones): a format
//	read.go       reconciliation of KV rows into CQL rows
//	plan.go       planner core, bind-marker specs, PREPARE, USING
//	where.go      WHERE analysis; clustering.go key ranges; filter.go
//	select.go     SELECT planning and execution; scan.go full-table
//	              and token scans; token.go token() restrictions and the
//	              token() selector; selection.go result columns and
//	              aggregates; paging.go the paging state
//	write.go      INSERT, UPDATE, DELETE; ops.go assignments, counters
//	lwt.go        IF conditions and their results; batch.go BATCH
//	keycodec*.go  row keys (salt, Murmur3 token, order-preserving keys)
//	view.go       materialized views: view rows derived from base rows and
//	              replaced by every base write, under the base partition
//	view_build.go the build at CREATE MATERIALIZED VIEW, TRUNCATE, writes
//	              racing with a view's creation
package engine
