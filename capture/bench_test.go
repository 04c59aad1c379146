package capture

import (
	"context"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
)

// ycsbA generates YCSB workload A-like traffic as the proxy observes it:
// 50% reads / 50% single-field updates of prepared statements, zipfian keys
// "user<fnv hash>" (23 bytes), 100-byte values made like YCSB's
// RandomByteIterator (printable, ~5.3 bits of entropy per byte), 8 client
// connections, client timestamps, page size 5000, consistency ONE.
type ycsbA struct {
	rng  *rand.Rand
	zipf *rand.Zipf
	now  time.Time
	seq  [8]uint64
}

func newYCSBA(seed uint64) *ycsbA {
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	return &ycsbA{rng: rng, zipf: rand.NewZipf(rng, 1.01, 1, 1_000_000-1),
		now: time.Date(2025, 3, 4, 5, 0, 0, 0, time.UTC)}
}

var ycsbUpdates = func() []string {
	var out []string
	for i := 0; i < 10; i++ {
		out = append(out, "UPDATE usertable SET field"+strconv.Itoa(i)+" = ? WHERE y_id = ?")
	}
	return out
}()

func (g *ycsbA) key() []byte {
	h := fnv.New64a()
	var b [8]byte
	n := g.zipf.Uint64()
	for i := range b {
		b[i] = byte(n >> (8 * i))
	}
	h.Write(b[:])
	return []byte("user" + strconv.FormatUint(h.Sum64()>>1, 10))
}

// value fills 100 bytes the way YCSB does: one random int per 6 bytes,
// 5 or 6 bits each, offset into printable ASCII.
func (g *ycsbA) value() []byte {
	v := make([]byte, 100)
	shifts := [6]uint{0, 5, 10, 15, 20, 25}
	masks := [6]uint32{31, 63, 95, 31, 63, 95}
	for base := 0; base < len(v); base += 6 {
		r := g.rng.Uint32()
		for j := 0; j < 6 && base+j < len(v); j++ {
			v[base+j] = byte((r>>shifts[j])&masks[j]) + ' '
		}
	}
	return v
}

func (g *ycsbA) next() *bindings.Observation {
	g.now = g.now.Add(time.Duration(g.rng.ExpFloat64() * 10_000)) // ~100k ops/s
	conn := g.rng.IntN(len(g.seq))
	g.seq[conn]++
	o := &bindings.Observation{
		Time: g.now, Session: uint64(conn + 1), Seq: g.seq[conn], Source: bindings.SourceCQL,
		Keyspace: "ycsb", Prepared: true, Consistency: bindings.One, PageSize: 5000,
		Timestamp: g.now.UnixMicro() - 1234 - int64(g.rng.IntN(300)), HasTimestamp: true,
		Latency: time.Duration(200_000 + g.rng.ExpFloat64()*300_000),
	}
	if g.rng.IntN(2) == 0 {
		o.Query = "SELECT * FROM usertable WHERE y_id = ?"
		o.Values = []bindings.Value{{Bytes: g.key()}}
		o.ResultKind, o.Rows, o.Digest = bindings.ResultRows, 1, g.rng.Uint64()
	} else {
		o.Query = ycsbUpdates[g.rng.IntN(10)]
		o.Values = []bindings.Value{{Bytes: g.value()}, {Bytes: g.key()}}
		o.ResultKind = bindings.ResultVoid
	}
	return o
}

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func ycsbPool(n int) []*bindings.Observation {
	g := newYCSBA(42)
	out := make([]*bindings.Observation, n)
	for i := range out {
		out[i] = g.next()
	}
	return out
}

func benchWriter(b *testing.B, cfg WriterConfig) *Writer {
	b.Helper()
	cfg.Dir = b.TempDir()
	cfg.NodeID = "bench"
	w, err := NewWriter(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return w
}

// BenchmarkWriterThroughput measures records written per second with one
// core for the whole pipeline (Observe, encode, zstd, write). The producer
// yields when the queue is half full so nothing is dropped: the figure is
// sustained throughput, not the speed of dropping.
func BenchmarkWriterThroughput(b *testing.B) {
	for _, c := range []Compression{CompressFastest, CompressDefault} {
		b.Run(string(c), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
			pool := ycsbPool(1 << 14)
			w := benchWriter(b, WriterConfig{Compression: c})
			half := w.cfg.QueueSize / 2
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				if i%256 == 0 {
					for w.Stats().Queued > half {
						runtime.Gosched()
					}
				}
				w.Observe(pool[i%len(pool)])
			}
			if err := w.Close(context.Background()); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			cpu := cpuTime() - cpu0
			st := w.Stats()
			b.ReportMetric(float64(st.Records)/b.Elapsed().Seconds(), "rec/s")
			// Records per CPU-second: robust when the machine is shared.
			b.ReportMetric(float64(st.Records)/cpu.Seconds(), "rec/cpu-s")
			b.ReportMetric(float64(st.Dropped), "dropped")
		})
	}
}

// BenchmarkObserve is the cost a client goroutine pays per accepted
// request (the writer runs concurrently; the queue is flushed outside the
// timer before it fills, so nothing is dropped).
func BenchmarkObserve(b *testing.B) {
	pool := ycsbPool(1 << 12)
	w := benchWriter(b, WriterConfig{})
	limit := w.cfg.QueueSize - 2048
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%1024 == 0 && w.Stats().Queued > limit {
			b.StopTimer()
			w.Flush(context.Background())
			b.StartTimer()
		}
		w.Observe(pool[i%len(pool)])
	}
	b.StopTimer()
	w.Close(context.Background())
	b.ReportMetric(float64(w.Stats().Dropped), "dropped")
}

// BenchmarkObserveQueueFull: the writer is stuck on a blocked disk and the
// queue is full; Observe must still return at once (drop and count).
func BenchmarkObserveQueueFull(b *testing.B) {
	cfg := WriterConfig{QueueSize: 1024, FlushInterval: time.Millisecond}
	sink := gateSegments(&cfg)
	w := benchWriter(b, cfg)
	pool := ycsbPool(1 << 12)
	sink().hold()
	w.Observe(pool[0])
	<-sink().entered
	for i := 0; i < cfg.QueueSize; i++ {
		w.Observe(pool[i%len(pool)])
	}
	before := w.Stats().Dropped
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			w.Observe(pool[i%len(pool)])
			i++
		}
	})
	b.StopTimer()
	if got := w.Stats().Dropped - before; got != uint64(b.N) {
		b.Errorf("dropped %d of %d", got, b.N)
	}
	sink().releaseWrites()
	w.Close(context.Background())
}

// BenchmarkBytesPerRecord reports file bytes per record for YCSB-A-like
// traffic (run with -benchtime=200000x or more: headers and the first
// frame's definitions are amortised over b.N).
func BenchmarkBytesPerRecord(b *testing.B) {
	// Keep keys, keep only the lengths of the field values: what a replay
	// that regenerates YCSB-style filler needs.
	var lengthOnly []RedactRule
	for i := 0; i < 10; i++ {
		lengthOnly = append(lengthOnly, RedactRule{Column: "ycsb.usertable.field" + strconv.Itoa(i), Action: RedactLength})
	}
	cases := []struct {
		name string
		cfg  WriterConfig
	}{
		{"values/fastest", WriterConfig{Compression: CompressFastest}},
		{"values/default", WriterConfig{Compression: CompressDefault}},
		{"values/better", WriterConfig{Compression: CompressBetter}},
		{"value-lengths/fastest", WriterConfig{Compression: CompressFastest, Redact: lengthOnly}},
		{"value-lengths/default", WriterConfig{Compression: CompressDefault, Redact: lengthOnly}},
		{"value-lengths/better", WriterConfig{Compression: CompressBetter, Redact: lengthOnly}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			g := newYCSBA(7)
			w := benchWriter(b, c.cfg)
			half := w.cfg.QueueSize / 2
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%256 == 0 {
					for w.Stats().Queued > half {
						runtime.Gosched()
					}
				}
				w.Observe(g.next())
			}
			w.Close(context.Background())
			b.StopTimer()
			st := w.Stats()
			if st.Dropped > 0 {
				b.Fatalf("dropped %d records", st.Dropped)
			}
			s, err := Inspect(context.Background(), w.cfg.Dir)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(st.Bytes)/float64(st.Records), "B/record")
			b.ReportMetric(float64(s.RawBytes)/float64(st.Records), "raw-B/record")
		})
	}
}

// BenchmarkReader: records decoded per second from one segment.
func BenchmarkReader(b *testing.B) {
	w := benchWriter(b, WriterConfig{})
	g := newYCSBA(9)
	const n = 200_000
	for i := 0; i < n; i++ {
		if i%256 == 0 {
			for w.Stats().Queued > w.cfg.QueueSize/2 {
				runtime.Gosched()
			}
		}
		w.Observe(g.next())
	}
	w.Close(context.Background())
	segs, _ := ReadDir(w.cfg.Dir)
	path := segs[0].Path
	b.ReportAllocs()
	b.ResetTimer()
	var r *Reader
	for i := 0; i < b.N; i++ {
		if r == nil {
			var err error
			if r, err = Open(path); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := r.Next(); err == io.EOF {
			r.Close()
			r = nil
			i--
		} else if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rec/s")
}
