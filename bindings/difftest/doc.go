// Package difftest is the differential test: a seeded generator of random
// schemas and workloads (DESIGN §5) whose statements run on real Cassandra
// (the reference) and on dohyo's own backends, every result compared.
//
// Generator produces the statements: tables with 1-2 partition key and 0-2
// clustering columns (ASC/DESC) of varied types, static and collection
// columns, user-defined-type columns (two types, one nested; frozen and
// not: whole values, field updates and deletions, field selection),
// secondary and SAI indexes with indexed reads, native function calls,
// arithmetic reads (operators over number columns, random literals and
// type-hinted markers, nested, in functions and aggregates, over
// aggregates, text concatenation; about one statement in 25);
// INSERT, UPDATE (collection operations included), DELETE (rows,
// columns, elements, partitions, clustering ranges), BATCH messages and
// BEGIN BATCH statements, reads of every shape, a few invalid statements
// and rare schema changes. Every write carries an explicit, strictly
// increasing timestamp, so results are deterministic and never depend on
// how a store breaks equal-timestamp ties. Run executes steps on every
// target and Compare reports differences.
//
// The test itself (difftest_test.go) needs DOHYO_TEST_CASSANDRA; HBase
// joins with DOHYO_TEST_HBASE_ZK. DOHYO_DIFF_SEED and DOHYO_DIFF_STATEMENTS
// select the workload. Without DOHYO_DIFF_SEED a run draws a new seed,
// except under CI=true, which runs one fixed seed (ciSeed) so that landing
// a change does not depend on the draw; exploring is every other run.
package difftest
