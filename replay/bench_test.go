package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/embedded"
	"github.com/dohyo/dohyo/capture"
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
	for i := 0; i < n; i++ {
		r := &capture.Record{Time: t0.Add(time.Duration(i) * 50 * time.Microsecond).UnixNano(), Session: uint64(i % 32), Seq: uint64(i / 32),
			Keyspace: "ks", Consistency: bindings.One, Prepared: true, Latency: 100 * time.Microsecond}
		if i%4 == 3 {
			r.Query, r.Values, r.ResultKind = "SELECT k, c, v FROM t WHERE k = ? AND c = ?", []capture.Value{i32(i % 100), i32(i - 3)}, bindings.ResultRows
		} else {
			r.Query, r.Values = "INSERT INTO t (k, c, v) VALUES (?, ?, 'x')", []capture.Value{i32(i % 100), i32(i)}
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

// BenchmarkReplayMaxVsDecode compares the engine at --max against an
// in-memory embedded store with merely reading and decoding the capture.
func BenchmarkReplayMaxVsDecode(b *testing.B) {
	const n = 40000
	dir := writeBenchCapture(b, n)
	ctx := context.Background()
	var decode, replay time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		m, err := capture.Merge(ctx, dir)
		if err != nil {
			b.Fatal(err)
		}
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
		m.Close()
		if cnt != n {
			b.Fatalf("decoded %d records, want %d", cnt, n)
		}
		decode += time.Since(start)

		tb, err := openBenchEmbedded()
		if err != nil {
			b.Fatal(err)
		}
		start = time.Now()
		run, err := Replay(ctx, Options{Captures: []string{dir}, CreateSchema: true,
			Schedule: ScheduleOptions{Mode: ModeMax, Concurrency: 8}}, []NamedTarget{{"mem", NewBackendTarget(tb)}})
		if err != nil {
			b.Fatal(err)
		}
		replay += time.Since(start)
		tb.Close()
		if run.Targets[0].Ops != n || run.Targets[0].Unexpected != 0 {
			b.Fatalf("replayed %d ops, %d errors (%v)", run.Targets[0].Ops, run.Targets[0].Unexpected, run.Targets[0].Errors)
		}
	}
	b.ReportMetric(float64(n*b.N)/decode.Seconds(), "decode-rec/s")
	b.ReportMetric(float64(n*b.N)/replay.Seconds(), "replay-ops/s")
	b.ReportMetric(float64(replay)/float64(decode), "replay/decode")
}

type nopTarget struct{}

func (nopTarget) Do(context.Context, *Op) Outcome           { return Outcome{} }
func (nopTarget) ApplySchema(context.Context, string) error { return nil }
func (nopTarget) Close() error                              { return nil }

// BenchmarkReplayRateLag runs --rate on the real clock against a no-op
// target and reports the achieved rate and the scheduling lag.
func BenchmarkReplayRateLag(b *testing.B) {
	for _, rate := range []float64{20000, 50000} {
		b.Run(fmt.Sprintf("rate=%g", rate), func(b *testing.B) {
			n := int(rate) // one second of schedule
			recs := make([]*capture.Record, n)
			for i := range recs {
				recs[i] = &capture.Record{Time: int64(i), Session: uint64(i % 64), Query: "INSERT INTO t (k) VALUES (1)", Fingerprint: "INSERT INTO t (k) VALUES (?)"}
			}
			var achieved, p99, maxLag float64
			for i := 0; i < b.N; i++ {
				opts := Options{Schedule: ScheduleOptions{Mode: ModeRate, Rate: rate},
					openRecords: func(context.Context) (recordSource, string, func() error, error) {
						return &memRecords{recs: append([]*capture.Record(nil), recs...)}, "", func() error { return nil }, nil
					}}
				run, err := Replay(context.Background(), opts, []NamedTarget{{"nop", nopTarget{}}})
				if err != nil {
					b.Fatal(err)
				}
				st := run.Targets[0]
				achieved += float64(st.Ops) / st.Elapsed.Seconds()
				p99 += float64(st.Lag.Quantile(.99)) / 1e3
				maxLag += float64(st.Lag.Max()) / 1e3
			}
			b.ReportMetric(achieved/float64(b.N), "achieved-ops/s")
			b.ReportMetric(p99/float64(b.N), "lag-p99-µs")
			b.ReportMetric(maxLag/float64(b.N), "lag-max-µs")
		})
	}
}

func openBenchEmbedded() (bindings.Backend, error) {
	return embedded.OpenURL(context.Background(), "embedded://memory")
}

// BenchmarkReplayMaxNop is the engine alone: decoded capture, --max, a
// target that does nothing.
func BenchmarkReplayMaxNop(b *testing.B) {
	const n = 40000
	dir := writeBenchCapture(b, n)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		run, err := Replay(context.Background(), Options{Captures: []string{dir},
			Schedule: ScheduleOptions{Mode: ModeMax, Concurrency: 8}}, []NamedTarget{{"nop", nopTarget{}}})
		if err != nil {
			b.Fatal(err)
		}
		if run.Targets[0].Ops != n {
			b.Fatalf("ops %d, want %d", run.Targets[0].Ops, n)
		}
	}
	b.ReportMetric(float64(n*b.N)/time.Since(start).Seconds(), "ops/s")
}
