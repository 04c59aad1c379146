package soak

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// Config is one soak run.
type Config struct {
	Targets     []string      // CQL contact points (host:port): the dohyo instances
	Keyspaces   []string      // keyspaces driven, each routed by dohyo to its backend
	Rate        float64       // requests per second, all keyspaces together
	Duration    time.Duration // measured run (setup and the final read-back come on top)
	Warmup      time.Duration // first part of the run whose errors are reported, not judged
	Workers     int           // requests in flight at most
	Sample      time.Duration // sampling interval
	Period      time.Duration // latency summary period in the report (p99 per period)
	Metrics     []string      // Prometheus /metrics URLs of the dohyo instances
	Faults      []Fault
	Timeout     time.Duration // per request
	Connect     time.Duration // bound on reaching a target or metrics URL at start
	FaultGrace  time.Duration // how long a fault command may outlive the run before it is stopped
	Mix         Mix
	Consistency string // gocql consistency name (default QUORUM)
	Replication int    // replication factor of keyspaces the soak creates
	Protocol    int    // native protocol version (0: negotiate)
	ValueSize   int    // bytes of payload per written row
	Rules       Rules
}

// Mix are the relative weights of the operations.
type Mix struct{ Read, Write, LWT, Counter float64 }

// Rules are the verdict's bounds.
type Rules struct {
	// MaxRSSSlope bounds each dohyo's RSS growth over the second half of
	// the run, bytes per hour (least-squares slope of the samples).
	MaxRSSSlope float64
}

// Fault is one entry of the fault schedule: Run starts At after the
// measured run begins; client errors from At until Window after it (or
// until Run returns, if later) are expected and do not fail the verdict.
type Fault struct {
	Name    string
	At      time.Duration
	Window  time.Duration
	Command string                          // shell command (the CLI's form); "" when Run is set
	Run     func(ctx context.Context) error // nil: run Command with sh -c
}

// Defaults fills unset fields.
func (c Config) Defaults() Config {
	set := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	set(&c.Sample, 5*time.Second)
	set(&c.Period, 10*time.Minute)
	set(&c.Timeout, 10*time.Second)
	set(&c.Connect, 10*time.Second)
	set(&c.FaultGrace, 2*time.Minute)
	if c.Workers == 0 {
		c.Workers = 64
	}
	if c.Mix == (Mix{}) {
		c.Mix = Mix{Read: 45, Write: 45, LWT: 5, Counter: 5}
	}
	if c.Consistency == "" {
		c.Consistency = "QUORUM"
	}
	if c.Replication == 0 {
		c.Replication = 1
	}
	if c.ValueSize == 0 {
		c.ValueSize = 100
	}
	if c.Rules.MaxRSSSlope == 0 {
		c.Rules.MaxRSSSlope = 64 << 20
	}
	return c
}

var identRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,47}$`)

// Validate refuses a configuration that cannot describe a run, naming
// every problem.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if len(c.Targets) == 0 {
		bad("no --target: name at least one dohyo CQL address (host:port)")
	}
	for _, t := range c.Targets {
		if !strings.Contains(t, ":") {
			bad("--target %q is not host:port", t)
		}
	}
	if len(c.Keyspaces) == 0 {
		bad("no --keyspace: name at least one keyspace to drive")
	}
	for _, k := range c.Keyspaces {
		if !identRE.MatchString(k) {
			bad("--keyspace %q is not a CQL identifier (letters, digits, _; up to 48)", k)
		}
	}
	if !(c.Rate > 0) || math.IsInf(c.Rate, 0) {
		bad("--rate %v: must be a positive number of requests per second", c.Rate)
	}
	if c.Duration <= 0 {
		bad("--duration %v: must be positive", c.Duration)
	}
	if c.Warmup < 0 || (c.Duration > 0 && c.Warmup >= c.Duration/2) {
		bad("--warmup %v: must be at least 0 and less than half of --duration (%v)", c.Warmup, c.Duration)
	}
	if c.Workers < 1 {
		bad("--workers %d: must be at least 1", c.Workers)
	}
	if c.Sample <= 0 || (c.Duration > 0 && c.Sample > c.Duration/2) {
		bad("--sample %v: must be positive and at most half of --duration (%v)", c.Sample, c.Duration)
	}
	if c.Period < c.Sample {
		bad("--period %v: must be at least --sample (%v)", c.Period, c.Sample)
	}
	if c.Timeout <= 0 || c.Connect <= 0 || c.FaultGrace <= 0 {
		bad("--timeout, --connect-timeout and --fault-grace must be positive")
	}
	m := c.Mix
	if m.Read < 0 || m.Write < 0 || m.LWT < 0 || m.Counter < 0 || m.Read+m.Write+m.LWT+m.Counter <= 0 {
		bad("--mix %v: weights must be non-negative and not all zero", m)
	}
	if m.Read > 0 && m.Write == 0 {
		bad("--mix: reads need writes (a read reads back an acknowledged write)")
	}
	if c.Replication < 1 || c.ValueSize < 0 || c.Rules.MaxRSSSlope < 0 {
		bad("--replication must be at least 1; --value-size and --max-rss-slope non-negative")
	}
	names := map[string]bool{}
	for _, f := range c.Faults {
		switch {
		case f.Name == "":
			bad("a fault has no name")
		case names[f.Name]:
			bad("fault %q is named twice", f.Name)
		}
		names[f.Name] = true
		if f.At < 0 || f.Window <= 0 {
			bad("fault %q: start %v must not be negative and its window %v must be positive", f.Name, f.At, f.Window)
		}
		if c.Duration > 0 && f.At+f.Window > c.Duration {
			bad("fault %q: its window %v–%v ends after the run (--duration %v)", f.Name, f.At, f.At+f.Window, c.Duration)
		}
		if f.Run == nil && strings.TrimSpace(f.Command) == "" {
			bad("fault %q has no command", f.Name)
		}
	}
	return errors.Join(errs...)
}

// ParseFault reads the CLI's fault form NAME@AT/WINDOW:COMMAND, e.g.
// "node2@2m/1m:bash it/cassandra/cluster.sh restart 2".
func ParseFault(s string) (Fault, error) {
	form := func(why string) (Fault, error) {
		return Fault{}, fmt.Errorf("--fault %q: %s (want NAME@AT/WINDOW:COMMAND, e.g. node2@2m/1m:bash it/cassandra/cluster.sh restart 2)", s, why)
	}
	name, rest, ok := strings.Cut(s, "@")
	if !ok || name == "" {
		return form("no NAME@")
	}
	at, rest, ok := strings.Cut(rest, "/")
	if !ok {
		return form("no /WINDOW")
	}
	win, cmd, ok := strings.Cut(rest, ":")
	if !ok || strings.TrimSpace(cmd) == "" {
		return form("no :COMMAND")
	}
	a, err := time.ParseDuration(at)
	if err != nil {
		return form("start: " + err.Error())
	}
	w, err := time.ParseDuration(win)
	if err != nil {
		return form("window: " + err.Error())
	}
	return Fault{Name: name, At: a, Window: w, Command: cmd}, nil
}

// run runs the fault: f.Run, or its command under sh -c (its combined
// output is returned, for the report).
func (f Fault) run(ctx context.Context) (string, error) {
	if f.Run != nil {
		return "", f.Run(ctx)
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", f.Command)
	// The command's whole process group ends with ctx (a shell's children
	// too), and output pipes a stray grandchild keeps open stop being waited
	// for soon after.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// ParseMix reads "read=45,write=45,lwt=5,counter=5" (missing names: 0).
func ParseMix(s string) (Mix, error) {
	var m Mix
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		var f float64
		if _, err := fmt.Sscan(v, &f); !ok || err != nil {
			return m, fmt.Errorf("--mix %q: %q is not NAME=WEIGHT", s, kv)
		}
		switch k {
		case "read":
			m.Read = f
		case "write":
			m.Write = f
		case "lwt":
			m.LWT = f
		case "counter":
			m.Counter = f
		default:
			return m, fmt.Errorf("--mix %q: unknown operation %q (read, write, lwt, counter)", s, k)
		}
	}
	return m, nil
}
