// Command hbaseget measures what a region server spends per point Get on
// existing tables, with gohbase (dohyo's fork) as the only client: the CPU
// of the HBase process (/proc/PID/stat) over a block of Gets of keys
// scanned from each table, tables alternating, so two row layouts (YCSB's
// native table and dohyo's table of the same records) or two ways of
// sending (separate Gets, or gohbase's batching writer's MultiRequests)
// can be compared on the same server in one run.
//
//	go run ./bench/hbaseget -pid $(cat it/.run/hbase/hbase.pid) -workers 8 TABLE [TABLE...]
//
// Each table's first -keys rows are read in a fixed scattered order by
// -workers goroutines, -ops Gets per block, -rounds blocks per table,
// paced to -rate Gets per second if given. It prints Gets per second,
// HBase CPU µs per Get and cells per Get.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tsuna/gohbase"
	"github.com/tsuna/gohbase/hrpc"

	"github.com/dohyo/dohyo/internal/proccpu"
)

func main() {
	zk := flag.String("zk", "127.0.0.1:2181", "ZooKeeper quorum of the HBase")
	pid := flag.Int("pid", 0, "process ID of the HBase (region server) JVM")
	ops := flag.Int("ops", 40000, "Gets per block")
	rounds := flag.Int("rounds", 3, "blocks per table")
	workers := flag.Int("workers", 8, "Gets in flight")
	nkeys := flag.Int("keys", 10000, "rows scanned from each table to read")
	batch := flag.Bool("batch", false, "send Gets through gohbase's batching writer (MultiRequests) instead of separately")
	rate := flag.Float64("rate", 0, "Gets per second over all workers (0: as fast as they go)")
	flag.Parse()
	if *pid == 0 || flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	ctx := context.Background()
	c := gohbase.NewClient(*zk, gohbase.FlushInterval(0))
	defer c.Close()
	keys := make([][][]byte, flag.NArg())
	for i, t := range flag.Args() {
		k, err := scanKeys(ctx, c, t, *nkeys)
		if err != nil {
			log.Fatalf("%s: %v", t, err)
		}
		if len(k) == 0 {
			log.Fatalf("%s: no rows", t)
		}
		keys[i] = k
		fmt.Printf("%s: %d rows, e.g. %q\n", t, len(k), k[0])
	}
	for r := range *rounds {
		for i, t := range flag.Args() {
			b := block{table: t, keys: keys[i], ops: *ops, workers: *workers, batch: *batch, rate: *rate}
			h0, err := proccpu.Of(*pid)
			if err != nil {
				log.Fatal(err)
			}
			start := time.Now()
			if err := b.run(ctx, c); err != nil {
				log.Fatalf("%s: %v", t, err)
			}
			el := time.Since(start)
			h1, err := proccpu.Of(*pid)
			if err != nil {
				log.Fatal(err)
			}
			fmt.Printf("round %d %-50s %7.0f Gets/s  HBase %6.1f µs/Get  %4.1f cells/Get\n", r, t,
				float64(*ops)/el.Seconds(), float64((h1-h0).Microseconds())/float64(*ops), float64(b.cells.Load())/float64(*ops))
		}
	}
}

// block is one timed block of Gets of one table.
type block struct {
	table   string
	keys    [][]byte
	ops     int
	workers int
	batch   bool
	rate    float64
	cells   atomic.Int64
}

func (b *block) run(ctx context.Context, c gohbase.Client) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	errs := make(chan error, b.workers)
	for range b.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				j := next.Add(1)
				if j > int64(b.ops) {
					return
				}
				if b.rate > 0 { // the j-th Get is due at j/rate
					time.Sleep(time.Until(start.Add(time.Duration(float64(j) / b.rate * float64(time.Second)))))
				}
				var opts []func(hrpc.Call) error
				if !b.batch {
					opts = append(opts, hrpc.SkipBatch())
				}
				g, err := hrpc.NewGet(ctx, []byte(b.table), b.keys[(j*7919)%int64(len(b.keys))], opts...)
				if err == nil {
					var res *hrpc.Result
					if res, err = c.Get(g); err == nil {
						b.cells.Add(int64(len(res.Cells)))
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

func scanKeys(ctx context.Context, c gohbase.Client, table string, n int) ([][]byte, error) {
	sc, err := hrpc.NewScanStr(ctx, table)
	if err != nil {
		return nil, err
	}
	s := c.Scan(sc)
	defer s.Close()
	var out [][]byte
	for len(out) < n {
		r, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(r.Cells) > 0 {
			out = append(out, r.Cells[0].Row)
		}
	}
	return out, nil
}
