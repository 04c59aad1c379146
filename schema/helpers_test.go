package schema

import (
	"errors"
	"testing"
	"time"

	"github.com/dohyo/dohyo/cql"
)

// seqReader is a deterministic random source: 1, 2, 3, ...
type seqReader struct{ n byte }

func (r *seqReader) Read(p []byte) (int, error) {
	for i := range p {
		r.n++
		p[i] = r.n
	}
	return len(p), nil
}

// testOptions returns options with a clock that advances one second per call
// and a deterministic random source.
func testOptions() Options {
	t0 := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	n := 0
	return Options{
		Now:  func() time.Time { n++; return t0.Add(time.Duration(n) * time.Second) },
		Rand: &seqReader{},
	}
}

func parse(t *testing.T, text string) cql.Statement {
	t.Helper()
	p, err := cql.Parse(text)
	if err != nil {
		t.Fatalf("parse %q: %v", text, err)
	}
	return p.Stmt
}

// run applies each statement in turn (current keyspace "ks") and fails the
// test on any error.
func run(t *testing.T, c *Catalog, stmts ...string) *Catalog {
	t.Helper()
	for _, s := range stmts {
		next, _, err := c.Apply(parse(t, s), "ks")
		if err != nil {
			t.Fatalf("apply %q: %v", s, err)
		}
		c = next
	}
	return c
}

// newCatalog returns a catalog with keyspace ks (SimpleStrategy, RF 1).
func newCatalog(t *testing.T, stmts ...string) *Catalog {
	t.Helper()
	c := NewWithOptions(testOptions())
	c = run(t, c, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	return run(t, c, stmts...)
}

// applyErr applies stmt and returns its *Error (failing if it succeeds).
func applyErr(t *testing.T, c *Catalog, stmt cql.Statement, current string) *Error {
	t.Helper()
	next, _, err := c.Apply(stmt, current)
	if err == nil {
		t.Fatalf("apply %#v: want error, got success", stmt)
	}
	if next != nil {
		t.Errorf("apply returned a catalog with an error")
	}
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("error %v is %T, want *schema.Error", err, err)
	}
	return se
}

// errCase is a statement expected to fail with Code and Message.
type errCase struct {
	name string
	stmt string
	code Code
	msg  string
}

func runErrCases(t *testing.T, c *Catalog, cases []errCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := applyErr(t, c, parse(t, tc.stmt), "ks")
			if got.Code != tc.code || got.Message != tc.msg {
				t.Errorf("%s\n got %v %q\nwant %v %q", tc.stmt, got.Code, got.Message, tc.code, tc.msg)
			}
		})
	}
}

func str(s string) *cql.Literal { return &cql.Literal{Kind: cql.LitString, Text: s} }
