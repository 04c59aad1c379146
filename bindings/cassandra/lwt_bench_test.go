package cassandra_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/cassandra"
	"github.com/dohyo/dohyo/internal/lwtbench"
)

// BenchmarkCassandraLWT runs the workloads of hbase.BenchmarkTier on real
// Cassandra (gocql), 16 clients, for comparison:
//
//	DOHYO_TEST_CASSANDRA=127.0.0.1:9042 go test -run '^$' -bench BenchmarkCassandraLWT -benchtime 3000x ./bindings/cassandra/
func BenchmarkCassandraLWT(b *testing.B) {
	cfg := testConfig(b)
	be, err := cassandra.Open(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	ex := func(ctx context.Context, q string, vals ...bindings.Value) (*bindings.Result, error) {
		return be.Execute(ctx, &bindings.Request{Query: q, Values: vals, Consistency: bindings.One, SerialConsistency: bindings.Serial})
	}
	ctx := context.Background()
	ks := "tier_lwt_bench"
	if _, err := ex(ctx, "DROP KEYSPACE IF EXISTS "+ks); err != nil {
		b.Fatal(err)
	}
	if _, err := ex(ctx, "CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"); err != nil {
		b.Fatal(err)
	}
	defer ex(ctx, "DROP KEYSPACE IF EXISTS "+ks)
	for _, tb := range lwtbench.Tables {
		if _, err := ex(ctx, fmt.Sprintf(tb, ks)); err != nil {
			b.Fatal(err)
		}
	}
	if err := lwtbench.Populate(ctx, ex, ks); err != nil {
		b.Fatal(err)
	}
	for _, w := range []struct {
		name string
		w    lwtbench.Workload
	}{{"lwt", lwtbench.LWT(ks)}, {"counter", lwtbench.Counter(ks)}, {"write", lwtbench.Write(ks)}} {
		b.Run(w.name, func(b *testing.B) { lwtbench.Run(b, []lwtbench.Exec{ex}, 16, w.w) })
	}
}
