package main

import (
	"fmt"
	"sync"
	"testing"
)

// Counters updated concurrently through three dohyo serve processes over
// one HBase are exact: every increment and decrement acknowledged by any
// instance is in the total every instance reads (issue 14). Each instance
// has its own single-host client, so the increments of one key really do
// arrive at three coordinators at once.
func TestTierCountersExact(t *testing.T) {
	tr := startTier(t, 3)
	ks := tierKS(t)
	singles := tr.singleSessions(t)
	if err := singles[0].Query("CREATE KEYSPACE " + ks + " WITH replication = " + tierReplication).Exec(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = singles[0].Query("DROP KEYSPACE " + ks).Exec() })
	if err := singles[1].Query("CREATE TABLE " + ks + ".c (k int PRIMARY KEY, n counter, m counter)").Exec(); err != nil {
		t.Fatal(err)
	}
	const keys, workers, perWorker = 4, 4, 40
	var wg sync.WaitGroup
	var mu sync.Mutex
	wantN := make([]int64, keys)
	wantM := make([]int64, keys)
	var failed []string
	for i, s := range singles {
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range perWorker {
					k := (i + w + j) % keys
					dn := int64(1 + (i+j)%3) // 1..3
					dm := int64(j%2*2 - 1)   // -1 or +1
					err := s.Query("UPDATE "+ks+".c SET n = n + ?, m = m + ? WHERE k = ?", dn, dm, k).Exec()
					mu.Lock()
					if err != nil {
						failed = append(failed, fmt.Sprintf("instance %d: %v", i, err))
					} else {
						wantN[k] += dn
						wantM[k] += dm
					}
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	if len(failed) > 0 {
		t.Fatalf("%d of %d increments failed, e.g. %s", len(failed), 3*workers*perWorker, failed[0])
	}
	for i, s := range singles {
		for k := range keys {
			var n, m int64
			if err := s.Query("SELECT n, m FROM "+ks+".c WHERE k = ?", k).Scan(&n, &m); err != nil {
				t.Fatalf("instance %d, key %d: %v", i, k, err)
			}
			if n != wantN[k] || m != wantM[k] {
				t.Errorf("instance %d, key %d: n = %d, m = %d; acknowledged increments sum to %d, %d", i, k, n, m, wantN[k], wantM[k])
			}
		}
	}
}
