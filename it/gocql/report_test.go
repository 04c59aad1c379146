package gocqlsuite

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a reporter that keeps the errors.
type recorder struct{ errs []string }

func (r *recorder) Helper()                      {}
func (r *recorder) Errorf(f string, args ...any) { r.errs = append(r.errs, fmt.Sprintf(f, args...)) }
func (r *recorder) Logf(string, ...any)          {}
func (r *recorder) Log(...any)                   {}

// fakeRuns builds runs where Cassandra passes n tests T0..T(n-1) plus
// TBroken fails there; override sets other targets' outcomes.
func fakeRuns(n int, override map[string]map[string]outcome) map[string]*run {
	runs := map[string]*run{}
	for _, p := range protos {
		for _, tg := range targets {
			r := &run{target: tg, proto: p, results: map[string]outcome{"TBroken": fail}}
			for i := range n {
				r.results[fmt.Sprintf("T%d", i)] = pass
			}
			for name, o := range override[tg+"/"+p] {
				r.results[name] = o
			}
			runs[tg+"/"+p] = r
		}
	}
	return runs
}

func allowFrom(t *testing.T, text string) *allowlist {
	t.Helper()
	path := filepath.Join(t.TempDir(), "allow.txt")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := readAllowlist(path)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestReportGate(t *testing.T) {
	for _, c := range []struct {
		name     string
		override map[string]map[string]outcome
		allow    string
		want     []string // substrings of the errors, in any order; none: no error
	}{
		{name: "all pass", override: nil},
		{name: "new failure", override: map[string]map[string]outcome{"hbase/4": {"T3": fail}},
			want: []string{"hbase proto 4: T3 passes on Cassandra but FAIL on dohyo"}},
		{name: "not run counts as failing", override: map[string]map[string]outcome{"relay/3": {"T5": ""}},
			want: []string{"relay proto 3: T5 passes on Cassandra but not run"}},
		{name: "allow-listed", override: map[string]map[string]outcome{"embedded/4": {"T1": fail}, "embedded/3": {"T1": fail}},
			allow: "embedded * T1 # UDTs\n"},
		{name: "stale entry", allow: "hbase 4 T2 # fixed since\n",
			want: []string{"allowlist.txt:1: hbase 4 T2 no longer fails"}},
		{name: "failing on Cassandra too is not counted", override: map[string]map[string]outcome{"hbase/4": {"TBroken": fail}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var rec recorder
			report(&rec, fakeRuns(150, c.override), allowFrom(t, c.allow))
			if len(rec.errs) != len(c.want) {
				t.Fatalf("errors %q, want %d matching %q", rec.errs, len(c.want), c.want)
			}
			for i, w := range c.want {
				if !strings.Contains(rec.errs[i], w) {
					t.Errorf("error %q does not contain %q", rec.errs[i], w)
				}
			}
		})
	}
	t.Run("broken reference", func(t *testing.T) {
		var rec recorder
		report(&rec, fakeRuns(10, nil), allowFrom(t, ""))
		if len(rec.errs) != 2 || !strings.Contains(rec.errs[0], "the reference run broke") {
			t.Errorf("errors %q, want the two protocols' reference runs reported broken", rec.errs)
		}
	})
}

func TestReadAllowlistRejectsMalformed(t *testing.T) {
	for _, text := range []string{"embedded 4 TestX\n", "mars 4 TestX # why\n", "hbase 5 TestX # why\n", "hbase 4 # why\n"} {
		path := filepath.Join(t.TempDir(), "a.txt")
		_ = os.WriteFile(path, []byte(text), 0o644)
		if _, err := readAllowlist(path); err == nil {
			t.Errorf("%q: accepted", text)
		}
	}
}

// TestAllowlistParses keeps the committed list well-formed without servers.
func TestAllowlistParses(t *testing.T) {
	a, err := readAllowlist("allowlist.txt")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range a.entries {
		k := e.target + " " + e.proto + " " + e.test
		if seen[k] {
			t.Errorf("allowlist.txt:%d: %s listed twice", e.line, k)
		}
		seen[k] = true
	}
}
