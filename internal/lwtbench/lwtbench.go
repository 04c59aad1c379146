package lwtbench

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
)

// Exec runs one statement on one instance.
type Exec func(ctx context.Context, query string, vals ...bindings.Value) (*bindings.Result, error)

// Workload is a statement with one int key marker (the last) and the
// values before it.
type Workload struct {
	Query string
	// Values returns the bound values before the key.
	Values func(r *rand.Rand) []bindings.Value
}

// Keys is the number of keys a workload picks from (uniformly).
const Keys = 1000

// Int is a CQL int value.
func Int(n int) bindings.Value {
	return bindings.Value{Bytes: binary.BigEndian.AppendUint32(nil, uint32(n))}
}

// Run executes b.N statements from clients goroutines spread over
// instances and reports ops/s, p50 and p99 latency (ms).
func Run(b *testing.B, instances []Exec, clients int, w Workload) {
	b.Helper()
	var next atomic.Int64
	lat := make([][]time.Duration, clients)
	var wg sync.WaitGroup
	var failed atomic.Int64
	var firstErr atomic.Value
	b.ResetTimer()
	start := time.Now()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ex := instances[c%len(instances)]
			r := rand.New(rand.NewPCG(uint64(c), 1))
			for next.Add(1) <= int64(b.N) {
				vals := append(w.Values(r), Int(r.IntN(Keys)))
				t0 := time.Now()
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				_, err := ex(ctx, w.Query, vals...)
				cancel()
				lat[c] = append(lat[c], time.Since(t0))
				if err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d of %d statements failed, first: %v", n, b.N, firstErr.Load())
	}
	all := slices.Concat(lat...)
	slices.Sort(all)
	pct := func(p float64) float64 {
		if len(all) == 0 {
			return 0
		}
		return float64(all[min(len(all)-1, int(p*float64(len(all))))].Microseconds()) / 1000
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "ops/s")
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

// Statements of the benchmarks, on tables r (k int PRIMARY KEY, v int)
// and c (k int PRIMARY KEY, n counter) of keyspace ks.
func LWT(ks string) Workload {
	return Workload{Query: fmt.Sprintf("UPDATE %s.r SET v = ? WHERE k = ? IF EXISTS", ks),
		Values: func(r *rand.Rand) []bindings.Value { return []bindings.Value{Int(r.IntN(100))} }}
}

// Counter is an increment of a random counter.
func Counter(ks string) Workload {
	return Workload{Query: fmt.Sprintf("UPDATE %s.c SET n = n + 1 WHERE k = ?", ks),
		Values: func(*rand.Rand) []bindings.Value { return nil }}
}

// Write is a plain (non-LWT) point write.
func Write(ks string) Workload {
	return Workload{Query: fmt.Sprintf("UPDATE %s.r SET v = ? WHERE k = ?", ks),
		Values: func(r *rand.Rand) []bindings.Value { return []bindings.Value{Int(r.IntN(100))} }}
}

// Tables are the CREATE TABLE statements (keyspace %s) of the workloads.
var Tables = []string{
	"CREATE TABLE %s.r (k int PRIMARY KEY, v int)",
	"CREATE TABLE %s.c (k int PRIMARY KEY, n counter)",
}

// Populate inserts every key of r (LWT IF EXISTS then always applies).
func Populate(ctx context.Context, ex Exec, ks string) error {
	for k := range Keys {
		if _, err := ex(ctx, fmt.Sprintf("INSERT INTO %s.r (k, v) VALUES (?, 0)", ks), Int(k)); err != nil {
			return err
		}
	}
	return nil
}
