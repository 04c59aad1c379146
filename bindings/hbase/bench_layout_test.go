package hbase

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tsuna/gohbase"
	"github.com/tsuna/gohbase/hrpc"

	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/engine"
)

// BenchmarkSberbankLayout separates the two halves of the Sberbank IN-100
// ratio: what HBase spends on dohyo's row layout and what dohyo's client
// side spends.
//
//	DOHYO_TEST_HBASE_ZK=127.0.0.1:2181 go test -run '^$' -bench SberbankLayout -benchtime 30x -count 3 ./bindings/hbase/
//
// Each round alternates a block of: dohyo (SELECT ... WHERE id IN (100
// ids) through the engine); gohbase-dohyo-rows (100 concurrent gohbase Gets
// of the same rows in the engine's own HBase table: ~28-byte row keys of
// salt byte, token and escaped id, scattered by token, with a row marker
// and a column cell per row); gohbase (100 concurrent gohbase Gets of the
// benchmark's hand-made layout: salt byte + 8-byte id, one cell,
// consecutive ids adjacent). ratio is dohyo / gohbase, layout-ratio
// gohbase-dohyo-rows / gohbase.
func BenchmarkSberbankLayout(b *testing.B) {
	zk := testZK(b)
	const salt, batch, preload = 8, 100, 20_000
	be := openTestBackend(b, fmt.Sprintf("salt=%d&catalog=%s", salt, uniqueName("bench_")))
	ks := uniqueName("bench_")
	exec(b, be, "CREATE KEYSPACE "+ks+replication)
	dropKeyspace(b, be, ks)
	direct := gohbase.NewClient(zk, gohbase.FlushInterval(0))
	defer direct.Close()
	value := bytes.Repeat([]byte{'x'}, 100)
	exec(b, be, "CREATE TABLE "+ks+".t (id bigint PRIMARY KEY, title text)")
	raw := rawSplitTable(b, be, ks, "t_raw", salt)
	d := &directTable{c: direct, table: []byte(tableName(raw)), salt: salt, value: value}
	ins := &dohyoTable{b: be, ks: ks, table: "t", value: value}
	for id := int64(0); id < preload; id += batch {
		for _, load := range []func(context.Context, int64, int) error{ins.insert, d.insert} {
			if err := load(context.Background(), id, batch); err != nil {
				b.Fatal(err)
			}
		}
	}
	rowsOf := engineRows(b, direct, namespaceName(ks)+":t_t_", salt)
	var seq int64
	next := func() int64 { seq++; return (seq * 7919) % (preload - batch) }
	sides := []func(context.Context) error{
		func(ctx context.Context) error { return ins.selectIn(ctx, next(), batch) },
		func(ctx context.Context) error { return rowsOf(ctx, next(), batch) },
		func(ctx context.Context) error { return d.get(ctx, next(), batch) },
	}
	names := []string{"dohyo", "gohbase-dohyo-rows", "gohbase"}
	spent, _ := alternateBlocks(b, sides...)
	for s := range sides {
		b.ReportMetric(float64(b.N*benchBlock)/spent[s].Seconds(), names[s]+"-ops/s")
	}
	b.ReportMetric(spent[2].Seconds()/spent[0].Seconds(), "ratio")
	b.ReportMetric(spent[2].Seconds()/spent[1].Seconds(), "layout-ratio")
}

// engineRows returns a reader of the engine's rows of ids [first,
// first+n) with one gohbase Get each, sent concurrently; prefix is the
// start of the engine table's HBase name.
func engineRows(b *testing.B, c gohbase.Client, prefix string, salt int) func(context.Context, int64, int) error {
	sc, err := hrpc.NewScanRange(b.Context(), []byte("hbase:meta"), []byte(prefix), []byte(prefix+"~"))
	if err != nil {
		b.Fatal(err)
	}
	res, err := c.Scan(sc).Next()
	if err != nil {
		b.Fatalf("engine table %s*: %v", prefix, err)
	}
	table := []byte(strings.SplitN(string(res.Cells[0].Row), ",", 2)[0])
	codec, err := engine.NewKeyCodec([]*cql.Type{cql.Scalar(cql.KindBigint)}, nil, nil, salt)
	if err != nil {
		b.Fatal(err)
	}
	return func(ctx context.Context, first int64, n int) error {
		return parallel(n, func(i int) error {
			key, err := codec.PartitionKey([][]byte{bigint(first + int64(i)).Bytes})
			if err != nil {
				return err
			}
			g, err := hrpc.NewGet(ctx, table, key)
			if err != nil {
				return err
			}
			res, err := c.Get(g)
			if err != nil {
				return err
			}
			if len(res.Cells) == 0 {
				return fmt.Errorf("engine row %d: no cells", first+int64(i))
			}
			return nil
		})
	}
}
