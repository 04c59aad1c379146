package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/stores"
	"github.com/dohyo/dohyo/capture"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/engine"
	"github.com/dohyo/dohyo/replay/hdr"
)

// writeBenchCapture writes n YCSB-like records (3 writes : 1 read) over
// 32 sessions to a capture directory.
func writeBenchCapture(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	cfg := capture.DefaultWriterConfig()
	cfg.Dir, cfg.NodeID, cfg.SchemaDDL = dir, "bench", testDDL
	w, err := capture.NewWriter(cfg)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	t0 := time.Unix(1_700_000_000, 0)
	const ins, sel = "INSERT INTO t (k, c, v) VALUES (?, ?, 'x')", "SELECT k, c, v FROM t WHERE k = ? AND c = ?"
	insFP, selFP := cql.Fingerprint(ins), cql.Fingerprint(sel)
	for i := 0; i < n; i++ {
		r := &capture.Record{Time: t0.Add(time.Duration(i) * 50 * time.Microsecond).UnixNano(), Session: uint64(i % 32), Seq: uint64(i / 32),
			Keyspace: "ks", Consistency: bindings.One, Prepared: true, Latency: 100 * time.Microsecond}
		if i%4 == 3 {
			r.Query, r.Fingerprint, r.Values, r.ResultKind = sel, selFP, []capture.Value{i32(i % 100), i32(i - 3)}, bindings.ResultRows
		} else {
			r.Query, r.Fingerprint, r.Values = ins, insFP, []capture.Value{i32(i % 100), i32(i)}
		}
		if err := w.Append(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(ctx); err != nil {
		b.Fatal(err)
	}
	return dir
}

type nopTarget struct{}

func (nopTarget) Do(context.Context, *Op) Outcome           { return Outcome{} }
func (nopTarget) ApplySchema(context.Context, string) error { return nil }
func (nopTarget) Close() error                              { return nil }

func openBenchEmbedded(b *testing.B) *BackendTarget {
	b.Helper()
	be, err := stores.OpenURL(context.Background(), "embedded://memory", engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return NewBackendTarget(be)
}

// decodeCapture reads and decodes every record: the floor of any replay.
func decodeCapture(b *testing.B, dir string, n int) time.Duration {
	b.Helper()
	start := time.Now()
	m, err := capture.Merge(context.Background(), dir)
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	cnt := 0
	for {
		_, err := m.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		cnt++
	}
	if cnt != n {
		b.Fatalf("decoded %d records, want %d", cnt, n)
	}
	return time.Since(start)
}

// replayMax replays dir at --max against tg and returns the wall time.
func replayMax(b *testing.B, dir string, n, conc int, tg Target) time.Duration {
	b.Helper()
	start := time.Now()
	run, err := Replay(context.Background(), Options{Captures: []string{dir}, CreateSchema: true,
		Schedule: ScheduleOptions{Mode: ModeMax, Concurrency: conc}}, []NamedTarget{{"t", tg}})
	if err != nil {
		b.Fatal(err)
	}
	el := time.Since(start)
	if st := run.Targets[0]; st.Ops != int64(n) || st.Unexpected != 0 {
		b.Fatalf("replayed %d ops, %d errors (%v)", st.Ops, st.Unexpected, st.Errors)
	}
	return el
}

// directTarget is the target's own cost, without the engine: the capture's
// ops, decoded beforehand, executed straight from conc goroutines (each
// owning a share of the sessions, in order).
func directTarget(b *testing.B, dir string, conc int, tg Target) time.Duration {
	b.Helper()
	ctx := context.Background()
	m, err := capture.Merge(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	shares := make([][]*Op, conc)
	ob := newOpBuilder(m, Shard{})
	for {
		op, err := ob.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		g := int(op.Key.Session % uint64(conc))
		shares[g] = append(shares[g], op)
	}
	if err := tg.ApplySchema(ctx, testDDL); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	var wg sync.WaitGroup
	for _, ops := range shares {
		wg.Add(1)
		go func(ops []*Op) {
			defer wg.Done()
			for _, op := range ops {
				if out := tg.Do(ctx, op); out.Err {
					b.Error(out.Msg)
					return
				}
			}
		}(ops)
	}
	wg.Wait()
	return time.Since(start)
}

// BenchmarkReplayMaxVsDecode compares, on one capture in one run: reading
// and decoding the capture; the engine at --max against a no-op target
// (the engine's own cost); the engine against an in-memory embedded store;
// and that store driven directly without the engine (the target's own
// cost). Each iteration runs the four interleaved, three rounds, and keeps
// each one's best round, so a burst of load from other processes on the
// machine does not land on one side of a ratio only. Ratios are of rates:
// 1 means as fast as the reference.
func BenchmarkReplayMaxVsDecode(b *testing.B) {
	const n, conc, rounds = 40000, 8, 3
	dir := writeBenchCapture(b, n)
	var decode, nop, mem, direct time.Duration
	best := func(sum *time.Duration, f func() time.Duration) {
		m := f()
		for r := 1; r < rounds; r++ {
			m = min(m, f())
		}
		*sum += m
	}
	for i := 0; i < b.N; i++ {
		best(&decode, func() time.Duration { return decodeCapture(b, dir, n) })
		best(&nop, func() time.Duration { return replayMax(b, dir, n, conc, nopTarget{}) })
		best(&mem, func() time.Duration {
			tg := openBenchEmbedded(b)
			defer tg.Close()
			return replayMax(b, dir, n, conc, tg)
		})
		best(&direct, func() time.Duration {
			tg := openBenchEmbedded(b)
			defer tg.Close()
			return directTarget(b, dir, conc, tg)
		})
	}
	rate := func(d time.Duration) float64 { return float64(n*b.N) / d.Seconds() }
	b.ReportMetric(rate(decode), "decode-rec/s")
	b.ReportMetric(rate(nop), "nop-ops/s")
	b.ReportMetric(rate(mem), "mem-ops/s")
	b.ReportMetric(rate(direct), "mem-direct-ops/s")
	b.ReportMetric(rate(nop)/rate(decode), "nop÷decode")
	b.ReportMetric(rate(mem)/rate(decode), "mem÷decode")
	b.ReportMetric(rate(mem)/rate(direct), "mem÷direct")
	b.ReportMetric(rate(direct)/rate(decode), "direct÷decode")
}

// waitLoopLag paces n ticks at rate with wait and records how late each
// tick came: the floor under the engine's lag.
func waitLoopLag(n int, rate float64, wait func(due time.Time)) *hdr.Histogram {
	h := hdr.New()
	start := time.Now()
	for i := 0; i < n; i++ {
		due := start.Add(time.Duration(float64(i) * 1e9 / rate))
		wait(due)
		h.Record(int64(time.Since(due)))
	}
	return h
}

// BenchmarkReplayRateLag runs --rate on the real clock against a no-op
// target (64 sessions) and reports the achieved rate and the scheduling
// lag (send − due), next to two floors measured in the same run: a bare
// Go timer loop and the pacer's own wait (timer, thread sleep, spin)
// without sessions. The three run interleaved in rounds of a quarter of a
// second, so load from other processes falls on all of them alike.
func BenchmarkReplayRateLag(b *testing.B) {
	for _, rate := range []float64{20000, 50000} {
		b.Run(fmt.Sprintf("rate=%g", rate), func(b *testing.B) {
			const rounds = 4
			n := int(rate / rounds)
			recs := make([]*capture.Record, n)
			for i := range recs {
				recs[i] = &capture.Record{Time: int64(i), Session: uint64(i % 64), Query: "INSERT INTO t (k) VALUES (1)", Fingerprint: "INSERT INTO t (k) VALUES (?)"}
			}
			lag, timer, pacer := hdr.New(), hdr.New(), hdr.New()
			var ops int64
			var elapsed time.Duration
			for i := 0; i < b.N*rounds; i++ {
				opts := Options{Schedule: ScheduleOptions{Mode: ModeRate, Rate: rate},
					openRecords: func(context.Context) (recordSource, string, func() error, error) {
						return &memRecords{recs: append([]*capture.Record(nil), recs...)}, "", func() error { return nil }, nil
					}}
				run, err := Replay(context.Background(), opts, []NamedTarget{{"nop", nopTarget{}}})
				if err != nil {
					b.Fatal(err)
				}
				st := run.Targets[0]
				// The schedule spans (n−1)/rate: count n−1 intervals.
				ops += st.Ops - 1
				elapsed += st.Elapsed
				lag.Merge(st.Lag)
				timer.Merge(waitLoopLag(n, rate, func(due time.Time) {
					if d := time.Until(due); d > 0 {
						t := time.NewTimer(d)
						<-t.C
					}
				}))
				pacer.Merge(waitLoopLag(n, rate, func(due time.Time) {
					RealClock{}.WaitUntil(context.Background(), due, DefaultSpin)
				}))
			}
			achieved := float64(ops) / elapsed.Seconds()
			b.ReportMetric(achieved, "achieved-ops/s")
			b.ReportMetric(100*(achieved-rate)/rate, "achieved-err-%")
			us := func(ns int64) float64 { return float64(ns) / 1e3 }
			b.ReportMetric(us(lag.Quantile(.5)), "lag-p50-µs")
			b.ReportMetric(us(lag.Quantile(.99)), "lag-p99-µs")
			b.ReportMetric(us(lag.Max()), "lag-max-µs")
			b.ReportMetric(us(timer.Quantile(.5)), "timer-loop-p50-µs")
			b.ReportMetric(us(timer.Quantile(.99)), "timer-loop-p99-µs")
			b.ReportMetric(us(pacer.Quantile(.99)), "pacer-loop-p99-µs")
		})
	}
}
