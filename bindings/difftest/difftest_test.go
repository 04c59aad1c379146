package difftest_test

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/cassandra"
	"github.com/dohyo/dohyo/bindings/difftest"
	"github.com/dohyo/dohyo/bindings/embedded"
	"github.com/dohyo/dohyo/cql"
)

// Environment: the Cassandra reference, the workload.
const (
	cassandraEnv  = "DOHYO_TEST_CASSANDRA"
	seedEnv       = "DOHYO_DIFF_SEED"
	statementsEnv = "DOHYO_DIFF_STATEMENTS"
)

// optionalTarget is a target that joins when its environment variable is
// set (HBase, registered by hbase_target_test.go unless built with the
// nohbase tag). Under CI=true every optional target is required.
type optionalTarget struct {
	name, env string
	open      func(ctx context.Context, addr string) (bindings.Backend, error)
}

var optionalTargets []optionalTarget

// requiredOptional lists the optional targets CI must run.
var requiredOptional = []string{"hbase"}

// knownUnsupported lists features dohyo refuses (bindings.ErrUnsupported)
// although Cassandra accepts them; a step matching one is not a difference.
// Keep it short: each entry names the feature and matches its statements.
var knownUnsupported = []struct {
	feature string
	re      *regexp.Regexp
}{}

type target struct {
	name string
	b    bindings.Backend
	took time.Duration
}

type difference struct {
	target string
	step   difftest.Step
	diff   string
}

func TestDifferential(t *testing.T) {
	addr := os.Getenv(cassandraEnv)
	ci := os.Getenv("CI") == "true"
	if addr == "" {
		if ci {
			t.Fatalf("%s is not set (required in CI)", cassandraEnv)
		}
		t.Skipf("%s not set: Cassandra is the reference", cassandraEnv)
	}
	seed := envInt(t, seedEnv, randomSeed())
	n := int(envInt(t, statementsEnv, 5000))
	t.Logf("seed %d (rerun with %s=%d), %d statements", seed, seedEnv, seed, n)

	ctx := t.Context()
	cfg := cassandra.DefaultConfig()
	cfg.Hosts = strings.Split(addr, ",")
	cfg.SchemaRefresh = 0
	ref, err := cassandra.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	targets := []*target{{name: "cassandra", b: ref}}
	emb, err := embedded.Open(ctx, embedded.Config{})
	if err != nil {
		t.Fatal(err)
	}
	targets = append(targets, &target{name: "embedded", b: emb})
	for _, name := range requiredOptional {
		found := false
		for _, o := range optionalTargets {
			found = found || o.name == name
		}
		if !found && ci {
			t.Fatalf("target %s is not compiled in (built with -tags nohbase?) and CI requires it", name)
		}
	}
	for _, o := range optionalTargets {
		a := os.Getenv(o.env)
		if a == "" {
			if ci {
				t.Fatalf("%s is not set: target %s is required in CI", o.env, o.name)
			}
			t.Logf("target %s skipped: %s not set", o.name, o.env)
			continue
		}
		b, err := o.open(ctx, a)
		if err != nil {
			t.Fatalf("target %s: %v", o.name, err)
		}
		targets = append(targets, &target{name: o.name, b: b})
	}
	defer func() {
		for _, tg := range targets {
			_ = tg.b.Close()
		}
	}()
	names := make([]string, len(targets))
	for i, tg := range targets {
		names[i] = tg.name
	}
	t.Logf("targets: %s (reference: cassandra)", strings.Join(names, ", "))

	var suffix [3]byte
	_, _ = rand.Read(suffix[:])
	ks := fmt.Sprintf("dft_%x", suffix)
	gen := difftest.NewGenerator(seed, ks, 1_700_000_000_000_000)
	r := &run{t: t, targets: targets, seed: seed, history: map[string][]difftest.Step{},
		unsupported: map[string]int{}, notes: map[string]int{}, refErrorKinds: map[string]int{}}
	start := time.Now()
	for _, st := range gen.Setup(4) {
		if !r.do(ctx, st) {
			t.Fatalf("setup failed at %s", st.Text)
		}
	}
	defer r.do(context.WithoutCancel(ctx), gen.Teardown())
	for range n {
		if ctx.Err() != nil {
			break
		}
		r.do(ctx, gen.Next())
	}
	r.report(time.Since(start))
}

// run executes steps and records differences.
type run struct {
	t           *testing.T
	targets     []*target
	seed        int64
	steps       int
	refErrors   int
	rows        int
	diffs       []difference
	ndiffs      map[string]int
	notes       map[string]int // tolerated differences by kind
	unsupported map[string]int // allowed refusals by feature
	history     map[string][]difftest.Step
	reported    bool
	// refErrorKinds counts the reference's errors by message prefix, to
	// show what the invalid part of the workload exercises.
	refErrorKinds map[string]int
}

const maxExamples = 20

// do runs st on every target at once and compares each with the
// reference; it reports whether the reference succeeded.
func (r *run) do(ctx context.Context, st difftest.Step) bool {
	r.steps++
	r.history[st.Table] = append(r.history[st.Table], st)
	outs := make([]difftest.Outcome, len(r.targets))
	var wg sync.WaitGroup
	for i, tg := range r.targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
			defer cancel()
			outs[i] = difftest.Execute(sctx, tg.b, st)
		}()
	}
	wg.Wait()
	want := outs[0]
	r.targets[0].took += want.Took
	if want.Err != nil {
		r.refErrors++
		msg := bindings.AsError(want.Err).Message
		if len(msg) > 50 {
			msg = msg[:50]
		}
		r.refErrorKinds[msg]++
	} else if want.Result != nil {
		r.rows += len(want.Result.Rows)
	}
	for i, tg := range r.targets[1:] {
		got := outs[i+1]
		tg.took += got.Took
		if want.Err == nil && difftest.IsUnsupported(got) {
			if f := unsupportedFeature(st); f != "" {
				r.unsupported[tg.name+": "+f]++
				continue
			}
		}
		diff, note := difftest.Compare(st, want, got)
		if note != "" {
			r.notes[tg.name+": error message differs"]++
			if r.notes[tg.name+": error message differs"] <= 3 {
				r.t.Logf("note (%s, statement %d): %s\n  statement: %s", tg.name, st.Index, note, st.Text)
			}
		}
		if diff != "" {
			r.difference(tg.name, st, diff)
		}
	}
	return want.Err == nil
}

func unsupportedFeature(st difftest.Step) string {
	text := st.Text
	for _, k := range knownUnsupported {
		if k.re.MatchString(text) {
			return k.feature
		}
	}
	return ""
}

func (r *run) difference(name string, st difftest.Step, diff string) {
	if r.ndiffs == nil {
		r.ndiffs = map[string]int{}
	}
	r.ndiffs[name]++
	if len(r.diffs) >= maxExamples {
		return
	}
	r.diffs = append(r.diffs, difference{name, st, diff})
	msg := fmt.Sprintf("DIFFERENCE on %s (seed %d, statement %d):\n  %s\n  %s", name, r.seed, st.Index, st.Text, diff)
	if !r.reported {
		// The first difference also gets the table's recent history, the
		// raw material of a minimal repro.
		r.reported = true
		h := r.history[st.Table]
		if len(h) > 31 {
			h = h[len(h)-31:]
		}
		var b strings.Builder
		for _, s := range h[:len(h)-1] {
			fmt.Fprintf(&b, "\n    %5d  %s", s.Index, s.Text)
		}
		msg += "\n  earlier statements on " + st.Table + ":" + b.String()
	}
	r.t.Error(msg)
}

func (r *run) report(elapsed time.Duration) {
	var b strings.Builder
	fmt.Fprintf(&b, "%d statements in %v (seed %d); reference: %d errors, %d rows returned", r.steps, elapsed.Round(time.Millisecond), r.seed, r.refErrors, r.rows)
	for _, tg := range r.targets {
		fmt.Fprintf(&b, "\n  %-9s busy %v, differences %d", tg.name, tg.took.Round(time.Millisecond), r.ndiffs[tg.name])
	}
	kinds := make([]string, 0, len(r.refErrorKinds))
	for k := range r.refErrorKinds {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool { return r.refErrorKinds[kinds[i]] > r.refErrorKinds[kinds[j]] })
	if len(kinds) > 12 {
		kinds = kinds[:12]
	}
	for _, k := range kinds {
		fmt.Fprintf(&b, "\n  reference error %4d× %s", r.refErrorKinds[k], k)
	}
	for _, m := range []map[string]int{r.notes, r.unsupported} {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "\n  %s: %d", k, m[k])
		}
	}
	r.t.Log(b.String())
}

func envInt(t *testing.T, name string, def int64) int64 {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

func randomSeed() int64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return int64(binary.BigEndian.Uint64(b[:]) >> 2)
}

// TestGeneratorDeterministic checks that a seed always gives the same
// workload and that the statements parse (but for the deliberate syntax
// error).
func TestGeneratorDeterministic(t *testing.T) {
	steps := func(seed int64) []string {
		g := difftest.NewGenerator(seed, "ks", 1000)
		var out []string
		for _, s := range g.Setup(4) {
			out = append(out, s.Text)
		}
		for range 2000 {
			out = append(out, g.Next().Text)
		}
		return out
	}
	a, b, c := steps(42), steps(42), steps(43)
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Fatal("the same seed gave different workloads")
	}
	if strings.Join(a, "\n") == strings.Join(c, "\n") {
		t.Fatal("different seeds gave the same workload")
	}
	g := difftest.NewGenerator(7, "ks", 1000)
	g.Setup(4)
	kinds := map[string]int{}
	for range 3000 {
		st := g.Next()
		queries := []string{}
		if st.Batch != nil {
			kinds["batch"]++
			for _, e := range st.Batch.Entries {
				queries = append(queries, e.Query)
			}
		} else {
			queries = append(queries, st.Request.Query)
			kinds[strings.ToLower(strings.Fields(st.Request.Query)[0])]++
		}
		for _, q := range queries {
			if _, err := cql.Parse(q); err != nil && !strings.HasPrefix(q, "SELEC ") {
				t.Errorf("statement %d does not parse: %v\n  %s", st.Index, err, q)
			}
		}
	}
	for _, k := range []string{"insert", "update", "delete", "select", "batch", "begin"} {
		if kinds[k] == 0 {
			t.Errorf("no %s statements in 3000 steps (%v)", k, kinds)
		}
	}
}

// TestGeneratorOnEmbedded runs a short workload on the embedded backend
// alone: no panics, no hangs, and mostly successful statements.
func TestGeneratorOnEmbedded(t *testing.T) {
	b, err := embedded.Open(t.Context(), embedded.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	g := difftest.NewGenerator(1, "gen_smoke", 1000)
	for _, st := range g.Setup(4) {
		if o := difftest.Execute(t.Context(), b, st); o.Err != nil {
			t.Fatalf("%s: %v", st.Text, o.Err)
		}
	}
	errs, rows := 0, 0
	const n = 600
	for range n {
		st := g.Next()
		o := difftest.Execute(t.Context(), b, st)
		if o.Err != nil {
			errs++
			var be *bindings.Error
			if bindings.AsError(o.Err).Code == bindings.CodeServerError {
				t.Errorf("server error for %s: %v (%T %v)", st.Text, o.Err, be, be)
			}
		} else if o.Result != nil {
			rows += len(o.Result.Rows)
		}
	}
	t.Logf("%d of %d statements failed, %d rows read", errs, n, rows)
	if errs > n/4 || rows == 0 {
		t.Errorf("%d of %d statements failed, %d rows read: the workload is not meaningful", errs, n, rows)
	}
}
