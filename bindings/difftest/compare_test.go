package difftest

import (
	"errors"
	"strings"
	"testing"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

func TestCompare(t *testing.T) {
	intCol := bindings.ColumnSpec{Name: "k", Type: cql.Scalar(cql.KindInt)}
	listCol := bindings.ColumnSpec{Name: "l", Type: cql.FrozenOf(cql.ListOf(cql.Scalar(cql.KindInt)))}
	rows := func(cols []bindings.ColumnSpec, rs ...[][]byte) Outcome {
		return Outcome{Result: &bindings.Result{Kind: bindings.ResultRows, Columns: cols, Rows: rs}}
	}
	one, two := be32(1), be32(2)
	invalid := func(msg string) Outcome { return Outcome{Err: bindings.Errorf(bindings.CodeInvalid, "%s", msg)} }
	cases := []struct {
		name       string
		st         Step
		want, got  Outcome
		diff, note string // substrings; "" means none
	}{
		{name: "same rows", want: rows([]bindings.ColumnSpec{intCol}, [][]byte{one}), got: rows([]bindings.ColumnSpec{intCol}, [][]byte{one})},
		{name: "different value", want: rows([]bindings.ColumnSpec{intCol}, [][]byte{one}), got: rows([]bindings.ColumnSpec{intCol}, [][]byte{two}), diff: "rows differ from row 0"},
		{name: "order", want: rows([]bindings.ColumnSpec{intCol}, [][]byte{one}, [][]byte{two}), got: rows([]bindings.ColumnSpec{intCol}, [][]byte{two}, [][]byte{one}), diff: "rows differ"},
		{name: "null versus empty", want: rows([]bindings.ColumnSpec{intCol}, [][]byte{nil}), got: rows([]bindings.ColumnSpec{intCol}, [][]byte{{}}), diff: "rows differ"},
		{name: "missing row", want: rows([]bindings.ColumnSpec{intCol}, [][]byte{one}), got: rows([]bindings.ColumnSpec{intCol}), diff: "got 0 rows, want 1"},
		{name: "column name", want: rows([]bindings.ColumnSpec{intCol}), got: rows([]bindings.ColumnSpec{{Name: "x", Type: intCol.Type}}), diff: "columns"},
		{name: "frozen ignored", want: rows([]bindings.ColumnSpec{{Name: "l", Type: cql.ListOf(cql.Scalar(cql.KindInt))}}), got: rows([]bindings.ColumnSpec{listCol})},
		{name: "ttl tolerance", st: Step{TTLColumns: []int{0}}, want: rows([]bindings.ColumnSpec{intCol}, [][]byte{be32(100)}), got: rows([]bindings.ColumnSpec{intCol}, [][]byte{be32(98)})},
		{name: "ttl too far", st: Step{TTLColumns: []int{0}}, want: rows([]bindings.ColumnSpec{intCol}, [][]byte{be32(100)}), got: rows([]bindings.ColumnSpec{intCol}, [][]byte{be32(50)}), diff: "rows differ"},
		{name: "same code", want: invalid("a"), got: invalid("b"), note: "message"},
		{name: "code", want: invalid("a"), got: Outcome{Err: bindings.Errorf(bindings.CodeSyntaxError, "a")}, diff: "error code"},
		{name: "error versus rows", want: invalid("a"), got: rows([]bindings.ColumnSpec{intCol}), diff: "want error"},
		{name: "rows versus error", want: rows([]bindings.ColumnSpec{intCol}), got: Outcome{Err: errors.New("boom")}, diff: "got error"},
		{name: "kind", want: Outcome{Result: &bindings.Result{Kind: bindings.ResultVoid}}, got: rows([]bindings.ColumnSpec{intCol}), diff: "result kind"},
		{name: "schema change", want: Outcome{Result: &bindings.Result{Kind: bindings.ResultSchemaChange, Change: &bindings.SchemaChange{Type: bindings.Created, Target: bindings.TargetTable, Keyspace: "ks", Object: "t"}}},
			got: Outcome{Result: &bindings.Result{Kind: bindings.ResultSchemaChange, Change: &bindings.SchemaChange{Type: bindings.Updated, Target: bindings.TargetTable, Keyspace: "ks", Object: "t"}}}, diff: "schema change"},
	}
	for _, c := range cases {
		diff, note := Compare(c.st, c.want, c.got)
		if (c.diff == "") != (diff == "") || !strings.Contains(diff, c.diff) {
			t.Errorf("%s: diff %q, want one containing %q", c.name, diff, c.diff)
		}
		if (c.note == "") != (note == "") || !strings.Contains(note, c.note) {
			t.Errorf("%s: note %q, want one containing %q", c.name, note, c.note)
		}
	}
}

// TestNaNLiteral pins the encoding the differential test found diverging:
// a NaN literal must serialize as Java's canonical NaN, as Cassandra does.
func TestNaNLiteral(t *testing.T) {
	p, err := cql.Parse("INSERT INTO t (d, f) VALUES (NaN, -NaN)")
	if err != nil {
		t.Fatal(err)
	}
	ins := p.Stmt.(*cql.Insert)
	d, err := cql.EncodeTerm(cql.Scalar(cql.KindDouble), ins.Values[0], "d", nil)
	if err != nil || string(d) != string(be64(0x7ff8000000000000)) {
		t.Errorf("double NaN: got %x, %v", d, err)
	}
	f, err := cql.EncodeTerm(cql.Scalar(cql.KindFloat), ins.Values[1], "f", nil)
	if err != nil || string(f) != string(be32(0x7fc00000)) {
		t.Errorf("float -NaN: got %x, %v", f, err)
	}
}
