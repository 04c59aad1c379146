package load

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/replay/hdr"
)

// Op names an operation kind.
type Op string

// Operations.
const (
	OpRead   Op = "READ"
	OpUpdate Op = "UPDATE"
	OpInsert Op = "INSERT"
)

// Stats are one operation's results.
type Stats struct {
	Latency  *hdr.Histogram // from the actual send, ns
	Intended *hdr.Histogram // from the intended time (rate mode), ns
	Errors   uint64
}

// Report is the outcome of a run.
type Report struct {
	Config  Config
	Elapsed time.Duration
	Ops     map[Op]*Stats
}

// Throughput is successful operations per second over the run.
func (r *Report) Throughput() float64 {
	var n uint64
	for _, s := range r.Ops {
		n += s.Latency.Count()
	}
	return float64(n) / r.Elapsed.Seconds()
}

// Write prints the report in YCSB's "[OP], Metric, value" form (µs).
func (r *Report) Write(w io.Writer) {
	fmt.Fprintf(w, "[OVERALL], RunTime(ms), %d\n", r.Elapsed.Milliseconds())
	fmt.Fprintf(w, "[OVERALL], Throughput(ops/sec), %.1f\n", r.Throughput())
	for _, op := range []Op{OpRead, OpUpdate, OpInsert} {
		s, ok := r.Ops[op]
		if !ok {
			continue
		}
		writeHist(w, string(op), s.Latency)
		if s.Intended.Count() > 0 {
			writeHist(w, "Intended-"+string(op), s.Intended)
		}
		fmt.Fprintf(w, "[%s], Return=ERROR, %d\n", op, s.Errors)
	}
}

func writeHist(w io.Writer, name string, h *hdr.Histogram) {
	us := func(v int64) float64 { return float64(v) / 1e3 }
	fmt.Fprintf(w, "[%s], Operations, %d\n", name, h.Count())
	fmt.Fprintf(w, "[%s], AverageLatency(us), %.1f\n", name, h.Mean()/1e3)
	fmt.Fprintf(w, "[%s], 50thPercentileLatency(us), %.1f\n", name, us(h.Quantile(0.50)))
	fmt.Fprintf(w, "[%s], 95thPercentileLatency(us), %.1f\n", name, us(h.Quantile(0.95)))
	fmt.Fprintf(w, "[%s], 99thPercentileLatency(us), %.1f\n", name, us(h.Quantile(0.99)))
	fmt.Fprintf(w, "[%s], 99.9PercentileLatency(us), %.1f\n", name, us(h.Quantile(0.999)))
	fmt.Fprintf(w, "[%s], MaxLatency(us), %.1f\n", name, us(h.Max()))
}

// Connect opens a gocql session to cfg.Hosts.
func Connect(cfg Config) (*gocql.Session, error) {
	cluster := gocql.NewCluster(strings.Split(cfg.Hosts, ",")...)
	cluster.ProtoVersion = cfg.Proto
	cluster.NumConns = cfg.Conns
	cluster.Timeout = 10 * time.Second
	cluster.ConnectTimeout = 10 * time.Second
	cluster.Consistency = gocql.One
	s, err := cluster.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("connect %s: %w", cfg.Hosts, err)
	}
	return s, nil
}

// Run loads records (unless SkipLoad) and runs the workload for Duration.
func Run(ctx context.Context, cfg Config, log io.Writer) (*Report, error) {
	readFrac, inserts, err := mix(cfg.Workload)
	if err != nil {
		return nil, err
	}
	s, err := Connect(cfg)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if !cfg.SkipLoad { // with records loaded before, the table exists (and DDL is slow on a busy Cassandra)
		if err := setup(ctx, s, cfg); err != nil {
			return nil, err
		}
	}
	value := strings.Repeat("x", cfg.ValueSize)
	insert := fmt.Sprintf("INSERT INTO %s.usertable (y_id, field0) VALUES (?, ?)", cfg.Keyspace)
	if !cfg.SkipLoad {
		logf(log, "loading %d records", cfg.Records)
		if err := loadRecords(ctx, s, insert, value, cfg); err != nil {
			return nil, err
		}
	}
	logf(log, "running workload %s: %d threads for %s", cfg.Workload, cfg.Threads, cfg.Duration)
	return runPhase(ctx, s, cfg, readFrac, inserts, insert, value)
}

func setup(ctx context.Context, s *gocql.Session, cfg Config) error {
	stmts := []string{
		fmt.Sprintf("CREATE KEYSPACE IF NOT EXISTS %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", cfg.Keyspace),
		fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s.usertable (y_id text PRIMARY KEY, field0 text)", cfg.Keyspace),
	}
	for _, q := range stmts {
		if err := s.Query(q).WithContext(ctx).Exec(); err != nil {
			return fmt.Errorf("setup %q: %w", q, err)
		}
	}
	return nil
}

func key(i int) string { return fmt.Sprintf("user%012d", i) }

func loadRecords(ctx context.Context, s *gocql.Session, insert, value string, cfg Config) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errc := make(chan error, cfg.Threads)
	for w := 0; w < cfg.Threads; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= cfg.Records || ctx.Err() != nil {
					return
				}
				if err := s.Query(insert, key(i), value).WithContext(ctx).Exec(); err != nil {
					errc <- fmt.Errorf("load record %d: %w", i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	return <-errc
}

// runPhase runs Threads workers. In rate mode operation i of the whole run
// is due at start + i/rate and worker w takes every Threads-th operation, so
// a slow response delays later operations of that worker and the delay shows
// in the intended-time latency.
func runPhase(ctx context.Context, s *gocql.Session, cfg Config, readFrac float64, inserts bool, insert, value string) (*Report, error) {
	read := fmt.Sprintf("SELECT y_id, field0 FROM %s.usertable WHERE y_id = ?", cfg.Keyspace)
	update := fmt.Sprintf("UPDATE %s.usertable SET field0 = ? WHERE y_id = ?", cfg.Keyspace)
	ctx, cancel := context.WithTimeout(ctx, cfg.Duration)
	defer cancel()
	var nextInsert atomic.Int64
	nextInsert.Store(int64(cfg.Records))
	per := make([]map[Op]*Stats, cfg.Threads)
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < cfg.Threads; w++ {
		stats := map[Op]*Stats{}
		per[w] = stats
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			timer := time.NewTimer(0)
			defer timer.Stop()
			for n := 0; ; n++ {
				var due time.Time
				if cfg.Rate > 0 {
					i := float64(n*cfg.Threads + w)
					due = start.Add(time.Duration(i / cfg.Rate * float64(time.Second)))
					if d := time.Until(due); d > 0 {
						timer.Reset(d)
						select {
						case <-ctx.Done():
							return
						case <-timer.C:
						}
					}
				}
				if ctx.Err() != nil {
					return
				}
				op, q, args := pick(rng, readFrac, inserts, &nextInsert, cfg.Records, read, update, insert, value)
				st := stats[op]
				if st == nil {
					st = &Stats{Latency: hdr.New(), Intended: hdr.New()}
					stats[op] = st
				}
				sent := time.Now()
				var err error
				if op == OpRead {
					var k, v string
					err = s.Query(q, args...).WithContext(ctx).Scan(&k, &v)
				} else {
					err = s.Query(q, args...).WithContext(ctx).Exec()
				}
				done := time.Now()
				if err != nil {
					if ctx.Err() != nil {
						return
					}
					st.Errors++
					continue
				}
				st.Latency.Record(int64(done.Sub(sent)))
				if !due.IsZero() {
					st.Intended.Record(int64(done.Sub(due)))
				}
			}
		}(w)
	}
	wg.Wait()
	rep := &Report{Config: cfg, Elapsed: time.Since(start), Ops: map[Op]*Stats{}}
	for _, stats := range per {
		for op, st := range stats {
			if rep.Ops[op] == nil {
				rep.Ops[op] = &Stats{Latency: hdr.New(), Intended: hdr.New()}
			}
			rep.Ops[op].Latency.Merge(st.Latency)
			rep.Ops[op].Intended.Merge(st.Intended)
			rep.Ops[op].Errors += st.Errors
		}
	}
	return rep, nil
}

func pick(rng *rand.Rand, readFrac float64, inserts bool, next *atomic.Int64, records int,
	read, update, insert, value string) (Op, string, []any) {
	if inserts {
		return OpInsert, insert, []any{key(int(next.Add(1))), value}
	}
	k := key(rng.IntN(records))
	if rng.Float64() < readFrac {
		return OpRead, read, []any{k}
	}
	return OpUpdate, update, []any{value, k}
}
