package hbase

import (
	"context"
	"fmt"
	"testing"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/engine"
	"github.com/dohyo/dohyo/internal/lwtbench"
)

// BenchmarkTier measures LWT, counter and plain writes through 1 and 3
// engines over one HBase (each engine its own HBase connection, the
// coordination cells shared), 16 clients spread over the engines:
//
//	DOHYO_TEST_HBASE_ZK=127.0.0.1:2181 go test -run '^$' -bench BenchmarkTier -benchtime 3000x ./bindings/hbase/
//
// The Cassandra twin is BenchmarkCassandraLWT in bindings/cassandra.
func BenchmarkTier(b *testing.B) {
	var ks string
	es := openTier(b, 3, engine.Options{}, false, func(e *engine.Engine) {
		ks = tierKeyspace(b, e, lwtbench.Tables...)
		if err := lwtbench.Populate(context.Background(), engineExec(e), ks); err != nil {
			b.Fatal(err)
		}
	})
	for _, w := range []struct {
		name string
		w    lwtbench.Workload
	}{{"lwt", lwtbench.LWT(ks)}, {"counter", lwtbench.Counter(ks)}, {"write", lwtbench.Write(ks)}} {
		for _, n := range []int{1, 3} {
			b.Run(fmt.Sprintf("%s/instances=%d", w.name, n), func(b *testing.B) {
				var execs []lwtbench.Exec
				for _, e := range es[:n] {
					execs = append(execs, engineExec(e))
				}
				lwtbench.Run(b, execs, 16, w.w)
			})
		}
	}
}

func engineExec(e *engine.Engine) lwtbench.Exec {
	return func(ctx context.Context, q string, vals ...bindings.Value) (*bindings.Result, error) {
		return e.Execute(ctx, &bindings.Request{Query: q, Values: vals, Consistency: bindings.One, SerialConsistency: bindings.Serial})
	}
}
