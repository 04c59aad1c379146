package soak

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

func TestParseFault(t *testing.T) {
	f, err := ParseFault("node2@2m/90s:bash it/cassandra/cluster.sh restart 2")
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != "node2" || f.At != 2*time.Minute || f.Window != 90*time.Second || f.Command != "bash it/cassandra/cluster.sh restart 2" {
		t.Fatalf("parsed %+v", f)
	}
	for _, bad := range []string{"", "x", "@1m/1m:true", "x@1m:true", "x@1m/1m", "x@1m/1m:  ", "x@soon/1m:true", "x@1m/long:true"} {
		if _, err := ParseFault(bad); err == nil || !strings.Contains(err.Error(), "NAME@AT/WINDOW:COMMAND") {
			t.Errorf("ParseFault(%q) = %v, want the form named", bad, err)
		}
	}
}

func TestParseMix(t *testing.T) {
	m, err := ParseMix("read=1,write=2.5,lwt=0,counter=3")
	if err != nil || m != (Mix{Read: 1, Write: 2.5, Counter: 3}) {
		t.Fatalf("ParseMix = %+v, %v", m, err)
	}
	for _, bad := range []string{"read", "read=x", "scan=1"} {
		if _, err := ParseMix(bad); err == nil {
			t.Errorf("ParseMix(%q) accepted", bad)
		}
	}
}

func good() Config {
	return Config{Targets: []string{"127.0.0.1:9042"}, Keyspaces: []string{"soak"}, Rate: 100, Duration: time.Minute}.Defaults()
}

// TestValidateRefusesNonsense: each bad setting is refused with a message
// naming it.
func TestValidateRefusesNonsense(t *testing.T) {
	if err := good().Validate(); err != nil {
		t.Fatalf("good config refused: %v", err)
	}
	cases := []struct {
		name, want string
		mod        func(*Config)
	}{
		{"negative rate", "--rate", func(c *Config) { c.Rate = -5 }},
		{"zero rate", "--rate", func(c *Config) { c.Rate = 0 }},
		{"no duration", "--duration", func(c *Config) { c.Duration = 0 }},
		{"warm-up of half the run", "--warmup", func(c *Config) { c.Warmup = 30 * time.Second }},
		{"negative warm-up", "--warmup", func(c *Config) { c.Warmup = -time.Second }},
		{"no target", "--target", func(c *Config) { c.Targets = nil }},
		{"target without port", "host:port", func(c *Config) { c.Targets = []string{"localhost"} }},
		{"bad keyspace", "CQL identifier", func(c *Config) { c.Keyspaces = []string{"drop table;"} }},
		{"sample beyond run", "--sample", func(c *Config) { c.Sample = time.Hour }},
		{"workers", "--workers", func(c *Config) { c.Workers = -1 }},
		{"negative mix", "--mix", func(c *Config) { c.Mix = Mix{Read: -1, Write: 1} }},
		{"reads without writes", "reads need writes", func(c *Config) { c.Mix = Mix{Read: 1} }},
		{"fault after the run", "ends after the run", func(c *Config) {
			c.Faults = []Fault{{Name: "late", At: 50 * time.Second, Window: 20 * time.Second, Command: "true"}}
		}},
		{"fault before the run", "must not be negative", func(c *Config) {
			c.Faults = []Fault{{Name: "early", At: -time.Second, Window: time.Second, Command: "true"}}
		}},
		{"fault twice", "named twice", func(c *Config) {
			c.Faults = []Fault{{Name: "a", At: 1, Window: 1, Command: "true"}, {Name: "a", At: 2, Window: 1, Command: "true"}}
		}},
		{"fault without command", "no command", func(c *Config) { c.Faults = []Fault{{Name: "a", At: 1, Window: 1}} }},
	}
	for _, tc := range cases {
		c := good()
		tc.mod(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Validate() = %v, want an error naming %q", tc.name, err, tc.want)
		}
	}
}

// report is a finished run that passes every rule: one fault 20–30 s,
// RSS flat, everything read back.
func report() *Report {
	r := &Report{Config: reportConfig(good()), Faults: []FaultRun{{Name: "f", At: 20, Window: 10, Start: 20, End: 22}}}
	r.Config.Metrics = []string{"http://a/metrics"}
	for i := 0; i <= 12; i++ {
		r.Samples = append(r.Samples, Sample{T: float64(i * 5), Client: ClientSample{Ops: 500},
			Procs: []ProcSample{{URL: "http://a/metrics", Up: true, RSS: 100 << 20, Started: 1}}})
	}
	r.ReadBack = []ReadBack{{Keyspace: "soak", Written: 10, Acked: 9, Found: 10,
		Counters: []KeyCheck{{Key: 0, Acked: 5, Unknown: 1, Value: 6}}, LWT: []KeyCheck{{Key: 0, Acked: 3, Value: 3}}}}
	r.Errors = []ErrorEvent{{Due: 19.5, End: 20.5, Class: "client timeout"}, {Due: 29, End: 31, Class: "WriteTimeout"}}
	return r
}

func checkNamed(v Verdict, name string) Check {
	for _, c := range v.Checks {
		if strings.HasPrefix(c.Name, name) {
			return c
		}
	}
	return Check{Name: "missing " + name}
}

// TestVerdictRules: each rule passes on the good report and fails when
// its promise is broken, and only that rule fails.
func TestVerdictRules(t *testing.T) {
	if v := judge(report()); !v.Pass {
		t.Fatalf("good report fails: %v %+v", v.Fails(), v.Checks)
	}
	cases := []struct {
		rule string
		mod  func(*Report)
	}{
		{"lost writes", func(r *Report) { r.ReadBack[0].Lost = 1 }},
		{"lost writes", func(r *Report) { r.ReadBack[0].Phantom = 1 }},
		{"stale reads", func(r *Report) { r.Stale = 2 }},
		{"counters exact", func(r *Report) { r.ReadBack[0].Counters[0].Value = 7 }}, // above acked+unknown
		{"counters exact", func(r *Report) { r.ReadBack[0].Counters[0].Value = 4 }}, // an acknowledged increment lost
		{"LWT exact", func(r *Report) { r.ReadBack[0].LWT[0].Value = 2 }},
		{"errors outside fault windows", func(r *Report) { r.Errors = append(r.Errors, ErrorEvent{Due: 31, End: 32, Class: "Unavailable"}) }},
		{"errors outside fault windows", func(r *Report) { r.ErrorsDropped = 1 }},
		{"memory flat", func(r *Report) { // 1 MiB per 5 s over the second half = 720 MiB/h
			for i := range r.Samples {
				r.Samples[i].Procs[0].RSS += float64(i) * (1 << 20)
			}
		}},
		{"memory flat", func(r *Report) { r.Samples = r.Samples[:2] }}, // not measured is not a pass
		{"faults ran", func(r *Report) { r.Faults[0].Err = "exit status 1" }},
	}
	for _, tc := range cases {
		r := report()
		tc.mod(r)
		v := judge(r)
		if v.Pass || len(v.Fails()) != 1 || !strings.HasPrefix(v.Fails()[0], tc.rule) {
			t.Errorf("%s: fails %v, want only it", tc.rule, v.Fails())
		}
	}
	// A failed read-back verifies nothing: every end check fails.
	r := report()
	r.ReadBack[0].Err = "scan soak_rows: timeout"
	if f := judge(r).Fails(); len(f) != 3 || f[0] != "lost writes" || f[1] != "counters exact" || f[2] != "LWT exact" {
		t.Errorf("failed read-back: fails %v", f)
	}
}

// TestWarmupErrorsNotJudged: errors in the warm-up are reported with
// their cost and do not fail the verdict; the same errors without a
// warm-up (or after it) do.
func TestWarmupErrorsNotJudged(t *testing.T) {
	early := ErrorEvent{Due: 2, End: 4, Class: "WriteTimeout"}
	r := report()
	r.Errors = append(r.Errors, early)
	if v := judge(r); v.Pass || v.Fails()[0] != "errors outside fault windows" {
		t.Fatalf("no warm-up: fails %v", v.Fails())
	}
	r.Warmup = warmupRun(5 * time.Second)
	r.Warmup.countErrors(r.Errors)
	if v := judge(r); !v.Pass {
		t.Fatalf("5 s warm-up: fails %v", v.Fails())
	}
	if got := r.Warmup.Cost(); got != "1 errors (WriteTimeout 1), the last 4.0 s after it began" {
		t.Fatalf("warm-up cost: %s", got)
	}
	if s := r.Summary(); !strings.Contains(s, "warm-up (first 5 s, errors not judged): 1 errors") {
		t.Fatalf("summary: %s", s)
	}
	r.Errors = append(r.Errors, ErrorEvent{Due: 6, End: 7, Class: "WriteTimeout"}) // after it
	if v := judge(r); v.Pass {
		t.Fatal("an error after the warm-up passed")
	}
}

// TestFaultWindowExtends: a fault that runs past its window covers the
// errors until it ends; an error straddling the window's start counts as in.
func TestFaultWindowExtends(t *testing.T) {
	f := FaultRun{Start: 10, Window: 5, End: 40}
	if from, to := f.Covers(); from != 10 || to != 40 {
		t.Fatalf("covers %v–%v", from, to)
	}
	events := []ErrorEvent{{Due: 39, End: 45, Class: "WriteTimeout"}, {Due: 5, End: 10.5, Class: "EOF"}, {Due: 41, End: 42, Class: "x"}}
	n, _ := errorsOutside(events, []FaultRun{f})
	if n != 1 {
		t.Fatalf("outside = %d, want 1", n)
	}
	fs := []FaultRun{f}
	countFaultErrors(events, fs)
	if got := fs[0].Cost(); got != "2 errors (EOF 1, WriteTimeout 1), the last 35.0 s after it began" {
		t.Fatalf("cost: %s", got)
	}
}

// TestRSSSlopeFollowsTheLastProcess: a restarted dohyo starts a new RSS
// series; the slope is of the process up last, over the second half of
// its own life when it started after the run's halfway mark: its warm-up
// (RSS climbing to where the GC floor holds it) is not a leak, a climb
// that goes on is.
func TestRSSSlopeFollowsTheLastProcess(t *testing.T) {
	series := func(rss func(i int) float64) []Sample {
		var ss []Sample
		for i := 0; i < 40; i++ {
			p := ProcSample{URL: "u", Up: true, RSS: 500 << 20, Started: 1}
			if i >= 24 { // restarted
				p = ProcSample{URL: "u", Up: true, RSS: rss(i - 24), Started: 2}
			}
			ss = append(ss, Sample{T: float64(i), Procs: []ProcSample{p}})
		}
		return ss
	}
	// warms up for 4 samples (1 MiB each), then flat
	warm := series(func(i int) float64 { return 50<<20 + float64(min(i, 4))*(1<<20) })
	if slope, n := rssSlope(warm, "u", 20); n != 8 || slope != 0 {
		t.Fatalf("warm-up then flat: slope %v B/s over %d samples, want 0 over the last 8", slope, n)
	}
	leak := series(func(i int) float64 { return 50<<20 + float64(i) }) // 1 byte/s throughout
	if slope, n := rssSlope(leak, "u", 20); n != 8 || slope < 0.99 || slope > 1.01 {
		t.Fatalf("steady climb: slope %v over %d samples, want 1 byte/s over 8", slope, n)
	}
	whole := series(func(int) float64 { return 0 })[:24] // never restarted: the run's second half
	if _, n := rssSlope(whole, "u", 12); n != 12 {
		t.Fatalf("one process: %d samples, want the run's second half (12)", n)
	}
}

// TestReportWrites: JSON round-trips, the HTML puts the verdict first and
// shades the fault windows.
func TestReportWrites(t *testing.T) {
	r := report()
	r.Verdict = judge(r)
	var js bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Verdict.Pass != r.Verdict.Pass || len(back.Samples) != len(r.Samples) {
		t.Fatalf("JSON round trip: %v %+v", err, back.Verdict)
	}
	var h bytes.Buffer
	if err := r.WriteHTML(&h); err != nil {
		t.Fatal(err)
	}
	page := h.String()
	v, c := strings.Index(page, `id="verdict"`), strings.Index(page, "<h2>Conditions")
	if v < 0 || c < 0 || v > c {
		t.Fatalf("verdict not first (verdict at %d, conditions at %d)", v, c)
	}
	if strings.Count(page, "<svg") != 8 || !strings.Contains(page, "fill=\"#fde8c8\"") {
		t.Fatalf("want 8 charts with the fault window shaded")
	}
	if strings.Contains(page, "<script") || strings.Contains(page, "http-equiv") {
		t.Fatal("the report must be offline: no scripts")
	}
	if !strings.Contains(r.Summary(), "soak verdict: PASS") {
		t.Fatalf("summary: %s", r.Summary())
	}
}

func TestParseMetrics(t *testing.T) {
	page := "# HELP go_goroutines x\ngo_goroutines 42\nprocess_resident_memory_bytes 1.2e+08\nprocess_open_fds 17\n" +
		"go_memstats_heap_inuse_bytes 5e+06\nprocess_cpu_seconds_total 3.5\nprocess_start_time_seconds 1.7e+09\nother{a=\"b\"} 1\n"
	var p ProcSample
	if err := parseMetrics(strings.NewReader(page), &p); err != nil {
		t.Fatal(err)
	}
	if p.Goroutines != 42 || p.RSS != 1.2e8 || p.FDs != 17 || p.Heap != 5e6 || p.CPU != 3.5 || p.Started != 1.7e9 {
		t.Fatalf("parsed %+v", p)
	}
	if err := parseMetrics(strings.NewReader("go_goroutines many\n"), &p); err == nil {
		t.Fatal("a bad value is an error")
	}
}

func TestErrorClass(t *testing.T) {
	reset := &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	for _, c := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{fmt.Errorf("read: %w", reset), "connection lost"},
		{gocql.ErrConnectionClosed, "connection lost"},
		{io.EOF, "connection lost"},
		{errors.New("read tcp 127.0.0.1:5->127.0.0.1:9042: read: connection reset by peer"), "connection lost"},
		{gocql.ErrTimeoutNoResponse, "client timeout"},
		{gocql.ErrNoConnections, "no connections"},
		{errors.New("something odd: detail"), "something odd"},
	} {
		if got := ErrorClass(c.err); got != c.want {
			t.Errorf("ErrorClass(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}

// TestHungFaultIsStopped: a fault command that never ends is stopped at
// the run's end plus the grace, its whole process group with it, and is
// recorded as failed (so the verdict's faults-ran rule fails).
func TestHungFaultIsStopped(t *testing.T) {
	rec := newRecorder(time.Now(), time.Minute)
	pidFile := filepath.Join(t.TempDir(), "pid")
	f := Fault{Name: "hang", Command: "sleep 300 & echo $! > " + pidFile + "; wait"}
	wait := runFaults(context.Background(), []Fault{f}, 100*time.Millisecond, 200*time.Millisecond, rec, io.Discard)
	done := make(chan []FaultRun)
	go func() { done <- wait() }()
	var runs []FaultRun
	select {
	case runs = <-done:
	case <-time.After(time.Minute): // a hang bound only: the stop is due after 0.3 s
		t.Fatal("a hung fault command hung the soak")
	}
	if !strings.Contains(runs[0].Err, "still running") {
		t.Fatalf("fault recorded as %+v", runs[0])
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	// SIGKILL went to the group before the wait returned; the child's exit
	// itself is the kernel's to finish: poll its state, bounded.
	for i := 0; alive(pid); i++ {
		if i == 3000 { // a hang bound: 30 s of polling
			t.Fatalf("the fault's child %d outlived the stop", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if v := judge(&Report{Faults: runs}); v.Pass || !slices.Contains(v.Fails(), "faults ran") {
		t.Fatalf("a stopped fault: verdict %+v", v)
	}
}

// alive reports whether pid is a process that has not exited (a zombie
// waiting for its parent counts as exited).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] != "Z"
}
