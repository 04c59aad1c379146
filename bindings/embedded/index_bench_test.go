package embedded

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/engine"
)

// BenchmarkIndexWriteOverhead measures INSERT throughput into one table
// shape with 0, 1 and 3 SAI indexes, and with one SAI vector index, side
// by side in one run: four backends (each its own Pebble store on disk)
// take alternating rounds of 500 INSERTs until each has done b.N, so that
// machine load falls on all of them alike:
//
//	go test -run '^$' -bench BenchmarkIndexWriteOverhead -benchtime 100000x -count 2 ./bindings/embedded/
//
// Table `ix (k bigint PRIMARY KEY, a int, b int, c text, v text, e
// vector<float, 128>)`, each INSERT writing all columns (v: 100 bytes);
// indexes on a; on a, b and c; on e. It reports INSERT/s per
// configuration and each one's ratio to the unindexed table.
func BenchmarkIndexWriteOverhead(b *testing.B) {
	type config struct {
		name    string
		indexes []string
		be      *engine.Engine
		req     *bindings.Request
		k       int64
		spent   time.Duration
	}
	configs := []*config{
		{name: "sai-0"}, {name: "sai-1", indexes: []string{"a"}},
		{name: "sai-3", indexes: []string{"a", "b", "c"}}, {name: "vector-1", indexes: []string{"e"}},
	}
	value := make([]byte, 100)
	vec := make([]byte, 0, 4*128)
	for i := 0; i < 128; i++ {
		vec = binary.BigEndian.AppendUint32(vec, math.Float32bits(float32(i%7)-3))
	}
	for _, c := range configs {
		be, err := openEngine(context.Background(), Config{Dir: b.TempDir()})
		if err != nil {
			b.Fatalf("Open: %v", err)
		}
		defer be.Close()
		mustExec(b, be, createKS)
		mustExec(b, be, "CREATE TABLE ks.ix (k bigint PRIMARY KEY, a int, b int, c text, v text, e vector<float, 128>)")
		for _, col := range c.indexes {
			mustExec(b, be, fmt.Sprintf("CREATE INDEX ON ks.ix (%s) USING 'sai'", col))
		}
		c.be = be
		c.req = &bindings.Request{Query: "INSERT INTO ks.ix (k, a, b, c, v, e) VALUES (?, ?, ?, ?, ?, ?)", Consistency: bindings.One,
			Values: []bindings.Value{{}, {}, {}, {}, {Bytes: value}, {Bytes: vec}}}
	}
	ctx := context.Background()
	const round = 500
	b.ResetTimer()
	for done := 0; done < b.N; done += round {
		n := min(round, b.N-done)
		for _, c := range configs {
			start := time.Now()
			for i := 0; i < n; i++ {
				k := c.k
				c.k++
				c.req.Values[0] = bigint(k)
				c.req.Values[1] = bindings.Value{Bytes: binary.BigEndian.AppendUint32(nil, uint32(k%1000))}
				c.req.Values[2] = bindings.Value{Bytes: binary.BigEndian.AppendUint32(nil, uint32(k))}
				c.req.Values[3] = text(fmt.Sprintf("c%d", k%100))
				binary.BigEndian.PutUint32(vec[4*(k%128):], math.Float32bits(float32(k%13)))
				if _, err := c.be.Execute(ctx, c.req); err != nil {
					b.Fatal(err)
				}
			}
			c.spent += time.Since(start)
		}
	}
	b.StopTimer()
	base := float64(configs[0].k) / configs[0].spent.Seconds()
	for _, c := range configs {
		rate := float64(c.k) / c.spent.Seconds()
		b.ReportMetric(rate, c.name+"-inserts/s")
		if b.N >= round {
			b.Logf("%-8s %8.0f INSERT/s  ratio to sai-0 %.2f", c.name, rate, rate/base)
		}
	}
}
