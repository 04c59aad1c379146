package bindingtest

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// fakeBackend answers from a script keyed by query text; keyspace DDL issued
// by the runner itself succeeds. It records every request.
type fakeBackend struct {
	mu      sync.Mutex
	script  map[string][]response // consumed in order; the last one repeats
	prep    map[string]*bindings.Prepared
	reqs    []*bindings.Request
	batches []*bindings.BatchRequest
	closed  bool
}

type response struct {
	res *bindings.Result
	err error
}

func newFake() *fakeBackend {
	return &fakeBackend{script: map[string][]response{}, prep: map[string]*bindings.Prepared{}}
}

func (f *fakeBackend) on(q string, rs ...response) *fakeBackend {
	f.script[q] = append(f.script[q], rs...)
	return f
}

func (f *fakeBackend) next(q string) (*bindings.Result, error) {
	rs, ok := f.script[q]
	if !ok {
		if strings.Contains(q, "KEYSPACE") {
			return &bindings.Result{Kind: bindings.ResultVoid}, nil
		}
		return nil, bindings.Errorf(bindings.CodeServerError, "fake: unscripted query %q", q)
	}
	r := rs[0]
	if len(rs) > 1 {
		f.script[q] = rs[1:]
	}
	return r.res, r.err
}

func (f *fakeBackend) Execute(_ context.Context, req *bindings.Request) (*bindings.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = append(f.reqs, req)
	return f.next(req.Query)
}

func (f *fakeBackend) Batch(_ context.Context, req *bindings.BatchRequest) (*bindings.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.batches = append(f.batches, req)
	return f.next("BATCH")
}

func (f *fakeBackend) Prepare(_ context.Context, _, q string) (*bindings.Prepared, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if p, ok := f.prep[q]; ok {
		return p, nil
	}
	return nil, bindings.Errorf(bindings.CodeInvalid, "fake: cannot prepare %q", q)
}

func (f *fakeBackend) Close() error { f.closed = true; return nil }

func i32(n int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(n)) }

var (
	intT  = cql.Scalar(cql.KindInt)
	textT = cql.Scalar(cql.KindText)
)

func cols(names []string, types ...*cql.Type) []bindings.ColumnSpec {
	out := make([]bindings.ColumnSpec, len(names))
	for i := range names {
		out[i] = bindings.ColumnSpec{Name: names[i], Type: types[i]}
	}
	return out
}

func rowsRes(c []bindings.ColumnSpec, rows ...[][]byte) response {
	return response{res: &bindings.Result{Kind: bindings.ResultRows, Columns: c, Rows: rows}}
}

var void = response{res: &bindings.Result{Kind: bindings.ResultVoid}}

// runSrc parses one scenario and runs it against f with keyspace "ks".
func runSrc(t *testing.T, f *fakeBackend, src string) error {
	t.Helper()
	scs, err := ParseFile("t.cql", src)
	if err != nil {
		t.Fatal(err)
	}
	if err := compileCells(scs[0]); err != nil {
		t.Fatal(err)
	}
	r := &runner{b: f, cfg: &config{timeout: 5 * time.Second}, sc: scs[0], ks: "ks"}
	return r.run(context.Background())
}

func TestRunnerMatchesRows(t *testing.T) {
	kv := cols([]string{"k", "v"}, intT, textT)
	f := newFake().
		on("INSERT INTO t (k, v) VALUES (1, 'a')", void).
		on("SELECT * FROM t", rowsRes(kv, [][]byte{i32(1), []byte("a")}, [][]byte{i32(2), nil}))
	err := runSrc(t, f, "=== ok\n> INSERT INTO t (k, v) VALUES (1, 'a')\n> SELECT * FROM t\nk | v\n1 | 'a'\n2 | null\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range f.reqs {
		if got.Query == "SELECT * FROM t" && (got.Keyspace != "ks" || got.PageSize != 0 || got.Consistency != bindings.One) {
			t.Errorf("request: got keyspace %q page size %d consistency %v", got.Keyspace, got.PageSize, got.Consistency)
		}
	}
}

func TestRunnerReportsMismatches(t *testing.T) {
	kv := cols([]string{"k", "v"}, intT, textT)
	tests := []struct {
		name string
		resp response
		want string // expectation lines
		msg  []string
	}{
		{"wrong value", rowsRes(kv, [][]byte{i32(1), []byte("b")}), "k | v\n1 | 'a'", []string{"row 1 differs", "1 | 'b'", "1 | 'a'"}},
		{"wrong header", rowsRes(kv, [][]byte{i32(1), []byte("a")}), "k | w\n1 | 'a'", []string{"column names differ"}},
		{"extra row", rowsRes(kv, [][]byte{i32(1), []byte("a")}, [][]byte{i32(2), []byte("b")}), "k | v\n1 | 'a'", []string{"got 2 rows, want 1"}},
		{"null versus value", rowsRes(kv, [][]byte{i32(1), nil}), "k | v\n1 | ''", []string{"row 1 differs"}},
		{"any needs a value", rowsRes(kv, [][]byte{i32(1), nil}), "k | v\n1 | ~", []string{"row 1 differs"}},
		{"void instead of rows", void, "(0 rows)", []string{"want rows, got (void)"}},
		{"rows instead of void", rowsRes(kv), "(void)", []string{"want (void)"}},
		{"error instead of rows", response{err: bindings.Errorf(bindings.CodeInvalid, "boom")}, "(0 rows)", []string{"want success, got error Invalid: boom"}},
		{"success instead of error", rowsRes(kv), "! Invalid: boom", []string{"want error Invalid", "got success"}},
		{"wrong error code", response{err: bindings.Errorf(bindings.CodeSyntaxError, "boom")}, "! Invalid: boom", []string{"got  error SyntaxError: boom"}},
		{"wrong error message", response{err: bindings.Errorf(bindings.CodeInvalid, "bang")}, "! Invalid: boom", []string{`containing "boom"`}},
		{"keyspace result", void, "(keyspace ks)", []string{"want (keyspace ks), got (void)"}},
		{"schema result", void, "(schema CREATED TABLE ks.t)", []string{"want (schema CREATED TABLE ks.t)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake().on("SELECT * FROM t", tc.resp)
			err := runSrc(t, f, "=== bad one\n> SELECT * FROM t\n"+tc.want+"\n")
			if err == nil {
				t.Fatal("got no error, want a mismatch")
			}
			for _, m := range append(tc.msg, `scenario "bad one" (t.cql:1)`, "statement at t.cql:2", "SELECT * FROM t") {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not contain %q", err, m)
				}
			}
		})
	}
}

// TestRunnerWarnings: "warn:" lines check the result's warnings in
// order by substring; "warn: -" wants none; without them nothing is
// checked.
func TestRunnerWarnings(t *testing.T) {
	warned := &bindings.Result{Kind: bindings.ResultVoid, Warnings: []string{"first warning of ks", "second"}}
	for _, tc := range []struct {
		name, exp string
		res       *bindings.Result
		msg       string // "" : passes
	}{
		{"match", "warn: warning of ${ks}\nwarn: sec\n(void)", warned, ""},
		{"after the result", "(void)\nwarn: first\nwarn: second", warned, ""},
		{"not checked", "(void)", warned, ""},
		{"none", "warn: -", &bindings.Result{Kind: bindings.ResultVoid}, ""},
		{"unexpected", "warn: -", warned, "warnings differ"},
		{"missing", "warn: first", &bindings.Result{Kind: bindings.ResultVoid}, "warnings differ"},
		{"order", "warn: second\nwarn: first", warned, "warnings differ"},
		{"fewer", "warn: first", warned, "warnings differ"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake().on("SELECT 1", response{res: tc.res})
			err := runSrc(t, f, "=== w\n> SELECT 1\n"+tc.exp+"\n")
			if tc.msg == "" && err != nil {
				t.Fatal(err)
			}
			if tc.msg != "" && (err == nil || !strings.Contains(err.Error(), tc.msg)) {
				t.Fatalf("got %v, want an error containing %q", err, tc.msg)
			}
		})
	}
}

func TestRunnerWriteWithoutExpectationMustBeVoid(t *testing.T) {
	applied := cols([]string{"[applied]"}, cql.Scalar(cql.KindBoolean))
	f := newFake().on("INSERT INTO t (k) VALUES (1) IF NOT EXISTS", rowsRes(applied, [][]byte{{1}}))
	err := runSrc(t, f, "=== w\n> INSERT INTO t (k) VALUES (1) IF NOT EXISTS\n")
	if err == nil || !strings.Contains(err.Error(), "want a void result") {
		t.Fatalf("got %v, want a void-result error", err)
	}
	f = newFake().on("INSERT INTO t (k) VALUES (1) IF NOT EXISTS", rowsRes(applied, [][]byte{{1}}))
	if err := runSrc(t, f, "=== w\n> INSERT INTO t (k) VALUES (1) IF NOT EXISTS\n[applied]\ntrue\n"); err != nil {
		t.Fatal(err)
	}
}

func TestRunnerUnordered(t *testing.T) {
	kv := cols([]string{"k", "v"}, intT, textT)
	resp := rowsRes(kv, [][]byte{i32(2), []byte("b")}, [][]byte{i32(1), []byte("a")})
	src := func(dir string) string {
		return "=== u\n> " + dir + "SELECT * FROM t\nk | v\n1 | ~\n2 | 'b'\n"
	}
	if err := runSrc(t, newFake().on("SELECT * FROM t", resp), src("@unordered ")); err != nil {
		t.Fatalf("unordered: %v", err)
	}
	if err := runSrc(t, newFake().on("SELECT * FROM t", resp), src("")); err == nil {
		t.Fatal("ordered comparison of out-of-order rows passed")
	}
	// "~" must not let one got row satisfy two wanted rows.
	one := rowsRes(kv, [][]byte{i32(1), []byte("a")}, [][]byte{i32(3), []byte("c")})
	if err := runSrc(t, newFake().on("SELECT * FROM t", one), "=== u\n> @unordered SELECT * FROM t\nk | v\n1 | ~\n1 | 'a'\n"); err == nil {
		t.Fatal("unordered comparison reused a row")
	}
}

func TestRunnerPaging(t *testing.T) {
	kv := cols([]string{"k", "v"}, intT, textT)
	page := func(state string, rows ...[][]byte) response {
		r := rowsRes(kv, rows...)
		if state != "" {
			r.res.PagingState = []byte(state)
		}
		return r
	}
	f := newFake().on("SELECT * FROM t",
		page("p1", [][]byte{i32(1), []byte("a")}, [][]byte{i32(2), []byte("b")}),
		page("p2", [][]byte{i32(3), []byte("c")}),
		page(""))
	if err := runSrc(t, f, "=== p\n> @page 2 SELECT * FROM t\nk | v\n1 | 'a'\n2 | 'b'\n3 | 'c'\n"); err != nil {
		t.Fatal(err)
	}
	var states []string
	for _, r := range f.reqs {
		if r.Query == "SELECT * FROM t" {
			if r.PageSize != 2 {
				t.Errorf("page size: got %d, want 2", r.PageSize)
			}
			states = append(states, string(r.PagingState))
		}
	}
	if strings.Join(states, ",") != ",p1,p2" {
		t.Errorf("paging states sent: got %q, want \",p1,p2\"", states)
	}

	f = newFake().on("SELECT * FROM t", page("", [][]byte{i32(1), nil}, [][]byte{i32(2), nil}, [][]byte{i32(3), nil}))
	err := runSrc(t, f, "=== p\n> @page 2 SELECT * FROM t\nk | v\n1 | null\n2 | null\n3 | null\n")
	if err == nil || !strings.Contains(err.Error(), "page 1 has 3 rows, page size is 2") {
		t.Fatalf("got %v, want an oversized page error", err)
	}
}

func TestRunnerEventually(t *testing.T) {
	kv := cols([]string{"k", "v"}, intT, textT)
	live := rowsRes(kv, [][]byte{i32(1), []byte("a")})
	gone := rowsRes(kv)
	f := newFake().on("SELECT * FROM t", live, live, gone)
	if err := runSrc(t, f, "=== e\n> @eventually 5s SELECT * FROM t\n(0 rows)\n"); err != nil {
		t.Fatal(err)
	}
	if n := len(f.reqs); n < 3 {
		t.Errorf("got %d requests, want at least 3 (polling)", n)
	}
	f = newFake().on("SELECT * FROM t", live)
	err := runSrc(t, f, "=== e\n> @eventually 300ms SELECT * FROM t\n(0 rows)\n")
	if err == nil || !strings.Contains(err.Error(), "not matched within 300ms") {
		t.Fatalf("got %v, want a timeout mismatch", err)
	}
}

func TestRunnerBind(t *testing.T) {
	f := newFake()
	f.prep["INSERT INTO t (k, v) VALUES (?, ?)"] = &bindings.Prepared{Bind: cols([]string{"k", "v"}, intT, textT)}
	f.prep["SELECT v FROM t WHERE k = :key"] = &bindings.Prepared{Bind: cols([]string{"key"}, intT)}
	f.on("INSERT INTO t (k, v) VALUES (?, ?)", void)
	f.on("SELECT v FROM t WHERE k = :key", rowsRes(cols([]string{"v"}, textT), [][]byte{[]byte("")}))
	src := "=== b\n> @bind (7, unset) INSERT INTO t (k, v) VALUES (?, ?)\n> @bind {key: 7} SELECT v FROM t WHERE k = :key\nv\n''\n"
	if err := runSrc(t, f, src); err != nil {
		t.Fatal(err)
	}
	var ins, sel *bindings.Request
	for _, r := range f.reqs {
		switch r.Query {
		case "INSERT INTO t (k, v) VALUES (?, ?)":
			ins = r
		case "SELECT v FROM t WHERE k = :key":
			sel = r
		}
	}
	if ins == nil || len(ins.Values) != 2 || string(ins.Values[0].Bytes) != string(i32(7)) || !ins.Values[1].Unset || ins.Names != nil {
		t.Errorf("positional values: got %+v", ins)
	}
	if sel == nil || len(sel.Names) != 1 || sel.Names[0] != "key" || string(sel.Values[0].Bytes) != string(i32(7)) {
		t.Errorf("named values: got %+v", sel)
	}

	err := runSrc(t, newFake(), "=== b\n> @bind (1) SELECT nope\n! Invalid: cannot prepare\n")
	if err != nil {
		t.Errorf("a prepare error must count as the step's answer: %v", err)
	}
}

func TestRunnerBatch(t *testing.T) {
	f := newFake()
	f.prep["INSERT INTO t (k) VALUES (?)"] = &bindings.Prepared{Bind: cols([]string{"k"}, intT)}
	f.on("BATCH", void)
	src := "=== b\n> @timestamp 9 @batch unlogged\n  INSERT INTO ${ks}.t (k) VALUES (1)\n  @bind (2) INSERT INTO t (k) VALUES (?)\n"
	if err := runSrc(t, f, src); err != nil {
		t.Fatal(err)
	}
	if len(f.batches) != 1 {
		t.Fatalf("got %d batches, want 1", len(f.batches))
	}
	b := f.batches[0]
	if b.Type != cql.BatchUnlogged || !b.HasTimestamp || b.Timestamp != 9 || b.Keyspace != "ks" || len(b.Entries) != 2 {
		t.Fatalf("batch: got %+v", b)
	}
	if b.Entries[0].Query != "INSERT INTO ks.t (k) VALUES (1)" || string(b.Entries[1].Values[0].Bytes) != string(i32(2)) {
		t.Errorf("entries: got %+v", b.Entries)
	}
}

func TestRunnerKeyspaces(t *testing.T) {
	f := newFake().
		on("USE ks_x", response{res: &bindings.Result{Kind: bindings.ResultSetKeyspace, Keyspace: "ks_x"}}).
		on("SELECT * FROM t", rowsRes(cols([]string{"k"}, intT)))
	src := "=== k\n> SELECT * FROM t\n(0 rows)\n> USE ${ks}_x\n(keyspace ${ks}_x)\n> SELECT * FROM t\n(0 rows)\n> @nokeyspace SELECT * FROM t\n(0 rows)\n"
	if err := runSrc(t, f, src); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range f.reqs {
		got = append(got, r.Keyspace+":"+r.Query)
	}
	want := []string{
		":DROP KEYSPACE IF EXISTS ks_x", ":DROP KEYSPACE IF EXISTS ks",
		":CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"ks:SELECT * FROM t", "ks:USE ks_x", "ks_x:SELECT * FROM t", ":SELECT * FROM t",
		":DROP KEYSPACE IF EXISTS ks_x", ":DROP KEYSPACE IF EXISTS ks",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests:\ngot  %q\nwant %q", got, want)
	}
}

func TestRunnerSetupFailure(t *testing.T) {
	f := newFake().on("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		response{err: bindings.Errorf(bindings.CodeServerError, "disk full")})
	err := runSrc(t, f, "=== s\n> SELECT 1\n")
	if err == nil || !strings.Contains(err.Error(), "setup") || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("got %v, want a setup error", err)
	}
}

func writeSuite(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestRunSelection checks skip options and the DOHYO_SCENARIO filter by
// recording which scenarios reached the backend.
func TestRunSelection(t *testing.T) {
	dir := writeSuite(t, map[string]string{
		"alpha.cql": "=== one\n> SELECT 'one'\n=== two [slow]\n> SELECT 'two'\n=== three\n> SELECT 'three'\n",
		"beta.cql":  "=== four\n> SELECT 'four'\n",
	})
	var mu sync.Mutex
	ran := map[string]bool{}
	var fakes []*fakeBackend
	newBackend := func(t *testing.T) bindings.Backend {
		f := newFake()
		for _, q := range []string{"one", "two", "three", "four"} {
			f.on("SELECT '"+q+"'", rowsRes(nil))
		}
		mu.Lock()
		fakes = append(fakes, f)
		mu.Unlock()
		return f
	}
	t.Setenv(FilterEnv, "^(alpha|beta)/(one|two|four)$")
	t.Run("suite", func(t *testing.T) {
		Run(t, newBackend, FromDir(dir), SkipTag("slow", "too slow"), SkipScenarios("fo+ur", "not today"))
	})
	for _, f := range fakes {
		if !f.closed {
			t.Error("backend not closed")
		}
		for _, r := range f.reqs {
			if strings.HasPrefix(r.Query, "SELECT") {
				ran[strings.Trim(strings.TrimPrefix(r.Query, "SELECT "), "'")] = true
			}
		}
	}
	if len(ran) != 1 || !ran["one"] {
		t.Errorf("scenarios that ran: got %v, want only one", ran)
	}
}

func TestRunAllowUnsupported(t *testing.T) {
	dir := writeSuite(t, map[string]string{
		"x.cql": "=== fancy [beyond-d3]\n> SELECT fancy\n(0 rows)\n",
	})
	newBackend := func(t *testing.T) bindings.Backend {
		return newFake().on("SELECT fancy", response{err: bindings.Unsupported("fancy is not supported")})
	}
	t.Run("suite", func(t *testing.T) {
		Run(t, newBackend, FromDir(dir), AllowUnsupported("beyond-d3"), Sequential())
	})
	scs, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{b: newBackend(t), cfg: &config{timeout: time.Second}, sc: &scs[0], ks: "ks"}
	var u *unsupportedError
	if err := r.run(context.Background()); err == nil || !asUnsupported(err, &u) {
		t.Fatalf("got %v, want an unsupported error", err)
	}
}

func asUnsupported(err error, u **unsupportedError) bool {
	e, ok := err.(*unsupportedError)
	if ok {
		*u = e
	}
	return ok
}
