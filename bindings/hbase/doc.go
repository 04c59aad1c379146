// Package hbase implements the engine's KV seam (engine/kv) on Apache HBase (2.x)
// with gohbase, and the HBase backend: the wide-column CQL engine (package engine) on it.
//
// Layout. One HBase namespace per keyspace (the name with characters
// outside [A-Za-z0-9_] replaced; hbase, default and dohyo get a "_ks"
// suffix). One table per CQL table incarnation, "<ns>:t_<name>_<id>", so a
// re-created table starts fresh. One column family "d" with VERSIONS=1:
// HBase qualifier = KV qualifier, HBase timestamp = the CQL write time in µs
// (HBase treats it as an opaque long), value = the engine's cell value.
// Tombstones are cells like any other; HBase deletes are never used (their
// markers would hide later writes with older timestamps). Engine metadata
// lives in dohyo:catalog, row "<catalog name>/<key>": the shared schema in
// row "<catalog>/schema", committed with CheckAndPut on its version cell
// (schema_meta.go), and the tier's members in rows "<catalog>/member/<addr>"
// (members.go), so several dohyo instances share one catalog.
//
// Semantics and their limits:
//   - The highest timestamp wins, as in Cassandra. Of two writes with equal
//     timestamps HBase keeps the later one, where Cassandra's tie-break
//     (tombstone first, then the greater value) may pick the other; within
//     one Apply call dohyo resolves duplicates itself.
//   - Apply sends one Put per row (atomic per row), rows concurrently; a
//     multi-row Apply is not atomic as a whole.
//   - Negative write timestamps (USING TIMESTAMP < 0) are refused as
//     unsupported: HBase reads only timestamps >= 0.
//   - Row keys are limited to HBase's 32767 bytes (Invalid beyond).
//   - Get and Scan do not read one snapshot across rows or scan batches.
//   - Empty namespaces of dropped keyspaces are left in HBase.
//
// Tables are pre-split: one region per salt bucket by default, or about
// regions=N regions along salt buckets and token ranges. compression=
// and encoding= set the family's compression and data block encoding.
//
// Failure: gohbase retries region lookups until a call's deadline, so every
// call runs under min(caller deadline, Config.OpTimeout); a call that runs
// out of time is a CQL Unavailable error that also matches
// bindings.ErrBadConn and context.DeadlineExceeded.
//
// URLs: hbase://zk1:2181[,zk2:2181][/znode-parent]?salt=16&regions=8&
// compression=GZ&encoding=FAST_DIFF&catalog=default&timeout=10s&ddl_timeout=2m
package hbase
