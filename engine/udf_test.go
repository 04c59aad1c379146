package engine

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/dohyo/dohyo/bindings"
)

// TestUDFChangesFromAnotherEngine checks that functions and aggregates
// created, replaced or dropped by another engine of a tier reach this
// engine's clients as FUNCTION and AGGREGATE changes with their argument
// types.
func TestUDFChangesFromAnotherEngine(t *testing.T) {
	h := newHarness(t)
	c0 := h.e.st.Load().cat
	h.exec("CREATE FUNCTION acc (st tuple<int, bigint>, x int) CALLED ON NULL INPUT RETURNS tuple<int, bigint> LANGUAGE java AS 'return st;'")
	h.exec("CREATE AGGREGATE agg (int) SFUNC acc STYPE tuple<int, bigint>")
	c1 := h.e.st.Load().cat
	h.exec("CREATE OR REPLACE FUNCTION acc (st tuple<int, bigint>, x int) CALLED ON NULL INPUT RETURNS tuple<int, bigint> LANGUAGE java AS 'return null;'")
	c2 := h.e.st.Load().cat
	render := func(chs []*bindings.SchemaChange) []string {
		var out []string
		for _, ch := range chs {
			out = append(out, fmt.Sprintf("%s %s %s %v", ch.Type, ch.Target, ch.Object, ch.Args))
		}
		return out
	}
	cases := []struct {
		from, to int
		want     []string
	}{
		{0, 1, []string{"CREATED FUNCTION acc [frozen<tuple<int, bigint>> int]", "CREATED AGGREGATE agg [int]"}},
		{1, 2, []string{"UPDATED FUNCTION acc [frozen<tuple<int, bigint>> int]"}},
		{1, 0, []string{"DROPPED AGGREGATE agg [int]", "DROPPED FUNCTION acc [frozen<tuple<int, bigint>> int]"}},
	}
	for _, c := range cases {
		from, to := c0, c1
		switch {
		case c.from == 1 && c.to == 2:
			from, to = c1, c2
		case c.from == 1 && c.to == 0:
			from, to = c1, c0
		}
		got := render(diffUDFs(from, to))
		slices.Sort(got)
		want := slices.Clone(c.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%d -> %d: %q, want %q", c.from, c.to, got, want)
		}
	}
}

// TestUDFErrors checks the error codes of UDF failures: a Java exception
// and an exhausted step budget are FunctionFailure; a body outside the
// subset is refused as unsupported at CREATE.
func TestUDFErrors(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (k int PRIMARY KEY, v int)")
	h.exec("INSERT INTO t (k, v) VALUES (1, 0)")
	h.exec("CREATE FUNCTION div (x int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS 'return 10 / x;'")
	h.exec("CREATE FUNCTION spin (x int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS 'while (true) { x++; }'")
	for _, q := range []string{"SELECT div(v) FROM t", "SELECT spin(v) FROM t"} {
		_, err := h.run(q)
		var be *bindings.Error
		if !errors.As(err, &be) || be.Code != bindings.CodeFunctionFail {
			t.Errorf("%s: %v, want a FunctionFailure", q, err)
		}
	}
	_, err := h.run("CREATE FUNCTION bad (x int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS 'switch (x) { default: return 1; }'")
	if !errors.Is(err, bindings.ErrUnsupported) {
		t.Errorf("switch body: %v, want unsupported", err)
	}
}
