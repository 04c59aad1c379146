package schema

import (
	"testing"

	"github.com/dohyo/dohyo/cql"
)

func TestTypeString(t *testing.T) {
	i := cql.Scalar(cql.KindInt)
	cases := []struct {
		typ  *cql.Type
		want string
	}{
		{cql.Scalar(cql.KindText), "text"},
		{cql.ListOf(i), "list<int>"},
		{cql.FrozenOf(cql.SetOf(i)), "frozen<set<int>>"},
		{cql.MapOf(cql.Scalar(cql.KindText), cql.FrozenOf(cql.ListOf(i))), "map<text, frozen<list<int>>>"},
		{cql.TupleOf(i, cql.Scalar(cql.KindText)), "frozen<tuple<int, text>>"},
		{&cql.Type{Kind: cql.KindUDT, Name: "Addr", Frozen: true}, `frozen<"Addr">`},
		{&cql.Type{Kind: cql.KindUDT, Name: "addr"}, "addr"},
	}
	for _, tc := range cases {
		if got := TypeString(tc.typ); got != tc.want {
			t.Errorf("TypeString(%s) = %s, want %s", tc.typ, got, tc.want)
		}
	}
}

func TestPrepareTypeDoesNotAliasInput(t *testing.T) {
	inner := cql.ListOf(cql.Scalar(cql.KindInt))
	raw := cql.FrozenOf(cql.ListOf(inner))
	got, err := prepareType(raw, "ks", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Elems[0].Frozen {
		t.Error("nested list not frozen")
	}
	if inner.Frozen || raw.Elems[0].Frozen {
		t.Error("input type was modified")
	}
}

func TestParsedTypesRoundTrip(t *testing.T) {
	// TypeString output must parse back to the same canonical type, so
	// system_schema readers (drivers, cqlsh) see consistent types.
	for _, s := range []string{
		"int", "list<int>", "frozen<set<text>>", "map<text, frozen<list<int>>>",
		"frozen<tuple<int, frozen<map<int, text>>>>", "frozen<list<frozen<tuple<int, text>>>>", "duration",
	} {
		raw, err := cql.ParseType(s)
		if err != nil {
			t.Fatalf("ParseType(%s): %v", s, err)
		}
		p, perr := prepareType(raw, "ks", nil)
		if perr != nil {
			t.Fatalf("prepare %s: %v", s, perr)
		}
		if got := TypeString(p); got != s {
			t.Errorf("round trip %s -> %s", s, got)
		}
	}
}
