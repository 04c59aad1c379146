package readme

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// env returns os.Environ with extra NAME=VALUE entries appended, without
// dohyo serve's DOHYO_* settings (a user's shell has none) and CI, so that
// the blocks run as on a user's machine.
func env(extra ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name == "CI" || (strings.HasPrefix(name, "DOHYO_") && !strings.HasPrefix(name, "DOHYO_TEST_") && !strings.HasPrefix(name, "DOHYO_IT_")) {
			continue
		}
		out = append(out, kv)
	}
	return append(out, extra...)
}

// freePort returns a loopback port nothing listens on right now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// result is a finished block.
type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", r.code, r.stdout, r.stderr)
}

// runBlock runs script with bash -e (as a user pasting it into a terminal
// that stops at the first failure would) in dir, stdin fed from stdin.
func runBlock(t *testing.T, dir string, environ []string, script, stdin string, timeout time.Duration) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-c", script)
	cmd.Dir, cmd.Env = dir, environ
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if err != nil {
		r.code = -1
		if ee, ok := err.(*exec.ExitError); ok {
			r.code = ee.ExitCode()
		}
		if ctx.Err() != nil {
			t.Fatalf("block did not finish within %v:\n%s\n%s", timeout, script, r)
		}
	}
	t.Logf("ran in %v:\n%s", time.Since(start).Round(time.Millisecond), script)
	return r
}

// terminal is a block running in the foreground of "terminal 1".
type terminal struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer // stdout and stderr, interleaved
	done chan struct{}
	err  error
}

func (p *terminal) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

func (p *terminal) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Write(b)
}

// startBlock runs script in its own process group and returns once a line
// of its output (standard output or error) satisfies ready (or fails the
// test after timeout).
func startBlock(t *testing.T, dir string, environ []string, script string, ready func(string) bool, timeout time.Duration) *terminal {
	t.Helper()
	cmd := exec.Command("bash", "-e", "-o", "pipefail", "-c", script)
	cmd.Dir, cmd.Env = dir, environ
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p := &terminal{cmd: cmd, done: make(chan struct{})}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-p.done
		}
	})
	isReady := make(chan struct{})
	var signal sync.Once
	var readers sync.WaitGroup
	for _, r := range []io.Reader{stdout, stderr} {
		readers.Add(1)
		go func() {
			defer readers.Done()
			sc := bufio.NewScanner(r)
			for sc.Scan() {
				fmt.Fprintln(p, sc.Text())
				if ready(sc.Text()) {
					signal.Do(func() { close(isReady) })
				}
			}
			_, _ = io.Copy(p, r)
		}()
	}
	go func() {
		readers.Wait()
		p.err = cmd.Wait()
		close(p.done)
	}()
	start := time.Now()
	select {
	case <-isReady:
		t.Logf("ready after %v:\n%s", time.Since(start).Round(time.Millisecond), script)
	case <-p.done:
		t.Fatalf("block exited before it was ready (%v):\n%s\n%s", p.err, script, p.output())
	case <-time.After(timeout):
		t.Fatalf("block not ready within %v:\n%s\n%s", timeout, script, p.output())
	}
	return p
}

// interrupt is Ctrl-C in the block's terminal: SIGINT to its process
// group. It waits for the block to end and fails unless it exits 0.
func (p *terminal) interrupt(t *testing.T, timeout time.Duration) string {
	t.Helper()
	if err := syscall.Kill(-p.cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
	case <-time.After(timeout):
		t.Fatalf("still running %v after Ctrl-C:\n%s", timeout, p.output())
	}
	if p.err != nil {
		t.Fatalf("exit after Ctrl-C: %v\n%s", p.err, p.output())
	}
	return p.output()
}
