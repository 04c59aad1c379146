package main

import (
	"os"
	"sync/atomic"
	"testing"
)

// BenchmarkTierPointOps compares plain point writes and reads (an INSERT
// then a SELECT of one key, no LWT) through one instance of a three-
// instance tier with the same through all three (gocql token-aware), over
// the real HBase, in one run. The instances run a build without the race
// detector.
//
//	DOHYO_TEST_HBASE_ZK=127.0.0.1:2181 go test -run '^$' -bench TierPointOps -benchtime 10s ./cmd/dohyo/
func BenchmarkTierPointOps(b *testing.B) {
	bin := plainBinary(b)
	if os.Getenv("DOHYO_TEST_HBASE_ZK") == "" {
		b.Skip("DOHYO_TEST_HBASE_ZK not set")
	}
	tr := startTierBin(b, bin, 3)
	setup := tierSession(b, tr.addrs[0])
	ks := "tier_catalog_bench"
	for _, q := range []string{
		"DROP KEYSPACE IF EXISTS " + ks,
		"CREATE KEYSPACE " + ks + " WITH replication = " + tierReplication,
		"CREATE TABLE " + ks + ".kv (k int PRIMARY KEY, v int)",
	} {
		if err := setup.Query(q).Exec(); err != nil {
			b.Fatal(err)
		}
	}
	for _, bc := range []struct {
		name  string
		addrs []string
	}{{"instances=1", tr.addrs[:1]}, {"instances=3", tr.addrs}} {
		b.Run(bc.name, func(b *testing.B) {
			s := tierSession(b, bc.addrs...)
			var next atomic.Int64
			b.SetParallelism(8)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					k := int(next.Add(1) % 100_000)
					if err := s.Query("INSERT INTO "+ks+".kv (k, v) VALUES (?, ?)", k, k).Exec(); err != nil {
						b.Error(err)
						return
					}
					var v int
					if err := s.Query("SELECT v FROM "+ks+".kv WHERE k = ?", k).Scan(&v); err != nil || v != k {
						b.Errorf("read %d: %d, %v", k, v, err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
		})
	}
	_ = setup.Query("DROP KEYSPACE " + ks).Exec()
}
