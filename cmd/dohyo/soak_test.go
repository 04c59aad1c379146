package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dohyo/dohyo/soak"
)

// runSoakCLI runs `dohyo soak` with args and returns its output and exit code.
func runSoakCLI(t *testing.T, bin string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, append([]string{"soak"}, args...)...).CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &ee):
		return string(out), ee.ExitCode()
	}
	t.Fatalf("dohyo soak: %v\n%s", err, out)
	return "", -1
}

func readSoakJSON(t *testing.T, dir string) *soak.Report {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "soak.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r soak.Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// TestSoakCommand runs `dohyo soak` against a dohyo on the embedded store:
// a run whose fault (dohyo frozen by SIGSTOP for 2 s, inside a long
// request timeout) costs latency but no error passes and says so in its
// report; a freeze that outlasts its declared window, with a short request
// timeout, fails the verdict on "errors outside fault windows" (exit 3);
// nonsense flags and an unreachable target are refused, named (exit 1).
func TestSoakCommand(t *testing.T) {
	bin := plainBinary(t)
	p := startServeBin(t, bin, nil)
	pid := p.cmd.Process.Pid
	metrics := "http://" + p.HTTPAddr + "/metrics"

	t.Run("pass", func(t *testing.T) {
		dir := t.TempDir()
		out, code := runSoakCLI(t, bin, "--target", p.CQLAddr, "--keyspace", "soak_pass", "--rate", "150", "--duration", "16s",
			"--sample", "1s", "--period", "8s", "--timeout", "60s", "--metrics", metrics, "--out", dir,
			"--max-rss-slope", "1000000", // a 16 s run on the embedded store grows its memtable: the rule's bound is exercised by the unit tests
			"--fault", fmt.Sprintf("freeze@4s/6s:kill -STOP %d && sleep 2 && kill -CONT %d", pid, pid))
		if code != 0 {
			t.Fatalf("exit %d, want 0:\n%s", code, out)
		}
		r := readSoakJSON(t, dir)
		if !r.Verdict.Pass || len(r.Faults) != 1 || r.Faults[0].Err != "" || r.Faults[0].End-r.Faults[0].Start < 2 {
			t.Fatalf("verdict %+v faults %+v", r.Verdict, r.Faults)
		}
		if rb := r.ReadBack[0]; rb.Acked == 0 || rb.Lost != 0 || rb.Found < rb.Acked {
			t.Fatalf("read-back %+v", rb)
		}
		for _, op := range []string{soak.OpRead, soak.OpWrite, soak.OpLWT, soak.OpCounter} {
			if r.Ops[op] == 0 {
				t.Errorf("no %s operations: %v", op, r.Ops)
			}
		}
		ups := 0
		for _, s := range r.Samples {
			for _, pr := range s.Procs {
				if pr.Up && pr.RSS > 0 && pr.Goroutines > 0 && pr.FDs > 0 {
					ups++
				}
			}
		}
		if ups < 8 {
			t.Errorf("%d samples of dohyo's process figures, want at least 8", ups)
		}
		html, err := os.ReadFile(filepath.Join(dir, "soak.html"))
		if err != nil || !strings.Contains(string(html), "PASS") || !strings.Contains(string(html), ">freeze</text>") {
			t.Fatalf("soak.html: %v", err)
		}
		if !strings.Contains(out, "soak verdict: PASS") {
			t.Errorf("output: %s", out)
		}
	})

	t.Run("errors outside the window fail", func(t *testing.T) {
		dir := t.TempDir()
		// The command returns at once; dohyo stays frozen 4 s, past the 1 s window.
		out, code := runSoakCLI(t, bin, "--target", p.CQLAddr, "--keyspace", "soak_late", "--rate", "100", "--duration", "12s",
			"--sample", "1s", "--timeout", "500ms", "--out", dir,
			"--fault", fmt.Sprintf("freeze@3s/1s:kill -STOP %d; (sleep 4; kill -CONT %d) >/dev/null 2>&1 &", pid, pid))
		if code != 3 {
			t.Fatalf("exit %d, want 3 (verdict failed):\n%s", code, out)
		}
		r := readSoakJSON(t, dir)
		if f := r.Verdict.Fails(); len(f) != 1 || f[0] != "errors outside fault windows" {
			t.Fatalf("fails %v, want only errors outside fault windows", f)
		}
		if r.ErrorClasses["client timeout"] == 0 {
			t.Fatalf("error classes %v: want client timeouts", r.ErrorClasses)
		}
	})

	t.Run("bad input", func(t *testing.T) {
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"--rate", "-3"}, "--rate -3: must be a positive number"},
			{[]string{"--duration", "1m", "--fault", "late@50s/20s:true"}, `fault "late": its window 50s–1m10s ends after the run`},
			{[]string{"--fault", "nonsense"}, "NAME@AT/WINDOW:COMMAND"},
			{[]string{"--mix", "scan=1"}, `unknown operation "scan"`},
			{[]string{"--target", "127.0.0.1:1", "--duration", "10s"}, "target 127.0.0.1:1 unreachable"},
			{[]string{"--target", p.CQLAddr, "--metrics", "http://127.0.0.1:1/metrics", "--duration", "10s"}, "metrics http://127.0.0.1:1/metrics unreachable"},
		} {
			out, code := runSoakCLI(t, bin, append(tc.args, "--out", t.TempDir())...)
			if code != 1 || !strings.Contains(out, tc.want) {
				t.Errorf("soak %v: exit %d, output %q; want exit 1 naming %q", tc.args, code, out, tc.want)
			}
		}
	})

	t.Run("lost writes are found", func(t *testing.T) {
		// A fault that truncates the rows table mid-run loses acknowledged
		// writes behind the clients' back: the read-back must say so.
		s := gocqlSession(t, p.CQLAddr, 4, nil)
		r, err := soak.Run(context.Background(), soak.Config{Targets: []string{p.CQLAddr}, Keyspaces: []string{"soak_loss"},
			Rate: 100, Duration: 8 * time.Second, Sample: time.Second, Timeout: time.Minute,
			Faults: []soak.Fault{{Name: "truncate", At: 4 * time.Second, Window: time.Second, Run: func(ctx context.Context) error {
				return s.Query("TRUNCATE soak_loss.soak_rows").WithContext(ctx).Exec()
			}}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Reads of the truncated rows after the fault are stale too.
		f := r.Verdict.Fails()
		if len(f) == 0 || f[0] != "lost writes" || r.ReadBack[0].Lost == 0 || (len(f) == 2 && f[1] != "stale reads") || len(f) > 2 {
			t.Fatalf("fails %v, read-back %+v: want lost writes found (and stale reads at most)", f, r.ReadBack[0])
		}
	})
}
