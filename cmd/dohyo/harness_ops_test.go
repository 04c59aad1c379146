package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/embedded"
	"github.com/dohyo/dohyo/bindings/faulty"
)

// Helpers of the operations tests (*_ops_test.go): in-process servers,
// /metrics scraping, an in-test certificate authority.

// syncBuffer is a log sink safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// inproc is a dohyo server running in the test process (so tests can
// reach its backends, e.g. to inject faults).
type inproc struct {
	s      *server
	cancel context.CancelFunc
	done   chan error
	logs   *syncBuffer
	faulty map[string]*faulty.Backend // every backend, wrapped for fault injection
}

// opsConfig is a serve configuration on ephemeral ports over an in-memory
// embedded backend.
func opsConfig() Config {
	cfg := DefaultConfig()
	cfg.CQLAddr, cfg.HTTPAddr, cfg.Backend = "127.0.0.1:0", "127.0.0.1:0", "embedded://memory"
	cfg.ShutdownGrace = 5 * time.Second
	return cfg
}

func startInProcess(t *testing.T, cfg Config) *inproc {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ctx, cancel := context.WithCancel(context.Background())
	wrapped := map[string]*faulty.Backend{}
	s, err := newServerWith(ctx, cfg, log, serverHooks{wrapBackend: func(u string, b bindings.Backend) bindings.Backend {
		w := faulty.Wrap(b)
		wrapped[u] = w
		return w
	}})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	p := &inproc{s: s, cancel: cancel, done: make(chan error, 1), logs: logs, faulty: wrapped}
	go func() { p.done <- s.run(ctx, io.Discard) }()
	t.Cleanup(func() {
		if err := p.stop(); err != nil {
			t.Errorf("server: %v", err)
		}
		if t.Failed() {
			t.Logf("server log:\n%s", logs.String())
		}
	})
	return p
}

// stop shuts the server down and waits for run to return (idempotent).
func (p *inproc) stop() error {
	p.cancel()
	select {
	case err, ok := <-p.done:
		if ok {
			close(p.done)
		}
		return err
	case <-time.After(30 * time.Second):
		return context.DeadlineExceeded
	}
}

func (p *inproc) cqlAddr() string  { return p.s.cqlLn.Addr().String() }
func (p *inproc) httpAddr() string { return p.s.httpLn.Addr().String() }

// embedded returns the default backend for fault injection.
func (p *inproc) embedded(t *testing.T) *faulty.Backend {
	t.Helper()
	b := p.faulty[p.s.cfg.Backend]
	if _, ok := bindings.Capability[*embedded.Store](b); !ok {
		t.Fatalf("backend %s is not embedded", p.s.cfg.Backend)
	}
	return b
}

// cluster is a gocql configuration for addr with test timeouts.
func cluster(addr string) *gocql.ClusterConfig {
	c := gocql.NewCluster(addr)
	c.ProtoVersion = 4
	c.Timeout = 10 * time.Second
	c.ConnectTimeout = 10 * time.Second
	c.Consistency = gocql.One
	c.NumConns = 1
	c.DisableInitialHostLookup = true
	return c
}

func session(t *testing.T, c *gocql.ClusterConfig) *gocql.Session {
	t.Helper()
	s, err := c.CreateSession()
	if err != nil {
		t.Fatalf("gocql connect: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// sample is one line of the Prometheus text format.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

var (
	sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)`)
	labelPair  = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)
)

// scrape fetches and parses a /metrics page.
func scrape(t *testing.T, client *http.Client, url string) []sample {
	t.Helper()
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("scrape %s: %v", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape %s: %s", url, resp.Status)
	}
	var out []sample
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := sampleLine.FindStringSubmatch(sc.Text())
		if m == nil || strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			continue
		}
		s := sample{name: m[1], labels: map[string]string{}, value: v}
		for _, lp := range labelPair.FindAllStringSubmatch(m[2], -1) {
			s.labels[lp[1]] = lp[2]
		}
		out = append(out, s)
	}
	return out
}

// total sums the samples of name whose labels include match.
func total(samples []sample, name string, match map[string]string) (float64, bool) {
	sum, found := 0.0, false
next:
	for _, s := range samples {
		if s.name != name {
			continue
		}
		for k, v := range match {
			if s.labels[k] != v {
				continue next
			}
		}
		sum += s.value
		found = true
	}
	return sum, found
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// waitGoroutines polls until the goroutine count is back to at most max.
func waitGoroutines(t *testing.T, max int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= max {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%d goroutines left, want at most %d:\n%s", n, max, buf)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// poll waits until cond holds or the timeout passes.
func poll(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
