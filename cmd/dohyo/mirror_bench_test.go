package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/embedded"
	"github.com/dohyo/dohyo/bindings/stores"
	"github.com/dohyo/dohyo/engine"
	"github.com/dohyo/dohyo/internal/proccpu"
)

// BenchmarkMirrorCost measures what live mirroring costs the primary: one
// `dohyo serve` (no race detector) on the embedded store with the
// keyspace's mirrors switched at runtime (PUT /admin/mirror/keyspaces)
// between none, one and two embedded mirrors, for a YCSB-A-like mix (50 %
// reads, 50 % updates of 10,000 keys, zipf-ish) and a C-like one (reads
// only), 8 gocql clients, --mirror-read-sample 0.1. DOHYO_BENCH_ROUNDS
// rounds (default 3) of DOHYO_BENCH_ROUND (default 5s) per target, the
// order rotating from round to round. Per target: throughput, p99
// latency, and dohyo's CPU (user + system, /proc/PID/stat) per request,
// counted until the mirrors' queues drained after the round.
//
//	go test -run '^$' -bench MirrorCost -benchtime 1x ./cmd/dohyo/
func BenchmarkMirrorCost(b *testing.B) {
	bin := plainBinary(b)
	rounds, round := 3, 5*time.Second
	if v, err := strconv.Atoi(os.Getenv("DOHYO_BENCH_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	if v, err := time.ParseDuration(os.Getenv("DOHYO_BENCH_ROUND")); err == nil && v > 0 {
		round = v
	}
	const ks, keys = "mirror_bench", 10_000
	ddl := []string{
		"CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE " + ks + ".t (k int PRIMARY KEY, v text)",
	}
	var urls []string
	for range 2 {
		dir := b.TempDir()
		m, err := stores.Embedded(b.Context(), embedded.Config{Dir: dir}, engine.Options{})
		if err != nil {
			b.Fatal(err)
		}
		for _, q := range ddl {
			if _, err := m.Execute(b.Context(), &bindings.Request{Query: q}); err != nil {
				b.Fatal(err)
			}
		}
		m.Close()
		urls = append(urls, "embedded://"+dir)
	}
	p := startServeBin(b, bin, nil, "--backend", "embedded://"+b.TempDir(), "--mirror", ks+"="+urls[0],
		"--mirror", ks+"="+urls[1], "--mirror-read-sample", "0.1")
	c := gocql.NewCluster(p.CQLAddr)
	c.Consistency, c.Timeout = gocql.One, 10*time.Second
	s, err := c.CreateSession()
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for _, q := range ddl {
		if err := s.Query(q).Exec(); err != nil {
			b.Fatal(err)
		}
	}
	value := strings.Repeat("x", 100)
	for k := range keys {
		if err := s.Query("INSERT INTO "+ks+".t (k, v) VALUES (?, ?)", k, value).Exec(); err != nil {
			b.Fatal(err)
		}
	}
	setMirrors := func(n int) {
		body, _ := json.Marshal(map[string][]string{ks: urls[:n]})
		if n == 0 {
			body = []byte("{}")
		}
		req, _ := http.NewRequest(http.MethodPut, "http://"+p.HTTPAddr+"/admin/mirror/keyspaces", bytes.NewReader(body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("PUT /admin/mirror/keyspaces: %v %v", err, resp)
		}
		resp.Body.Close()
	}
	drained := func() {
		deadline := time.Now().Add(2 * time.Minute)
		for {
			var body struct {
				Mirrors []struct{ Queued, Dropped int64 }
			}
			raw := httpGetB(b, "http://"+p.HTTPAddr+"/admin/mirror")
			if err := json.Unmarshal(raw, &body); err != nil {
				b.Fatal(err)
			}
			q := int64(0)
			for _, m := range body.Mirrors {
				q += m.Queued
			}
			if q == 0 {
				return
			}
			if time.Now().After(deadline) {
				b.Fatalf("mirror queues did not drain: %s", raw)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	type result struct {
		ops   int64
		dur   time.Duration
		cpu   time.Duration
		lat   []time.Duration
		label string
	}
	for _, mix := range []struct {
		name  string
		reads float64
	}{{"A", 0.5}, {"C", 1}} {
		res := make([]result, 3)
		for r := range rounds {
			for j := range 3 {
				n := (r + j) % 3
				setMirrors(n)
				cpu0 := procCPU(b, p)
				ops, dur, lat := mixFor(b, s, ks, keys, value, mix.reads, 8, round)
				drained()
				res[n].cpu += procCPU(b, p) - cpu0
				res[n].ops += ops
				res[n].dur += dur
				res[n].lat = append(res[n].lat, lat...)
				b.Logf("mix %s round %d mirrors=%d: %.0f ops/s", mix.name, r+1, n, float64(ops)/dur.Seconds())
			}
		}
		for n, x := range res {
			slices.Sort(x.lat)
			p99 := x.lat[len(x.lat)*99/100]
			rate := float64(x.ops) / x.dur.Seconds()
			perOp := float64(x.cpu.Microseconds()) / float64(x.ops)
			b.Logf("mix %s mirrors=%d: %d ops, %.0f ops/s (%.2f of off), p99 %.2f ms, dohyo CPU %.0f µs/op (%+.0f µs vs off)",
				mix.name, n, x.ops, rate, rate/(float64(res[0].ops)/res[0].dur.Seconds()), float64(p99.Microseconds())/1e3,
				perOp, perOp-float64(res[0].cpu.Microseconds())/float64(res[0].ops))
			b.ReportMetric(rate, fmt.Sprintf("ops/s-%s-m%d", mix.name, n))
		}
	}
}

// mixFor runs reads (fraction reads) and updates of random keys from
// clients goroutines for d; it returns the operations, the time taken and
// a sample of latencies (every operation's, bounded at 200,000).
func mixFor(b *testing.B, s *gocql.Session, ks string, keys int, value string, reads float64, clients int, d time.Duration) (int64, time.Duration, []time.Duration) {
	var done atomic.Int64
	var mu sync.Mutex
	var lat []time.Duration
	start := time.Now()
	end := start.Add(d)
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			own := make([]time.Duration, 0, 4096)
			for time.Now().Before(end) {
				// Skewed keys: a fifth of the keys take most requests.
				k := rand.IntN(keys)
				if rand.IntN(5) > 0 {
					k = rand.IntN(keys / 5)
				}
				t0 := time.Now()
				var err error
				if rand.Float64() < reads {
					var v string
					err = s.Query("SELECT v FROM "+ks+".t WHERE k = ?", k).Scan(&v)
				} else {
					err = s.Query("UPDATE "+ks+".t SET v = ? WHERE k = ?", value, k).Exec()
				}
				if err != nil {
					b.Error(err)
					return
				}
				if len(own) < 200_000/clients {
					own = append(own, time.Since(t0))
				}
				done.Add(1)
			}
			mu.Lock()
			lat = append(lat, own...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return done.Load(), time.Since(start), lat
}

// procCPU is a dohyo process's user + system CPU time.
func procCPU(b *testing.B, p *serveProc) time.Duration {
	d, err := proccpu.Of(p.cmd.Process.Pid)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

func httpGetB(b *testing.B, url string) []byte {
	resp, err := http.Get(url)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}
