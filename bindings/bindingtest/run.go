package bindingtest

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// scenarioFiles is the suite itself, embedded so that Run works from any
// package's test directory.
//
//go:embed testdata/*.cql
var scenarioFiles embed.FS

// FilterEnv names the environment variable holding a regexp that selects
// scenarios by "area/name" (e.g. DOHYO_SCENARIO='^lwt/').
const FilterEnv = "DOHYO_SCENARIO"

// Option configures Run.
type Option func(*config)

type config struct {
	skips       []skipRule
	dir         string
	timeout     time.Duration
	sequential  bool
	prefix      string
	unsupported map[string]bool // tags whose scenarios may answer ErrUnsupported
}

type skipRule struct {
	name   *regexp.Regexp // matched against the scenario name
	tag    string
	reason string
}

// SkipScenarios skips the scenarios whose name matches the regexp pattern
// (anchored: the whole name must match), stating why. An invalid pattern
// fails the run.
func SkipScenarios(pattern, reason string) Option {
	return func(c *config) {
		re, err := regexp.Compile("^(?:" + pattern + ")$")
		if err != nil {
			re = regexp.MustCompile(`^\x00invalid`) // reported by Run
			reason = fmt.Sprintf("invalid skip pattern %q: %v", pattern, err)
		}
		c.skips = append(c.skips, skipRule{name: re, reason: reason})
	}
}

// SkipTag skips every scenario carrying tag (or whose area is tag).
func SkipTag(tag, reason string) Option {
	return func(c *config) { c.skips = append(c.skips, skipRule{tag: tag, reason: reason}) }
}

// FromDir loads scenarios from dir instead of the embedded suite.
func FromDir(dir string) Option { return func(c *config) { c.dir = dir } }

// StatementTimeout bounds each statement (default 60s: real servers can be
// slow to apply schema changes).
func StatementTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// Sequential runs scenarios one after another instead of in parallel.
func Sequential() Option { return func(c *config) { c.sequential = true } }

// KeyspacePrefix changes the prefix of generated keyspace names ("bt").
func KeyspacePrefix(p string) Option { return func(c *config) { c.prefix = p } }

// AllowUnsupported lets scenarios carrying one of tags end as skipped when
// the backend answers a step with an error satisfying
// errors.Is(err, bindings.ErrUnsupported): a clean refusal is acceptable for
// features outside the backend's scope, a wrong answer still fails.
func AllowUnsupported(tags ...string) Option {
	return func(c *config) {
		if c.unsupported == nil {
			c.unsupported = map[string]bool{}
		}
		for _, t := range tags {
			c.unsupported[t] = true
		}
	}
}

// Scenarios returns the embedded suite.
func Scenarios() ([]Scenario, error) {
	scs, err := embeddedScenarios()
	return values(scs), err
}

func embeddedScenarios() ([]*Scenario, error) {
	sub, err := fs.Sub(scenarioFiles, "testdata")
	if err != nil {
		return nil, fmt.Errorf("bindingtest: %w", err)
	}
	return loadFS(sub, "testdata")
}

// Run runs every scenario as a subtest named "area/name". newBackend is
// called once per scenario with the subtest's t; Run closes the backend when
// the scenario ends. Scenarios run in parallel (each in its own keyspace)
// unless Sequential is given.
func Run(t *testing.T, newBackend func(t *testing.T) bindings.Backend, opts ...Option) {
	t.Helper()
	cfg := config{timeout: 60 * time.Second, prefix: "bt"}
	for _, o := range opts {
		o(&cfg)
	}
	for _, s := range cfg.skips {
		if s.name != nil && strings.HasPrefix(s.reason, "invalid skip pattern") {
			t.Fatal(s.reason)
		}
	}
	var (
		scs []*Scenario
		err error
	)
	if cfg.dir != "" {
		scs, err = loadFS(os.DirFS(cfg.dir), cfg.dir)
	} else {
		scs, err = embeddedScenarios()
	}
	if err != nil {
		t.Fatal(err)
	}
	var filter *regexp.Regexp
	if f := os.Getenv(FilterEnv); f != "" {
		if filter, err = regexp.Compile(f); err != nil {
			t.Fatalf("%s: %v", FilterEnv, err)
		}
	}
	for _, sc := range scs {
		full := sc.Area + "/" + sc.Name
		if filter != nil && !filter.MatchString(full) {
			continue
		}
		t.Run(full, func(t *testing.T) {
			for _, s := range cfg.skips {
				if (s.name != nil && s.name.MatchString(sc.Name)) || (s.tag != "" && sc.HasTag(s.tag)) {
					t.Skipf("skipped: %s", s.reason)
				}
			}
			if !cfg.sequential {
				t.Parallel()
			}
			b := newBackend(t)
			t.Cleanup(func() { _ = b.Close() })
			r := &runner{b: b, cfg: &cfg, sc: sc, ks: keyspaceName(cfg.prefix, sc.Name)}
			err := r.run(t.Context())
			var u *unsupportedError
			if errors.As(err, &u) && cfg.allowsUnsupported(sc) {
				t.Skipf("backend does not support this: %v", u.err)
			}
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

func (c *config) allowsUnsupported(sc *Scenario) bool {
	for tag := range c.unsupported {
		if sc.HasTag(tag) {
			return true
		}
	}
	return false
}

// unsupportedError marks a step that failed because the backend answered
// with an error satisfying errors.Is(err, bindings.ErrUnsupported).
type unsupportedError struct {
	err  error
	full error
}

func (e *unsupportedError) Error() string { return e.full.Error() }

// keyspaceName derives a stable, valid keyspace name from a scenario name:
// prefix, a readable slug and a hash (names are unique, slugs may not be).
func keyspaceName(prefix, name string) string {
	h := fnv.New32a()
	h.Write([]byte(name))
	var slug strings.Builder
	for _, r := range strings.ToLower(name) {
		if slug.Len() >= 20 {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			slug.WriteRune(r)
		default:
			if s := slug.String(); s != "" && !strings.HasSuffix(s, "_") {
				slug.WriteByte('_')
			}
		}
	}
	return fmt.Sprintf("%s_%s_%08x", prefix, strings.TrimSuffix(slug.String(), "_"), h.Sum32())
}

var extraKeyspaceRE = regexp.MustCompile(`\$\{ks\}(_[A-Za-z0-9_]+)`)

// runner executes one scenario against one backend.
type runner struct {
	b   bindings.Backend
	cfg *config
	sc  *Scenario
	ks  string // the scenario's keyspace
	cur string // the session keyspace (changed by USE)
}

func (r *runner) subst(s string) string { return strings.ReplaceAll(s, "${ks}", r.ks) }

// extraKeyspaces lists the ${ks}_suffix keyspaces a scenario mentions, so
// they are dropped before and after it.
func (r *runner) extraKeyspaces() []string {
	set := map[string]bool{}
	add := func(q string) {
		for _, m := range extraKeyspaceRE.FindAllStringSubmatch(q, -1) {
			set[r.ks+m[1]] = true
		}
	}
	for _, st := range r.sc.Steps {
		add(st.Query)
		if st.Batch != nil {
			for _, c := range st.Batch.Children {
				add(c.Query)
			}
		}
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (r *runner) exec(ctx context.Context, keyspace, q string) (*bindings.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.timeout)
	defer cancel()
	return r.b.Execute(ctx, &bindings.Request{Keyspace: keyspace, Query: q,
		Consistency: bindings.One, SerialConsistency: bindings.Serial})
}

func (r *runner) run(ctx context.Context) error {
	drops := append(r.extraKeyspaces(), r.ks)
	for _, k := range drops {
		// Leftovers of an interrupted run; errors surface at CREATE below.
		_, _ = r.exec(ctx, "", "DROP KEYSPACE IF EXISTS "+k)
	}
	create := "CREATE KEYSPACE " + r.ks +
		" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"
	if _, err := r.exec(ctx, "", create); err != nil {
		return fmt.Errorf("%s (%s:%d): setup: %s: %v", r.sc.Name, r.sc.File, r.sc.Line, create, err)
	}
	defer func() {
		// The test context is done by now; cleanup gets its own.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.cfg.timeout)
		defer cancel()
		for _, k := range drops {
			_, _ = r.exec(cctx, "", "DROP KEYSPACE IF EXISTS "+k)
		}
	}()
	r.cur = r.ks
	for _, st := range r.sc.Steps {
		if err := r.step(ctx, st); err != nil {
			full := fmt.Errorf("scenario %q (%s:%d)\nstatement at %s:%d:\n  %s\n%v",
				r.sc.Name, r.sc.File, r.sc.Line, r.sc.File, st.Line, r.describe(st), err)
			var u *unsupportedError
			if errors.As(err, &u) {
				u.full = full
				return u
			}
			return full
		}
	}
	return nil
}

func (r *runner) describe(st *Step) string {
	var b strings.Builder
	if st.Bind != nil {
		b.WriteString("@bind " + bindText(st.Bind) + " ")
	}
	if st.PageSize > 0 {
		fmt.Fprintf(&b, "@page %d ", st.PageSize)
	}
	if st.Batch != nil {
		b.WriteString("@batch " + st.Batch.Type)
		for _, c := range st.Batch.Children {
			b.WriteString("\n    ")
			if c.Bind != nil {
				b.WriteString("@bind " + bindText(c.Bind) + " ")
			}
			b.WriteString(r.subst(c.Query))
		}
		return b.String()
	}
	b.WriteString(r.subst(st.Query))
	return b.String()
}

func bindText(bv *BindValues) string {
	parts := make([]string, len(bv.Values))
	for i, v := range bv.Values {
		s := "unset"
		if !bv.Unset[i] {
			s = v.Text
		}
		if bv.Names != nil {
			s = bv.Names[i] + ": " + s
		}
		parts[i] = s
	}
	if bv.Names != nil {
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// step runs one statement, retrying while @eventually allows.
func (r *runner) step(ctx context.Context, st *Step) error {
	deadline := time.Now().Add(st.Eventually)
	building := time.Now().Add(indexBuildWait)
	for {
		out := r.execute(ctx, st)
		if out.fatal != nil {
			return out.fatal
		}
		if indexBuilding(out.err) && time.Now().Before(building) {
			if err := pause(ctx); err != nil {
				return err
			}
			continue
		}
		err := r.check(st, out)
		if err != nil && out.err != nil && errors.Is(out.err, bindings.ErrUnsupported) {
			return &unsupportedError{err: out.err, full: err}
		}
		if err == nil {
			if out.res != nil && out.res.Kind == bindings.ResultSetKeyspace {
				r.cur = out.res.Keyspace
			}
			return nil
		}
		if st.Eventually == 0 || !time.Now().Before(deadline) {
			if st.Eventually > 0 {
				return fmt.Errorf("not matched within %v:\n%v", st.Eventually, err)
			}
			return err
		}
		if perr := pause(ctx); perr != nil {
			return fmt.Errorf("%v (%v)", err, perr)
		}
	}
}

// indexBuildWait bounds how long a step waits for a reference Cassandra
// to finish building an index: Cassandra builds a new SAI index in the
// background and answers INDEX_NOT_AVAILABLE until it is queryable (on a
// loaded machine, even an empty table's index can take seconds). Only
// that answer is retried; dohyo's indexes are written with the DDL.
const indexBuildWait = 60 * time.Second

func indexBuilding(err error) bool {
	return err != nil && strings.Contains(err.Error(), "INDEX_NOT_AVAILABLE")
}

// pause waits 100 ms, or until ctx ends.
func pause(ctx context.Context) error {
	t := time.NewTimer(100 * time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// outcome is what a step produced. fatal is a runner/scenario problem (not a
// backend answer) that fails the scenario at once.
type outcome struct {
	res      *bindings.Result
	prepared *bindings.Prepared
	err      error
	fatal    error
}

func (r *runner) keyspaceFor(st *Step) string {
	if st.NoKeyspace {
		return ""
	}
	return r.cur
}

func (r *runner) execute(ctx context.Context, st *Step) outcome {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.timeout)
	defer cancel()
	ks := r.keyspaceFor(st)
	switch {
	case st.PrepareOnly:
		p, ok := bindings.Capability[bindings.Preparer](r.b)
		if !ok {
			return outcome{fatal: errors.New("backend does not implement bindings.Preparer")}
		}
		prep, err := p.Prepare(ctx, ks, r.subst(st.Query))
		return outcome{prepared: prep, err: err}
	case st.Batch != nil:
		return r.executeBatch(ctx, st, ks)
	}
	req := &bindings.Request{Keyspace: ks, Query: r.subst(st.Query),
		Consistency: bindings.One, SerialConsistency: bindings.Serial}
	if st.Timestamp != nil {
		req.Timestamp, req.HasTimestamp = *st.Timestamp, true
	}
	if st.Bind != nil {
		vals, names, out := r.bindValues(ctx, ks, req.Query, st.Bind)
		if out != nil {
			return *out
		}
		req.Values, req.Names = vals, names
	}
	if st.PageSize <= 0 {
		res, err := r.b.Execute(ctx, req)
		return outcome{res: res, err: err}
	}
	return r.executePaged(ctx, req, st.PageSize)
}

// maxPages stops a backend that never ends a paged query.
const maxPages = 10000

func (r *runner) executePaged(ctx context.Context, req *bindings.Request, size int32) outcome {
	req.PageSize = size
	var all *bindings.Result
	for page := 0; ; page++ {
		if page == maxPages {
			return outcome{fatal: fmt.Errorf("paging did not end after %d pages", maxPages)}
		}
		pageReq := *req // a fresh request per page: backends may keep it
		res, err := r.b.Execute(ctx, &pageReq)
		if err != nil {
			return outcome{err: err}
		}
		if res.Kind != bindings.ResultRows {
			return outcome{res: res}
		}
		if len(res.Rows) > int(size) {
			return outcome{fatal: fmt.Errorf("page %d has %d rows, page size is %d", page+1, len(res.Rows), size)}
		}
		if all == nil {
			all = &bindings.Result{Kind: bindings.ResultRows, Columns: res.Columns, Warnings: res.Warnings}
		}
		all.Rows = append(all.Rows, res.Rows...)
		if len(res.PagingState) == 0 {
			return outcome{res: all}
		}
		req.PagingState = res.PagingState
	}
}

func (r *runner) executeBatch(ctx context.Context, st *Step, ks string) outcome {
	req := &bindings.BatchRequest{Keyspace: ks, Consistency: bindings.One, SerialConsistency: bindings.Serial}
	switch st.Batch.Type {
	case "UNLOGGED":
		req.Type = cql.BatchUnlogged
	case "COUNTER":
		req.Type = cql.BatchCounter
	default:
		req.Type = cql.BatchLogged
	}
	if st.Timestamp != nil {
		req.Timestamp, req.HasTimestamp = *st.Timestamp, true
	}
	for _, c := range st.Batch.Children {
		e := bindings.BatchEntry{Query: r.subst(c.Query)}
		if c.Bind != nil {
			vals, names, out := r.bindValues(ctx, ks, e.Query, c.Bind)
			if out != nil {
				return *out
			}
			e.Values, e.Names = vals, names
		}
		req.Entries = append(req.Entries, e)
	}
	res, err := r.b.Batch(ctx, req)
	return outcome{res: res, err: err}
}

// bindValues prepares q to learn its bind types and encodes bv with them. A
// prepare error is the step's answer (returned as an outcome).
func (r *runner) bindValues(ctx context.Context, ks, q string, bv *BindValues) ([]bindings.Value, []string, *outcome) {
	p, ok := bindings.Capability[bindings.Preparer](r.b)
	if !ok {
		return nil, nil, &outcome{fatal: errors.New("@bind: backend does not implement bindings.Preparer")}
	}
	prep, err := p.Prepare(ctx, ks, q)
	if err != nil {
		return nil, nil, &outcome{err: err}
	}
	vals := make([]bindings.Value, len(bv.Values))
	for i, c := range bv.Values {
		var spec *bindings.ColumnSpec
		if bv.Names != nil {
			for j := range prep.Bind {
				if prep.Bind[j].Name == bv.Names[i] {
					spec = &prep.Bind[j]
					break
				}
			}
			if spec == nil {
				return nil, nil, &outcome{fatal: fmt.Errorf("@bind: no bind marker named %q (markers: %s)", bv.Names[i], specNames(prep.Bind))}
			}
		} else {
			if i >= len(prep.Bind) {
				return nil, nil, &outcome{fatal: fmt.Errorf("@bind: %d values for %d markers", len(bv.Values), len(prep.Bind))}
			}
			spec = &prep.Bind[i]
		}
		if bv.Unset[i] {
			vals[i] = bindings.Value{Unset: true}
			continue
		}
		if spec.Type == nil {
			return nil, nil, &outcome{fatal: fmt.Errorf("@bind: marker %q has no type", spec.Name)}
		}
		b, err := encodeCell(spec.Type, c, spec.Name)
		if err != nil {
			return nil, nil, &outcome{fatal: fmt.Errorf("@bind: %v", err)}
		}
		if b == nil && !c.Null {
			b = []byte{} // an empty value (e.g. '' or 0x) is not null
		}
		vals[i] = bindings.Value{Bytes: b}
	}
	var names []string
	if bv.Names != nil {
		names = append([]string(nil), bv.Names...)
	}
	return vals, names, nil
}

func specNames(specs []bindings.ColumnSpec) string {
	n := make([]string, len(specs))
	for i, s := range specs {
		n[i] = s.Name
	}
	return strings.Join(n, ", ")
}
