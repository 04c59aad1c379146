// Package workload generates captures of standard benchmark workloads, so
// `dohyo replay` can run them against any targets with its scheduler and
// report (`dohyo workload`).
//
// YCSB (ycsb.go, zipfian.go) follows YCSB 0.17's CoreWorkload: the load
// phase inserts recordcount records in key order (keys "user" +
// fnvhash64(keynum), insertorder=hashed); the run phase draws operations
// from the read/update/insert/scan/read-modify-write proportions of the
// chosen workload (A-F), keys from the request distribution (zipfian:
// ScrambledZipfianGenerator over recordcount + 2·inserts expected; uniform;
// latest: SkewedLatestGenerator over the insert sequence), the update
// field uniformly, scan lengths uniformly in [1, maxscanlength]. The
// statements are the ones YCSB's CQL binding sends (keyspace ycsb, table
// usertable, key y_id, fields field0..). Randomness is math/rand/v2's PCG
// with a seed, so a capture is reproducible (YCSB's own random sequence
// is not reproduced, only its distributions).
//
// Field values are a function of (key, field) — same length and printable
// alphabet as YCSB's random values — so an update writes what the load
// wrote and a read's result does not depend on how sessions interleave on
// the target: targets can be compared read for read. Reads of keys
// inserted during the run go to the session that inserted them (order
// kept); scans are counted as noise (their ranges hold concurrent
// inserts). Generated reads carry no captured result (ResultVoid), so
// replay compares them between targets only.
//
// Sberbank (sberbank.go) is the test of Sberbank's Cassandra vs HBase
// comparison: BEGIN BATCH of 100 inserts, and SELECT ... WHERE id IN (100
// ids).
package workload
