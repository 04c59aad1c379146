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
		{cql.VectorOf(cql.Scalar(cql.KindFloat), 3), "vector<float, 3>"},
		{cql.ListOf(cql.VectorOf(cql.Scalar(cql.KindFloat), 2)), "list<vector<float, 2>>"},
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
		"vector<float, 3>", "vector<text, 2>", "list<vector<float, 2>>",
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

func TestPrepareVectorType(t *testing.T) {
	raw, err := cql.ParseType("frozen<vector<text, 2>>")
	if err != nil {
		t.Fatal(err)
	}
	p, perr := prepareType(raw, "ks", nil)
	if perr != nil || TypeString(p) != "vector<text, 2>" || p.Frozen {
		t.Fatalf("got %v %v", p, perr)
	}
	for s, msg := range map[string]string{
		"vector<float, 0>":          "vectors may only have positive dimensions; given 0",
		"vector<float, -2>":         "vectors may only have positive dimensions; given -2",
		"vector<set<list<int>>, 2>": "Non-frozen collections are not allowed inside collections: set<list<int>>",
	} {
		raw, err := cql.ParseType(s)
		if err != nil {
			t.Fatal(err)
		}
		if _, perr := prepareType(raw, "ks", nil); perr == nil || perr.Message != msg || perr.Code != Invalid {
			t.Errorf("%s: got %v, want %q", s, perr, msg)
		}
	}
	// Vectors of composites (Cassandra 5.0's type texts).
	for s, want := range map[string]string{
		"vector<tuple<int, text>, 2>":  "vector<frozen<tuple<int, text>>, 2>",
		"vector<vector<int, 2>, 2>":    "vector<vector<int, 2>, 2>",
		"vector<list<int>, 2>":         "vector<list<int>, 2>",
		"vector<frozen<list<int>>, 2>": "vector<frozen<list<int>>, 2>",
	} {
		raw, err := cql.ParseType(s)
		if err != nil {
			t.Fatal(err)
		}
		p, perr := prepareType(raw, "ks", nil)
		if perr != nil || TypeString(p) != want {
			t.Errorf("%s: got %v %v, want %s", s, p, perr, want)
			continue
		}
		if back, err := decodeType(encodeType(p)); err != nil || !back.Equal(p) {
			t.Errorf("%s: catalog JSON round trip: %v %v", s, back, err)
		}
	}
	j := encodeType(cql.VectorOf(cql.Scalar(cql.KindFloat), 5))
	back, err := decodeType(j)
	if err != nil || !back.Equal(cql.VectorOf(cql.Scalar(cql.KindFloat), 5)) {
		t.Fatalf("catalog JSON round trip: %v %v", back, err)
	}
}
