package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The end-to-end tests run the real dohyo binary, built once per test run.
// A build of dohyo per test binary: with the race detector for tests,
// without it for memory figures and benchmarks (a race build's RSS and
// speed say nothing about production).
type dohyoBuild struct {
	once sync.Once
	path string
	err  error
}

var raceBuild, plainBuild dohyoBuild

func (b *dohyoBuild) get(t testing.TB, flags ...string) string {
	t.Helper()
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "dohyo-bin-")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, "dohyo")
		args := append(append([]string{"build"}, flags...), "-o", b.path, ".")
		if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// dohyoBinary is dohyo built with the race detector.
func dohyoBinary(t testing.TB) string { return raceBuild.get(t, "-race") }

// plainBinary is dohyo built without the race detector.
func plainBinary(t testing.TB) string { return plainBuild.get(t) }

// serveProc is a running `dohyo serve`.
type serveProc struct {
	cmd      *exec.Cmd
	CQLAddr  string
	HTTPAddr string
	mu       sync.Mutex
	output   strings.Builder
	done     chan struct{}
	exitErr  error
}

var listenLine = regexp.MustCompile(`^\s*(CQL|HTTP):\s+(?:http://)?(\S+)`)

// startServe runs `dohyo serve` on ephemeral ports with the given extra
// arguments and waits until it prints where it listens.
func startServe(t testing.TB, args ...string) *serveProc {
	t.Helper()
	return startServeBin(t, dohyoBinary(t), nil, args...)
}

// startServeBin is startServe with a given build of dohyo (benchmarks and
// memory measurements use one without the race detector) and extra
// environment.
func startServeBin(t testing.TB, bin string, env []string, args ...string) *serveProc {
	t.Helper()
	all := append([]string{"serve", "--cql-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0"}, args...)
	cmd := exec.Command(bin, all...)
	cmd.Dir = t.TempDir()
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &serveProc{cmd: cmd, done: make(chan struct{})}
	cmd.Stderr = writerFunc(p.log)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		signalled := false
		for sc.Scan() {
			line := sc.Text()
			p.log([]byte(line + "\n"))
			if m := listenLine.FindStringSubmatch(line); m != nil {
				p.mu.Lock()
				if m[1] == "CQL" {
					p.CQLAddr = m[2]
				} else {
					p.HTTPAddr = m[2]
				}
				both := p.CQLAddr != "" && p.HTTPAddr != ""
				p.mu.Unlock()
				if both && !signalled {
					signalled = true
					close(ready)
				}
			}
		}
	}()
	go func() {
		p.exitErr = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() { p.stop(t) })
	select {
	case <-ready:
	case <-p.done:
		t.Fatalf("dohyo serve exited early: %v\n%s", p.exitErr, p.Output())
	case <-time.After(60 * time.Second):
		t.Fatalf("dohyo serve did not report its addresses within 60s\n%s", p.Output())
	}
	return p
}

func (p *serveProc) log(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.output.Write(b)
}

// Output is everything the process printed so far.
func (p *serveProc) Output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.output.String()
}

// stop sends SIGTERM and waits for a graceful exit.
func (p *serveProc) stop(t testing.TB) {
	t.Helper()
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		if p.exitErr != nil {
			t.Errorf("dohyo serve exited with %v\n%s", p.exitErr, p.Output())
		}
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
		t.Errorf("dohyo serve did not stop within 30s of SIGTERM\n%s", p.Output())
	}
	if t.Failed() {
		t.Logf("dohyo serve output:\n%s", p.Output())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// externalTool returns the path of a tool named by an environment variable
// (set by scripts/with-backends.sh). Without it the test is skipped, except
// under CI=true where a missing tool is a failure.
func externalTool(t *testing.T, env string) string {
	t.Helper()
	if v := os.Getenv(env); v != "" {
		return v
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not set: CI requires this real client (run via make test)", env)
	}
	t.Skipf("%s not set; run via `make test` to use the real client", env)
	return ""
}

// runTool runs a command with a deadline and returns its combined output.
func runTool(t *testing.T, timeout time.Duration, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

var _ io.Writer = writerFunc(nil)

// serveBackends lists the backend URLs the client tests run dohyo serve
// on: the embedded store always, and HBase when DOHYO_TEST_HBASE_ZK names
// one (required under CI=true). Each HBase run gets its own dohyo catalog
// so tests that reuse keyspace names stay independent.
func serveBackends(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{"embedded": "embedded://memory"}
	zk := os.Getenv("DOHYO_TEST_HBASE_ZK")
	if zk == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("DOHYO_TEST_HBASE_ZK is not set: CI runs the client tests on HBase too (run via make test)")
		}
		return out
	}
	out["hbase"] = fmt.Sprintf("hbase://%s?salt=4&catalog=t%d", zk, time.Now().UnixNano())
	return out
}
