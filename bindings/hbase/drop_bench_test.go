package hbase

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/dohyo/dohyo/engine"
)

// BenchmarkDropKeyspace times DROP KEYSPACE of a keyspace holding
// dropTables tables (created with the timer stopped), with the HBase tables
// dropped before the statement answers ("sync", dohyo before background
// drops) and after ("background", what Open configures). The custom metric
// is the statement's latency per table.
//
//	DOHYO_TEST_HBASE_ZK=127.0.0.1:2181 go test -run '^$' -bench BenchmarkDropKeyspace -benchtime 1x ./bindings/hbase/
func BenchmarkDropKeyspace(b *testing.B) {
	const dropTables = 20
	zk := testZK(b)
	for _, mode := range []struct {
		name string
		bg   bool
	}{{"sync", false}, {"background", true}} {
		b.Run(mode.name, func(b *testing.B) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			st, err := OpenStore(ctx, Config{ZooKeeper: zk, Catalog: uniqueName("bdrop_")})
			if err != nil {
				b.Fatal(err)
			}
			e, err := engine.New(ctx, st, engine.Options{DropInBackground: mode.bg})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			var total time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				ks := uniqueName("udt_drop")
				exec(b, e, "CREATE KEYSPACE "+ks+replication)
				for j := 0; j < dropTables; j++ {
					exec(b, e, fmt.Sprintf("CREATE TABLE %s.t%d (k int PRIMARY KEY, v text)", ks, j))
				}
				b.StartTimer()
				start := time.Now()
				exec(b, e, "DROP KEYSPACE "+ks)
				total += time.Since(start)
				b.StopTimer()
				e.WaitDrops() // the next iteration starts with no drops pending
				b.StartTimer()
			}
			b.ReportMetric(total.Seconds()/float64(b.N*dropTables), "s/table")
		})
	}
}

// TestTierDropInBackgroundIsInvisibleAtOnce: with background drops, a table
// dropped on one instance and re-created at once on another (and a keyspace
// dropped and re-created) shows none of the old rows on any instance, and
// the background drops finish (WaitDrops) without blocking later DDL.
func TestTierDropInBackgroundIsInvisibleAtOnce(t *testing.T) {
	tier := openTier(t, 2, engine.Options{DropInBackground: true}, false, nil)
	a, b := tier[0], tier[1]
	ks := uniqueName("udt_bgdrop_")
	exec(t, a, "CREATE KEYSPACE "+ks+replication)
	exec(t, a, "CREATE TABLE "+ks+".t (k int PRIMARY KEY, v text)")
	exec(t, a, "CREATE TABLE "+ks+".u (k int PRIMARY KEY, v text)")
	for i := 0; i < 5; i++ {
		exec(t, a, fmt.Sprintf("INSERT INTO %s.t (k, v) VALUES (%d, 'old')", ks, i))
		exec(t, a, fmt.Sprintf("INSERT INTO %s.u (k, v) VALUES (%d, 'old')", ks, i))
	}
	if n := len(exec(t, b, "SELECT * FROM "+ks+".t").Rows); n != 5 {
		t.Fatalf("instance b sees %d rows before the drop, want 5", n)
	}
	exec(t, a, "DROP TABLE "+ks+".t")
	exec(t, b, "CREATE TABLE "+ks+".t (k int PRIMARY KEY, v text)")
	for _, e := range tier {
		if rows := exec(t, e, "SELECT * FROM "+ks+".t").Rows; len(rows) != 0 {
			t.Fatalf("re-created table shows %d old rows", len(rows))
		}
	}
	exec(t, b, "DROP KEYSPACE "+ks)
	exec(t, a, "CREATE KEYSPACE "+ks+replication)
	exec(t, a, "CREATE TABLE "+ks+".u (k int PRIMARY KEY, v text)")
	for _, e := range tier {
		if rows := exec(t, e, "SELECT * FROM "+ks+".u").Rows; len(rows) != 0 {
			t.Fatalf("re-created keyspace shows %d old rows", len(rows))
		}
	}
	a.WaitDrops()
	b.WaitDrops()
	exec(t, a, "DROP KEYSPACE "+ks)
	a.WaitDrops()
}
