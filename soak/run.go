package soak

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gocql/gocql"
)

// Run validates cfg, checks that every target and metrics URL answers
// (failing fast, naming the one that does not), prepares the keyspaces,
// drives the workload for cfg.Duration while the faults run on schedule,
// reads everything back and judges the run. progress gets a line per
// sample and per fault (nil: discarded).
func Run(ctx context.Context, cfg Config, progress io.Writer) (*Report, error) {
	cfg = cfg.Defaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if progress == nil {
		progress = io.Discard
	}
	hc := &http.Client{Timeout: cfg.Connect}
	if err := reachable(ctx, cfg, hc); err != nil {
		return nil, err
	}
	consistency, err := gocql.ParseConsistencyWrapper(cfg.Consistency)
	if err != nil {
		return nil, fmt.Errorf("--consistency %q: %w", cfg.Consistency, err)
	}
	setupTimeout := max(cfg.Timeout, time.Minute) // DDL on a busy HBase or cluster takes seconds
	setup, err := session(cfg, consistency, setupTimeout)
	if err != nil {
		return nil, err
	}
	kss := make([]*keyspace, len(cfg.Keyspaces))
	for i, name := range cfg.Keyspaces {
		kss[i] = newKeyspace(name, cfg.ValueSize)
		if err := kss[i].setup(ctx, setup, cfg.Replication); err != nil {
			setup.Close()
			return nil, err
		}
	}
	s, err := session(cfg, consistency, cfg.Timeout)
	if err != nil {
		setup.Close()
		return nil, err
	}
	defer s.Close()

	r := &Report{Config: reportConfig(cfg), Started: time.Now()}
	rec := newRecorder(r.Started, cfg.Period)
	logf(progress, "soak: %.0f requests/s on %s through %s for %s, %d fault(s)", cfg.Rate, strings.Join(cfg.Keyspaces, ", "),
		strings.Join(cfg.Targets, ", "), cfg.Duration, len(cfg.Faults))
	faults := runFaults(ctx, cfg.Faults, cfg.Duration, cfg.FaultGrace, rec, progress)
	samples := sampleLoop(ctx, cfg, hc, rec, progress)
	drive(ctx, cfg, s, kss, rec)
	r.Elapsed = time.Since(r.Started).Seconds()
	r.Samples = samples()
	r.Faults = faults()

	t := rec.totals()
	r.Ops, r.ErrorClasses, r.ErrorExamples, r.Errors, r.ErrorsDropped, r.Stale, r.Periods =
		t.Ops, t.Classes, t.Examples, t.Events, t.Dropped, t.Stale, t.Periods
	countFaultErrors(r.Errors, r.Faults)
	if r.Warmup = warmupRun(cfg.Warmup); r.Warmup != nil {
		r.Warmup.countErrors(r.Errors)
	}
	if n := len(r.Periods); n > 0 && r.Periods[n-1].To > r.Elapsed {
		r.Periods[n-1].To = r.Elapsed // the last period ends with the run
	}
	logf(progress, "soak: reading back %d keyspace(s)", len(kss))
	for _, k := range kss {
		r.ReadBack = append(r.ReadBack, k.readBack(ctx, setup))
	}
	setup.Close()
	r.Verdict = judge(r)
	return r, ctx.Err()
}

// reachable dials every target and fetches every metrics URL once.
func reachable(ctx context.Context, cfg Config, hc *http.Client) error {
	d := net.Dialer{Timeout: cfg.Connect}
	for _, t := range cfg.Targets {
		c, err := d.DialContext(ctx, "tcp", t)
		if err != nil {
			return fmt.Errorf("soak: target %s unreachable: %w", t, err)
		}
		c.Close()
	}
	for _, u := range cfg.Metrics {
		if p := scrape(ctx, hc, u); !p.Up {
			return fmt.Errorf("soak: metrics %s unreachable: %s", u, p.Error)
		}
	}
	return nil
}

func session(cfg Config, c gocql.Consistency, timeout time.Duration) (*gocql.Session, error) {
	cl := gocql.NewCluster(cfg.Targets...)
	cl.Consistency = c
	cl.Timeout = timeout
	cl.ConnectTimeout = cfg.Connect
	cl.NumConns = 2
	cl.ProtoVersion = cfg.Protocol
	cl.MaxWaitSchemaAgreement = time.Minute
	s, err := cl.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("soak: connect to %s: %w", strings.Join(cfg.Targets, ", "), err)
	}
	return s, nil
}

// drive sends requests at cfg.Rate (open loop: each has an intended send
// time, and latency counts from it) until cfg.Duration has passed, then
// waits for those in flight. Each keyspace has its own schedule (its share
// of the rate) and its own workers (its share of cfg.Workers), so a
// backend that stalls delays its own requests, not the others'.
func drive(ctx context.Context, cfg Config, s *gocql.Session, kss []*keyspace, rec *recorder) {
	var wg sync.WaitGroup
	for i, k := range kss {
		wg.Add(1)
		go func() {
			defer wg.Done()
			driveKeyspace(ctx, cfg, s, k, i, len(kss), rec)
		}()
	}
	wg.Wait()
}

// driveKeyspace is keyspace k's share (the i-th of n) of drive.
func driveKeyspace(ctx context.Context, cfg Config, s *gocql.Session, k *keyspace, i, n int, rec *recorder) {
	workers := max(1, cfg.Workers/n)
	jobs := make(chan time.Time, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i*cfg.Workers+w), uint64(rec.start.UnixNano())))
			for due := range jobs {
				rctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
				op, o := k.do(rctx, s, pickOp(cfg.Mix, rng), rng)
				cancel()
				rec.record(k.name, op, due, time.Now(), o)
			}
		}()
	}
	interval := time.Duration(float64(time.Second) * float64(n) / cfg.Rate)
	first := rec.start.Add(time.Duration(i) * interval / time.Duration(n)) // keyspaces interleave
	end := rec.start.Add(cfg.Duration)
	t := time.NewTimer(0)
	defer t.Stop()
loop:
	for j := int64(0); ; j++ {
		due := first.Add(time.Duration(j) * interval)
		if !due.Before(end) {
			break
		}
		if d := time.Until(due); d > 0 {
			t.Reset(d)
			select {
			case <-ctx.Done():
				break loop
			case <-t.C:
			}
		}
		select {
		case jobs <- due:
		case <-ctx.Done():
			break loop
		}
	}
	close(jobs)
	wg.Wait()
}

// runFaults starts each fault at its time; the returned function waits for
// them (those not yet due when the run ends are recorded as not run). A
// fault still running at deadline (the run's end plus its grace) is
// stopped, its process group killed, and recorded as failed: a hung
// command does not hang the soak.
func runFaults(ctx context.Context, faults []Fault, run, grace time.Duration, rec *recorder, progress io.Writer) func() []FaultRun {
	deadline := rec.start.Add(run + grace)
	out := make([]FaultRun, len(faults))
	var wg sync.WaitGroup
	for i, f := range faults {
		out[i] = FaultRun{Name: f.Name, Command: f.Command, At: f.At.Seconds(), Window: f.Window.Seconds()}
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-time.After(time.Until(rec.start.Add(f.At))):
			case <-ctx.Done():
				out[i].Err = "not run: " + ctx.Err().Error()
				return
			}
			out[i].Start = rec.since(time.Now())
			logf(progress, "soak: fault %s: running", f.Name)
			fctx, cancel := context.WithDeadline(ctx, deadline)
			text, err := f.run(fctx)
			hung := fctx.Err() == context.DeadlineExceeded
			cancel()
			out[i].End = rec.since(time.Now())
			out[i].Output = tail(text, 2048)
			switch {
			case hung:
				out[i].Err = fmt.Sprintf("still running %s after the run ended: stopped", grace)
			case err != nil:
				out[i].Err = err.Error()
			}
			logf(progress, "soak: fault %s: done after %.1f s (%v)", f.Name, out[i].End-out[i].Start, cmpOr(out[i].Err, "ok"))
		}()
	}
	return func() []FaultRun {
		wg.Wait()
		return out
	}
}

// sampleLoop cuts the clients' interval and scrapes every metrics URL each
// cfg.Sample; the returned function stops it (after a last sample) and
// returns the samples.
func sampleLoop(ctx context.Context, cfg Config, hc *http.Client, rec *recorder, progress io.Writer) func() []Sample {
	var out []Sample
	stop := make(chan struct{})
	done := make(chan struct{})
	take := func(now time.Time, last time.Time) {
		s := Sample{T: rec.since(now), Client: rec.cut(now.Sub(last))}
		s.Procs = scrapeAll(ctx, hc, cfg.Metrics, min(cfg.Sample, 5*time.Second))
		out = append(out, s)
		rss := ""
		for _, p := range s.Procs {
			if p.Up {
				rss += fmt.Sprintf(" rss %s", mib(p.RSS))
			} else {
				rss += " (down)"
			}
		}
		logf(progress, "soak: %6.0f s %7.0f req/s p99 %7.2f ms errors %d%s", s.T, s.Client.Rate, s.Client.P99, s.Client.Errors, rss)
	}
	go func() {
		defer close(done)
		tk := time.NewTicker(cfg.Sample)
		defer tk.Stop()
		last := rec.start
		for {
			select {
			case now := <-tk.C:
				take(now, last)
				last = now
			case <-stop:
				if now := time.Now(); now.Sub(last) > cfg.Sample/10 {
					take(now, last)
				}
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return func() []Sample {
		close(stop)
		<-done
		return out
	}
}

// readBack scans the keyspace's tables (paged, each page retried) and
// compares them with the ledger.
func (k *keyspace) readBack(ctx context.Context, s *gocql.Session) ReadBack {
	l := &k.ledger
	rb := ReadBack{Keyspace: k.name, Written: l.next.Load()}
	l.mu.Lock()
	rb.Acked = l.nAcked
	l.mu.Unlock()
	retry := &gocql.SimpleRetryPolicy{NumRetries: 5}
	found := make([]uint64, (rb.Written+63)/64)
	it := s.Query(fmt.Sprintf("SELECT k, v FROM %s.soak_rows", k.name)).WithContext(ctx).PageSize(5000).Idempotent(true).RetryPolicy(retry).Iter()
	var key, v int64
	for it.Scan(&key, &v) {
		rb.Found++
		switch {
		case key < 0 || key >= rb.Written:
			rb.Phantom++
		case v != rowValue(key):
			rb.Wrong++
		default:
			found[key/64] |= 1 << (key % 64)
		}
	}
	if err := it.Close(); err != nil {
		rb.Err = "scan soak_rows: " + err.Error()
		return rb
	}
	for key := int64(0); key < rb.Written; key++ {
		if l.isAcked(key) && found[key/64]&(1<<(key%64)) == 0 {
			rb.Lost++
			if len(rb.Examples) < 10 {
				rb.Examples = append(rb.Examples, key)
			}
		}
	}
	var err error
	if rb.Counters, err = k.readKeys(ctx, s, "soak_counters", "c", l.counters[:], retry); err != nil {
		rb.Err = err.Error()
	}
	if rb.LWT, err = k.readKeys(ctx, s, "soak_lwt", "v", l.lwt[:], retry); err != nil {
		rb.Err = err.Error()
	}
	return rb
}

// readKeys reads col of every key of table and pairs it with the ledger
// (a key never read back has value 0).
func (k *keyspace) readKeys(ctx context.Context, s *gocql.Session, table, col string, want []pending, retry gocql.RetryPolicy) ([]KeyCheck, error) {
	k.ledger.mu.Lock()
	out := make([]KeyCheck, len(want))
	for i, p := range want {
		out[i] = KeyCheck{Key: i, Acked: p.Acked, Unknown: p.Unknown}
	}
	k.ledger.mu.Unlock()
	it := s.Query(fmt.Sprintf("SELECT k, %s FROM %s.%s", col, k.name, table)).WithContext(ctx).Idempotent(true).RetryPolicy(retry).Iter()
	var key int
	var v int64
	for it.Scan(&key, &v) {
		if key >= 0 && key < len(out) {
			out[key].Value = v
		}
	}
	if err := it.Close(); err != nil {
		return out, fmt.Errorf("scan %s: %w", table, err)
	}
	return out, nil
}

func logf(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
