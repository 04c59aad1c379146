package hbase

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tsuna/gohbase"
	"github.com/tsuna/gohbase/hrpc"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/embedded"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/engine"
	"github.com/dohyo/dohyo/engine/kv"
)

// BenchmarkSberbank is the Sberbank workload on HBase, through dohyo and
// with gohbase directly, side by side in one run:
//
//	DOHYO_TEST_HBASE_ZK=127.0.0.1:2181 go test -run '^$' -bench Sberbank -benchtime 5s ./bindings/hbase/
//
// Table `t (id bigint PRIMARY KEY, title text)`, salt 8. insert: a batch of
// 100 INSERTs (a BATCH message); select: `SELECT * FROM t WHERE id IN (...)`
// with 100 ids. The gohbase runs write the same rows (salt byte + 8-byte id,
// one "title" cell of the same size) with 100 concurrent Puts, and read them
// with 100 concurrent Gets. Several client goroutines (4 per CPU) run each.
// ops/s counts batches or IN queries; rows/s is 100 times that.
func BenchmarkSberbank(b *testing.B) {
	zk := testZK(b)
	const (
		salt    = 8
		batch   = 100
		preload = 20_000
	)
	be := openTestBackend(b, fmt.Sprintf("salt=%d&catalog=%s", salt, uniqueName("bench_")))
	ks := uniqueName("bench_")
	exec(b, be, "CREATE KEYSPACE "+ks+replication)
	dropKeyspace(b, be, ks)

	direct := gohbase.NewClient(zk, gohbase.FlushInterval(0))
	defer direct.Close()

	for _, size := range []int{10, 100} {
		b.Run(fmt.Sprintf("value=%dB", size), func(b *testing.B) {
			value := bytes.Repeat([]byte{'x'}, size)
			table := fmt.Sprintf("t%d", size)
			exec(b, be, "CREATE TABLE "+ks+"."+table+" (id bigint PRIMARY KEY, title text)")
			// The same pre-split as the engine's table: a region per bucket.
			raw := rawSplitTable(b, be, ks, table+"_raw", salt)
			d := &directTable{c: direct, table: []byte(tableName(raw)), salt: salt, value: value}

			ins := &dohyoTable{b: be, ks: ks, table: table, value: value}
			// The same workload on dohyo's embedded store, for reference.
			est, err := embedded.OpenStore(embedded.Config{})
			if err != nil {
				b.Fatal(err)
			}
			emb, err := engine.New(b.Context(), est, engine.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer emb.Close()
			exec(b, emb, "CREATE KEYSPACE "+ks+replication)
			exec(b, emb, "CREATE TABLE "+ks+"."+table+" (id bigint PRIMARY KEY, title text)")
			local := &dohyoTable{b: emb, ks: ks, table: table, value: value}
			// Preload the tables so reads hit existing rows.
			for id := int64(0); id < preload; id += batch {
				for _, load := range []func(context.Context, int64, int) error{ins.insert, d.insert, local.insert} {
					if err := load(context.Background(), id, batch); err != nil {
						b.Fatal(err)
					}
				}
			}
			var next atomic.Int64
			next.Store(preload)

			b.Run("insert/dohyo", func(b *testing.B) {
				runParallel(b, batch, func(ctx context.Context) error {
					return ins.insert(ctx, next.Add(batch)-batch, batch)
				})
			})
			b.Run("insert/gohbase", func(b *testing.B) {
				runParallel(b, batch, func(ctx context.Context) error {
					return d.insert(ctx, next.Add(batch)-batch, batch)
				})
			})
			var seq atomic.Int64
			b.Run("select/dohyo", func(b *testing.B) {
				runParallel(b, batch, func(ctx context.Context) error {
					return ins.selectIn(ctx, (seq.Add(1)*7919)%(preload-batch), batch)
				})
			})
			b.Run("select/gohbase", func(b *testing.B) {
				runParallel(b, batch, func(ctx context.Context) error {
					return d.get(ctx, (seq.Add(1)*7919)%(preload-batch), batch)
				})
			})
			// The ratio, measured alternating: each iteration times a block
			// of IN reads through dohyo, then the same Gets with gohbase,
			// so load on a shared machine hits both sides alike.
			b.Run("select/alternating", func(b *testing.B) {
				alternate(b, func(ctx context.Context) error {
					return ins.selectIn(ctx, (seq.Add(1)*7919)%(preload-batch), batch)
				}, func(ctx context.Context) error {
					return d.get(ctx, (seq.Add(1)*7919)%(preload-batch), batch)
				})
			})
			b.Run("insert/embedded", func(b *testing.B) {
				runParallel(b, batch, func(ctx context.Context) error {
					return local.insert(ctx, next.Add(batch)-batch, batch)
				})
			})
			b.Run("select/embedded", func(b *testing.B) {
				runParallel(b, batch, func(ctx context.Context) error {
					return local.selectIn(ctx, (seq.Add(1)*7919)%(preload-batch), batch)
				})
			})
		})
	}
}

// runParallel runs op from 4 goroutines per CPU and reports ops/s and rows/s.
func runParallel(b *testing.B, rowsPerOp int, op func(ctx context.Context) error) {
	b.SetParallelism(4)
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			if err := op(ctx); err != nil {
				b.Error(err)
				return
			}
		}
	})
	secs := time.Since(start).Seconds()
	b.ReportMetric(float64(b.N)/secs, "ops/s")
	b.ReportMetric(float64(b.N*rowsPerOp)/secs, "rows/s")
}

// alternate runs b.N rounds; each round runs a block of dohyo operations
// then a block of direct ones, from 8 goroutines each, and reports both
// rates, their ratio (dohyo / direct) and the process CPU time (user +
// system, from getrusage: every goroutine and the GC) per operation of each.
func alternate(b *testing.B, viaDohyo, direct func(ctx context.Context) error) {
	spent, cpu := alternateBlocks(b, viaDohyo, direct)
	ops := float64(b.N * benchBlock)
	rate := func(d time.Duration) float64 { return ops / d.Seconds() }
	perOp := func(d time.Duration) float64 { return float64(d.Microseconds()) / ops }
	b.ReportMetric(rate(spent[0]), "dohyo-ops/s")
	b.ReportMetric(rate(spent[1]), "gohbase-ops/s")
	b.ReportMetric(rate(spent[0])/rate(spent[1]), "ratio")
	b.ReportMetric(perOp(cpu[0]), "dohyo-cpu-us/op")
	b.ReportMetric(perOp(cpu[1]), "gohbase-cpu-us/op")
}

// benchBlock operations of one side run from benchWorkers goroutines per
// round of alternateBlocks.
const benchBlock, benchWorkers = 16, 8

// alternateBlocks runs b.N rounds of a block of each side in turn and
// returns each side's wall and process CPU time.
func alternateBlocks(b *testing.B, sides ...func(ctx context.Context) error) (spent, cpu []time.Duration) {
	spent, cpu = make([]time.Duration, len(sides)), make([]time.Duration, len(sides))
	for range b.N {
		for side, op := range sides {
			start, cpu0 := time.Now(), processCPU(b)
			if err := parallel(benchWorkers, func(int) error {
				for range benchBlock / benchWorkers {
					if err := op(b.Context()); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				b.Fatal(err)
			}
			spent[side] += time.Since(start)
			cpu[side] += processCPU(b) - cpu0
		}
	}
	return spent, cpu
}

// rawSplitTable creates the benchmark's own HBase table (not the engine's)
// with the same pre-split as a salted engine table, a region per bucket;
// it is dropped when b ends.
func rawSplitTable(b *testing.B, be *engine.Engine, ks, name string, salt int) *kv.TableSpec {
	b.Helper()
	raw := &kv.TableSpec{Keyspace: ks, Name: name, ID: uniqueName("raw")}
	for i := 1; i < salt; i++ {
		raw.SplitKeys = append(raw.SplitKeys, []byte{byte(i)})
	}
	if err := storeOf(be).CreateTable(b.Context(), raw); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { storeOf(be).DropTable(context.Background(), raw) })
	return raw
}

// processCPU is the user + system CPU time the process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// dohyoTable runs the workload through the Backend.
type dohyoTable struct {
	b         bindings.Backend
	ks, table string
	value     []byte

	once  sync.Once
	inSQL string
}

func (d *dohyoTable) insert(ctx context.Context, first int64, n int) error {
	q := "INSERT INTO " + d.table + " (id, title) VALUES (?, ?)"
	req := &bindings.BatchRequest{Keyspace: d.ks, Type: cql.BatchLogged, Consistency: bindings.One,
		Entries: make([]bindings.BatchEntry, n)}
	for i := range n {
		req.Entries[i] = bindings.BatchEntry{Query: q, Values: []bindings.Value{bigint(first + int64(i)), {Bytes: d.value}}}
	}
	_, err := d.b.Batch(ctx, req)
	return err
}

func (d *dohyoTable) selectIn(ctx context.Context, first int64, n int) error {
	d.once.Do(func() {
		d.inSQL = "SELECT * FROM " + d.table + " WHERE id IN (" + strings.TrimSuffix(strings.Repeat("?,", n), ",") + ")"
	})
	vals := make([]bindings.Value, n)
	for i := range vals {
		vals[i] = bigint(first + int64(i))
	}
	res, err := d.b.Execute(ctx, &bindings.Request{Keyspace: d.ks, Query: d.inSQL, Values: vals, Consistency: bindings.One})
	if err != nil {
		return err
	}
	if len(res.Rows) != n {
		return fmt.Errorf("SELECT IN: got %d rows, want %d", len(res.Rows), n)
	}
	return nil
}

// directTable runs the same workload with gohbase alone.
type directTable struct {
	c     gohbase.Client
	table []byte
	salt  int
	value []byte
}

func (d *directTable) key(id int64) []byte {
	var k [9]byte
	binary.BigEndian.PutUint64(k[1:], uint64(id))
	k[0] = byte(crc32.ChecksumIEEE(k[1:]) % uint32(d.salt))
	return k[:]
}

func (d *directTable) insert(ctx context.Context, first int64, n int) error {
	return parallel(n, func(i int) error {
		p, err := hrpc.NewPut(ctx, d.table, d.key(first+int64(i)),
			map[string]map[string][]byte{family: {"title": d.value}})
		if err != nil {
			return err
		}
		_, err = d.c.Put(p)
		return err
	})
}

func (d *directTable) get(ctx context.Context, first int64, n int) error {
	return parallel(n, func(i int) error {
		g, err := hrpc.NewGet(ctx, d.table, d.key(first+int64(i)))
		if err != nil {
			return err
		}
		res, err := d.c.Get(g)
		if err != nil {
			return err
		}
		if len(res.Cells) != 1 {
			return fmt.Errorf("get %d: %d cells", first+int64(i), len(res.Cells))
		}
		return nil
	})
}
