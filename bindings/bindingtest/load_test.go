package bindingtest

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/dohyo/dohyo/bindings"
)

// minScenarios is the floor the suite must keep (the engine issue asks for
// at least 220 conformance scenarios).
const minScenarios = 220

func TestLoadEmbeddedSuite(t *testing.T) {
	scs, err := Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	if len(scs) < minScenarios {
		t.Fatalf("got %d scenarios, want at least %d", len(scs), minScenarios)
	}
	perArea := map[string]int{}
	for _, s := range scs {
		perArea[s.Area]++
	}
	areas := make([]string, 0, len(perArea))
	for a := range perArea {
		areas = append(areas, a)
	}
	sort.Strings(areas)
	parts := make([]string, len(areas))
	for i, a := range areas {
		parts[i] = fmt.Sprintf("%s=%d", a, perArea[a])
	}
	t.Logf("%d scenarios: %s", len(scs), strings.Join(parts, " "))
}

func TestLoadDirMatchesEmbedded(t *testing.T) {
	fromDir, err := Load("testdata")
	if err != nil {
		t.Fatal(err)
	}
	embedded, err := Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	if len(fromDir) != len(embedded) {
		t.Fatalf("Load(testdata) = %d scenarios, embedded = %d", len(fromDir), len(embedded))
	}
}

// TestSuiteKeyspaceNames checks that every scenario gets a distinct, valid
// keyspace name (parallel scenarios must not share keyspaces).
func TestSuiteKeyspaceNames(t *testing.T) {
	scs, err := Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	valid := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	seen := map[string]string{}
	for _, s := range scs {
		ks := keyspaceName("bt", s.Name)
		// Room for the longest ${ks}_suffix used by the suite.
		if len(ks)+8 > 48 || !valid.MatchString(ks) {
			t.Errorf("scenario %q: bad keyspace name %q", s.Name, ks)
		}
		if other, dup := seen[ks]; dup {
			t.Errorf("scenarios %q and %q share keyspace %q", s.Name, other, ks)
		}
		seen[ks] = s.Name
	}
}

func TestParseFileForms(t *testing.T) {
	src := `# comment
=== forms [tag1, tag2]
> CREATE TABLE t (k int PRIMARY KEY, v text)
(schema CREATED TABLE ${ks}.t)
> @bind (1, 'a | b', unset) INSERT INTO t (k, v)
  VALUES (?, ?)
> @page 3 @unordered SELECT k, v FROM t
k | v
1 | 'a | b'
~ | null
> @bind {k: 1, "V": 'x'} SELECT * FROM t WHERE k = :k
(0 rows)
> @prepare SELECT k, v FROM t WHERE k IN ? LIMIT ?
bind: in(k) list<int>, [limit] int
result: k int, v text
pk: -
> @timestamp 77 @batch unlogged
  INSERT INTO t (k) VALUES (1)
  @bind (2) INSERT INTO t (k) VALUES (?)
> @eventually 2s SELECT x FROM t
! Invalid: Undefined column name x
> USE ${ks}
(keyspace ${ks})
> DELETE FROM t WHERE k = 1
(void)
`
	scs, err := ParseFile("dir/area.cql", src)
	if err != nil {
		t.Fatal(err)
	}
	if len(scs) != 1 {
		t.Fatalf("got %d scenarios, want 1", len(scs))
	}
	sc := scs[0]
	if sc.Name != "forms" || sc.Area != "area" || !sc.HasTag("tag2") || !sc.HasTag("area") || sc.HasTag("x") {
		t.Errorf("header: got name %q area %q tags %v", sc.Name, sc.Area, sc.Tags)
	}
	if len(sc.Steps) != 9 {
		t.Fatalf("got %d steps, want 9", len(sc.Steps))
	}
	st := sc.Steps
	if e := st[0].Expect; e.Kind != ExpectSchema || e.Change != "CREATED" || e.Target != "TABLE" || e.Keyspace != "${ks}" || e.Object != "t" {
		t.Errorf("schema expectation: got %+v", e)
	}
	if b := st[1].Bind; b == nil || len(b.Values) != 3 || b.Values[1].Text != "'a | b'" || !b.Unset[2] || b.Names != nil {
		t.Errorf("positional bind: got %+v", b)
	}
	if st[1].Query != "INSERT INTO t (k, v)\nVALUES (?, ?)" || st[1].Line != 5 {
		t.Errorf("continuation: got %q at line %d", st[1].Query, st[1].Line)
	}
	if st[2].PageSize != 3 || !st[2].Unordered || len(st[2].Expect.Rows) != 2 ||
		st[2].Expect.Rows[0][1].Text != "'a | b'" || !st[2].Expect.Rows[1][0].Any || !st[2].Expect.Rows[1][1].Null {
		t.Errorf("rows: got %+v", st[2])
	}
	if b := st[3].Bind; b == nil || strings.Join(b.Names, ",") != "k,V" || st[3].Expect.Kind != ExpectRows || st[3].Expect.Header != nil {
		t.Errorf("named bind / (0 rows): got %+v %+v", b, st[3].Expect)
	}
	e := st[4].Expect
	if !st[4].PrepareOnly || e.Kind != ExpectPrepared || len(e.BindSpecs) != 2 || e.BindSpecs[0] != (SpecWant{"in(k)", "list<int>"}) ||
		e.ResultSpecs[1] != (SpecWant{"v", "text"}) || !e.CheckPK || len(e.PKIndexes) != 0 {
		t.Errorf("prepared expectation: got %+v", e)
	}
	if b := st[5].Batch; b == nil || b.Type != "UNLOGGED" || len(b.Children) != 2 || b.Children[1].Bind == nil ||
		b.Children[1].Query != "INSERT INTO t (k) VALUES (?)" || st[5].Timestamp == nil || *st[5].Timestamp != 77 {
		t.Errorf("batch: got %+v", st[5])
	}
	if st[6].Eventually != 2*time.Second || st[6].Expect.Kind != ExpectError || st[6].Expect.Code != bindings.CodeInvalid ||
		st[6].Expect.Substring != "Undefined column name x" {
		t.Errorf("error expectation: got %+v", st[6])
	}
	if e := st[7].Expect; e.Kind != ExpectKeyspace || e.Keyspace != "${ks}" {
		t.Errorf("keyspace expectation: got %+v", e)
	}
	if st[8].Expect.Kind != ExpectVoid {
		t.Errorf("void expectation: got %+v", st[8].Expect)
	}
}

func TestParseFileErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"statement outside scenario", "> SELECT 1", "outside a scenario"},
		{"expectation without statement", "=== a\nk\n1", "without a statement"},
		{"scenario without statements", "=== a\n=== b\n> SELECT 1", "has no statements"},
		{"unknown directive", "=== a\n> @nope SELECT 1", "unknown directive"},
		{"bad page size", "=== a\n> @page 0 SELECT 1", "positive page size"},
		{"bad duration", "=== a\n> @eventually soon SELECT 1", "wants a duration"},
		{"bad batch type", "=== a\n> @batch sometimes\n  INSERT", "LOGGED, UNLOGGED or COUNTER"},
		{"empty batch", "=== a\n> @batch logged", "@batch without statements"},
		{"unknown error code", "=== a\n> SELECT 1\n! Oops: x", "unknown error code"},
		{"line after error", "=== a\n> SELECT 1\n! Invalid\nk", "nothing may follow"},
		{"cell count", "=== a\n> SELECT 1\nk | v\n1", "row has 1 cells, header has 2"},
		{"empty cell", "=== a\n> SELECT 1\nk | v\n1 |", "empty cell"},
		{"header without rows", "=== a\n> SELECT 1\nk | v", "needs rows"},
		{"unknown paren form", "=== a\n> SELECT 1\n(maybe)", "unknown expectation"},
		{"bad schema form", "=== a\n> SELECT 1\n(schema CREATED)", "want (schema"},
		{"prepare without expectation", "=== a\n> @prepare SELECT 1", "needs bind:"},
		{"prepare with bind", "=== a\n> @prepare @bind (1) SELECT 1\nbind: k int", "cannot be combined"},
		{"bad prepared line", "=== a\n> @prepare SELECT 1\nfoo: k int", "unknown prepared expectation"},
		{"bad spec", "=== a\n> @prepare SELECT 1\nbind: k", "want \"name type\""},
		{"bad bind", "=== a\n> @bind 1 SELECT 1", "@bind wants"},
		{"unbalanced bind", "=== a\n> @bind (1, 2 SELECT 1", "unbalanced"},
		{"named bind without colon", "=== a\n> @bind {k} SELECT 1", "wants name: value"},
		{"slash in name", "=== a/b\n> SELECT 1", "must not contain"},
		{"bad tags", "=== a [x\n> SELECT 1", "bad tag list"},
		{"empty warning", "=== a\n> SELECT 1\nwarn:", "warn: wants a substring"},
		{"warnings and none", "=== a\n> SELECT 1\nwarn: x\nwarn: -", "cannot follow"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseFile("x.cql", tc.src)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got error %v, want one containing %q", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "x.cql:") {
				t.Errorf("error %q does not start with file:line", err)
			}
		})
	}
}

func TestLoadRejectsDuplicatesAndBadLiterals(t *testing.T) {
	tests := []struct {
		name string
		fs   fstest.MapFS
		want string
	}{
		{"duplicate across files", fstest.MapFS{
			"a.cql": {Data: []byte("=== same\n> SELECT 1\n")},
			"b.cql": {Data: []byte("=== same\n> SELECT 2\n")},
		}, "duplicate scenario name"},
		{"bad literal in a row", fstest.MapFS{
			"a.cql": {Data: []byte("=== x\n> SELECT 1\nk\n'unterminated\n")},
		}, "bad literal"},
		{"bad literal in a bind", fstest.MapFS{
			"a.cql": {Data: []byte("=== x\n> @bind ([1, ]) SELECT 1\n")},
		}, "bad literal"},
		{"no files", fstest.MapFS{"readme.txt": {Data: []byte("x")}}, "no *.cql files"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadFS(tc.fs, "mem")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestSplitTop(t *testing.T) {
	tests := []struct {
		in   string
		sep  byte
		want []string
	}{
		{"a | b", '|', []string{"a ", " b"}},
		{"'x | y' | {1: 2} | [3, 4]", '|', []string{"'x | y' ", " {1: 2} ", " [3, 4]"}},
		{"'it''s | here' | 1", '|', []string{"'it''s | here' ", " 1"}},
		{"$$a | b$$ | c", '|', []string{"$$a | b$$ ", " c"}},
		{"m map<text, int>, k int", ',', []string{"m map<text, int>", " k int"}},
		{`"a,b" int, c int`, ',', []string{`"a,b" int`, " c int"}},
	}
	for _, tc := range tests {
		got := splitTop(tc.in, tc.sep)
		if strings.Join(got, "\x00") != strings.Join(tc.want, "\x00") {
			t.Errorf("splitTop(%q, %q) = %q, want %q", tc.in, tc.sep, got, tc.want)
		}
	}
}
