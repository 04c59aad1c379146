package cql

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// parseCase is one statement and the AST it must produce.
type parseCase struct {
	name string
	in   string
	want Statement
}

func runParseCases(t *testing.T, cases []parseCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse(tc.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.in, err)
			}
			if !reflect.DeepEqual(p.Stmt, tc.want) {
				t.Errorf("Parse(%q)\n got %s\nwant %s", tc.in, dump(p.Stmt), dump(tc.want))
			}
		})
	}
}

// dump renders an AST value for failure messages.
func dump(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// Term constructors keep the tables short.
func str(s string) *Literal { return &Literal{Kind: LitString, Text: s} }
func num(s string) *Literal { return &Literal{Kind: LitInteger, Text: s} }
func flt(s string) *Literal { return &Literal{Kind: LitFloat, Text: s} }
func boolean(b bool) *Literal {
	return &Literal{Kind: LitBool, Text: map[bool]string{true: "true", false: "false"}[b]}
}
func qm(i int) *BindMarker { return &BindMarker{Index: i} }
func named(i int, n string) *BindMarker {
	return &BindMarker{Index: i, Name: n}
}
func list(v ...Term) *CollectionLit { return &CollectionLit{Kind: CollList, Values: v} }
func set(v ...Term) *CollectionLit  { return &CollectionLit{Kind: CollSet, Values: v} }

// mapLit takes alternating keys and values.
func mapLit(kv ...Term) *CollectionLit {
	m := &CollectionLit{Kind: CollMap}
	for i := 0; i+1 < len(kv); i += 2 {
		m.Keys = append(m.Keys, kv[i])
		m.Values = append(m.Values, kv[i+1])
	}
	return m
}

func eq(col string, v Term) Relation { return Relation{Columns: []string{col}, Op: OpEq, Value: v} }

func TestParseMarkers(t *testing.T) {
	cases := []struct {
		in   string
		want []*BindMarker
	}{
		{"SELECT * FROM t WHERE k = ? AND c IN (?, ?) LIMIT ?", []*BindMarker{qm(0), qm(1), qm(2), qm(3)}},
		{"INSERT INTO t (a, b) VALUES (:a, :\"B\") USING TTL :ttl", []*BindMarker{named(0, "a"), named(1, "B"), named(2, "ttl")}},
		{"UPDATE t USING TIMESTAMP ? SET m[?] = ? WHERE k = ? IF v = ?", []*BindMarker{qm(0), qm(1), qm(2), qm(3), qm(4)}},
		{"BEGIN BATCH INSERT INTO t (k) VALUES (?); UPDATE t SET v = ? WHERE k = ?; DELETE FROM t WHERE k = :k APPLY BATCH",
			[]*BindMarker{qm(0), qm(1), qm(2), named(3, "k")}},
		{"SELECT * FROM t", nil},
	}
	for _, tc := range cases {
		p, err := Parse(tc.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.in, err)
		}
		if !reflect.DeepEqual(p.Markers, tc.want) {
			t.Errorf("Parse(%q).Markers = %s, want %s", tc.in, dump(p.Markers), dump(tc.want))
		}
	}
}

func TestParseMarkersAreTheASTNodes(t *testing.T) {
	p, err := Parse("UPDATE t SET a = ? WHERE k = ?")
	if err != nil {
		t.Fatal(err)
	}
	u := p.Stmt.(*Update)
	if u.Set[0].Value != Term(p.Markers[0]) || u.Where[0].Value != Term(p.Markers[1]) {
		t.Errorf("Markers must point at the markers in the AST")
	}
}

func TestParseText(t *testing.T) {
	cases := []struct{ in, want string }{
		{"SELECT * FROM t;", "SELECT * FROM t"},
		{"  -- comment\n  select a from t ;; ", "select a from t"},
		{"/* c */ USE ks", "USE ks"},
	}
	for _, tc := range cases {
		p, err := Parse(tc.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.in, err)
		}
		if p.Text != tc.want {
			t.Errorf("Parse(%q).Text = %q, want %q", tc.in, p.Text, tc.want)
		}
	}
}

func TestParseScript(t *testing.T) {
	in := `-- schema
CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
USE ks;

/* a table */
CREATE TABLE t (k int PRIMARY KEY, v text);;
INSERT INTO t (k, v) VALUES (?, ?);
BEGIN BATCH
  INSERT INTO t (k, v) VALUES (?, 'a');
  DELETE FROM t WHERE k = ?;
APPLY BATCH;
CREATE FUNCTION f (a int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS $$ return a; $$;
SELECT * FROM t WHERE k = ?`
	got, err := ParseScript(in)
	if err != nil {
		t.Fatal(err)
	}
	wantTypes := []string{"*cql.CreateKeyspace", "*cql.Use", "*cql.CreateTable", "*cql.Insert", "*cql.Batch", "*cql.CreateFunction", "*cql.Select"}
	if len(got) != len(wantTypes) {
		t.Fatalf("got %d statements, want %d", len(got), len(wantTypes))
	}
	for i, p := range got {
		if typ := reflect.TypeOf(p.Stmt).String(); typ != wantTypes[i] {
			t.Errorf("statement %d is %s, want %s", i, typ, wantTypes[i])
		}
	}
	if got[3].Text != "INSERT INTO t (k, v) VALUES (?, ?)" || len(got[3].Markers) != 2 {
		t.Errorf("insert: Text %q, %d markers", got[3].Text, len(got[3].Markers))
	}
	if len(got[4].Markers) != 2 || got[4].Markers[1].Index != 1 {
		t.Errorf("batch markers: %s", dump(got[4].Markers))
	}
	if len(got[6].Markers) != 1 || got[6].Markers[0].Index != 0 {
		t.Errorf("markers must restart per statement: %s", dump(got[6].Markers))
	}

	empty, err := ParseScript(" ;\n-- nothing\n; ")
	if err != nil || len(empty) != 0 {
		t.Errorf("empty script: %d statements, err %v", len(empty), err)
	}
	if _, err := ParseScript("USE a USE b"); err == nil {
		t.Errorf("missing ';' between statements must fail")
	}
}

func TestParseType(t *testing.T) {
	udt := func(ks, name string) *Type { return &Type{Kind: KindUDT, Keyspace: ks, Name: name} }
	frozenTuple := func(e ...*Type) *Type { t := TupleOf(e...); t.Frozen = true; return t }
	cases := []struct {
		in   string
		want *Type
	}{
		{"int", Scalar(KindInt)},
		{"VARCHAR", Scalar(KindText)},
		{"text", Scalar(KindText)},
		{"list<int>", ListOf(Scalar(KindInt))},
		{"set<frozen<list<text>>>", SetOf(FrozenOf(ListOf(Scalar(KindText))))},
		{"map<text, frozen<list<int>>>", MapOf(Scalar(KindText), FrozenOf(ListOf(Scalar(KindInt))))},
		{"frozen<map<uuid,bigint>>", FrozenOf(MapOf(Scalar(KindUUID), Scalar(KindBigint)))},
		{"tuple<int, text, timestamp>", frozenTuple(Scalar(KindInt), Scalar(KindText), Scalar(KindTimestamp))},
		{"frozen<tuple<int>>", frozenTuple(Scalar(KindInt))},
		{"address", udt("", "address")},
		{"frozen<address>", FrozenOf(udt("", "address"))},
		{`frozen<ks."My Type">`, FrozenOf(udt("ks", "My Type"))},
		{"list<frozen<address>>", ListOf(FrozenOf(udt("", "address")))},
		{"map<frozen<tuple<int, int>>, duration>", MapOf(frozenTuple(Scalar(KindInt), Scalar(KindInt)), Scalar(KindDuration))},
	}
	scalars := []string{"ascii", "bigint", "blob", "boolean", "counter", "date", "decimal", "double", "duration",
		"float", "inet", "int", "smallint", "text", "time", "timestamp", "timeuuid", "tinyint", "uuid", "varint"}
	for _, s := range scalars {
		k, _ := KindByName(s)
		cases = append(cases, struct {
			in   string
			want *Type
		}{s, Scalar(k)})
	}
	for _, tc := range cases {
		got, err := ParseType(tc.in)
		if err != nil {
			t.Errorf("ParseType(%q): %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseType(%q) = %s, want %s", tc.in, dump(got), dump(tc.want))
		}
		// String renders CQL that parses back to an equal type (it omits
		// UDT keyspaces, as system_schema does).
		if strings.Contains(tc.in, ".") {
			continue
		}
		back, err := ParseType(got.String())
		if err != nil || !back.Equal(got) {
			t.Errorf("ParseType(%q).String() = %q does not round-trip (%v)", tc.in, got.String(), err)
		}
	}
	for _, bad := range []string{"", "map<int>", "list<int", "list<int>>", "set", "frozen<>", "int int", "'org.Custom'", "select"} {
		if _, err := ParseType(bad); err == nil {
			t.Errorf("ParseType(%q) succeeded, want error", bad)
		} else if _, ok := err.(*SyntaxError); !ok {
			t.Errorf("ParseType(%q) error %T, want *SyntaxError", bad, err)
		}
	}
}
