package cql

import "testing"

var insertCases = []parseCase{
	{"insert", "INSERT INTO t (k, v) VALUES (1, 'a')",
		&Insert{Table: "t", Columns: []string{"k", "v"}, Values: []Term{num("1"), str("a")}}},
	{"insert qualified quoted", `insert into ks."T" ("K", Value) values (?, :v) IF NOT EXISTS USING TTL 10 AND TIMESTAMP 123;`,
		&Insert{Keyspace: "ks", Table: "T", Columns: []string{"K", "value"}, Values: []Term{qm(0), named(1, "v")},
			IfNotExists: true, Using: Using{TTL: num("10"), Timestamp: num("123")}}},
	{"insert using then if", "INSERT INTO t (k) VALUES (1) USING TIMESTAMP ? AND TTL ? IF NOT EXISTS",
		&Insert{Table: "t", Columns: []string{"k"}, Values: []Term{num("1")}, IfNotExists: true,
			Using: Using{Timestamp: qm(0), TTL: qm(1)}}},
	{"insert json", `INSERT INTO t JSON '{"k": 1, "v": "it''s"}'`,
		&Insert{Table: "t", JSON: str(`{"k": 1, "v": "it's"}`)}},
	{"insert json default unset", "INSERT INTO t JSON ? DEFAULT UNSET IF NOT EXISTS",
		&Insert{Table: "t", JSON: qm(0), DefaultUnset: true, IfNotExists: true}},
	{"insert json default null", "INSERT INTO t JSON :j DEFAULT NULL USING TTL 5",
		&Insert{Table: "t", JSON: named(0, "j"), Using: Using{TTL: num("5")}}},
	{"insert keyword columns", "INSERT INTO t (key, ttl, type, writetime, count, json, static, values) VALUES (1, 2, 3, 4, 5, 6, 7, 8)",
		&Insert{Table: "t", Columns: []string{"key", "ttl", "type", "writetime", "count", "json", "static", "values"},
			Values: []Term{num("1"), num("2"), num("3"), num("4"), num("5"), num("6"), num("7"), num("8")}}},
}

// literalCases pairs a term as written with the term it parses to.
var literalCases = []struct {
	in   string
	want Term
}{
	{"'it''s'", str("it's")},
	{"$$a 'quoted' $ string$$", str("a 'quoted' $ string")},
	{"''", str("")},
	{"42", num("42")},
	{"-42", num("-42")},
	{"1.5", flt("1.5")},
	{"-2.5E-3", flt("-2.5E-3")},
	{"1e10", flt("1e10")},
	{"NaN", flt("NaN")},
	{"Infinity", flt("Infinity")},
	{"-Infinity", flt("-Infinity")},
	{"- infinity", flt("-Infinity")},
	{"true", boolean(true)},
	{"FALSE", boolean(false)},
	{"null", &Literal{Kind: LitNull, Text: "null"}},
	{"123e4567-e89b-12d3-a456-426614174000", &Literal{Kind: LitUUID, Text: "123e4567-e89b-12d3-a456-426614174000"}},
	{"ABCDEF01-0000-1000-8000-00AA00BB00CC", &Literal{Kind: LitUUID, Text: "ABCDEF01-0000-1000-8000-00AA00BB00CC"}},
	{"0xCAFE", &Literal{Kind: LitBlob, Text: "0xCAFE"}},
	{"0x", &Literal{Kind: LitBlob, Text: "0x"}},
	{"1h30m", &Literal{Kind: LitDuration, Text: "1h30m"}},
	{"2d", &Literal{Kind: LitDuration, Text: "2d"}},
	{"12mo3w", &Literal{Kind: LitDuration, Text: "12mo3w"}},
	{"1y", &Literal{Kind: LitDuration, Text: "1y"}},
	{"-3h", &Literal{Kind: LitDuration, Text: "-3h"}},
	{"1h2m3s4ms5us6ns", &Literal{Kind: LitDuration, Text: "1h2m3s4ms5us6ns"}},
	{"7µs", &Literal{Kind: LitDuration, Text: "7µs"}},
	{"P1Y2M3DT4H5M6S", &Literal{Kind: LitDuration, Text: "P1Y2M3DT4H5M6S"}},
	{"PT5M", &Literal{Kind: LitDuration, Text: "PT5M"}},
	{"P2W", &Literal{Kind: LitDuration, Text: "P2W"}},
	{"-P1D", &Literal{Kind: LitDuration, Text: "-P1D"}},
	{"P0001-02-03T04:05:06", &Literal{Kind: LitDuration, Text: "P0001-02-03T04:05:06"}},
	{"?", qm(0)},
	{":name", named(0, "name")},
	{`:"Name"`, named(0, "Name")},
	{"[1, 2]", list(num("1"), num("2"))},
	{"[]", list()},
	{"{1, 2}", set(num("1"), num("2"))},
	{"{'a': 1, 'b': 2}", mapLit(str("a"), num("1"), str("b"), num("2"))},
	{"{}", mapLit()},
	{"{1: now()}", mapLit(num("1"), &FuncCall{Name: "now"})},
	{"{street: 'x', \"Zip\": 1}", &UDTLit{Fields: []string{"street", "Zip"}, Values: []Term{str("x"), num("1")}}},
	{"[{1: [2]}, {}]", list(mapLit(num("1"), list(num("2"))), mapLit())},
	{"(1, 'a', ?)", &TupleLit{Elems: []Term{num("1"), str("a"), qm(0)}}},
	{"(1)", &TupleLit{Elems: []Term{num("1")}}},
	{"now()", &FuncCall{Name: "now"}},
	{"toTimestamp(now())", &FuncCall{Name: "totimestamp", Args: []Term{&FuncCall{Name: "now"}}}},
	{"ks.fn(1, ?)", &FuncCall{Name: "ks.fn", Args: []Term{num("1"), qm(0)}}},
	{"(int)?", &Cast{Type: Scalar(KindInt), Term: qm(0)}},
	{"(list<text>)['a']", &Cast{Type: ListOf(Scalar(KindText)), Term: list(str("a"))}},
}

func TestParseLiterals(t *testing.T) {
	var cases []parseCase
	for _, lc := range literalCases {
		cases = append(cases, parseCase{name: lc.in, in: "INSERT INTO t (c) VALUES (" + lc.in + ")",
			want: &Insert{Table: "t", Columns: []string{"c"}, Values: []Term{lc.want}}})
	}
	runParseCases(t, cases)
}

func TestParseInsert(t *testing.T) { runParseCases(t, insertCases) }

func assign(col string, op AssignOp, v Term) Assignment {
	return Assignment{Column: col, Op: op, Value: v}
}

var updateCases = []parseCase{
	{"update", "UPDATE t SET v = 'x' WHERE k = 1",
		&Update{Table: "t", Set: []Assignment{assign("v", AssignSet, str("x"))}, Where: []Relation{eq("k", num("1"))}}},
	{"update using", "UPDATE ks.t USING TTL 60 AND TIMESTAMP ? SET v = ? WHERE k = ? AND c = ?",
		&Update{Keyspace: "ks", Table: "t", Using: Using{TTL: num("60"), Timestamp: qm(0)},
			Set: []Assignment{assign("v", AssignSet, qm(1))}, Where: []Relation{eq("k", qm(2)), eq("c", qm(3))}}},
	{"update collections", "UPDATE t SET c = c + 1, d = d - 2, e = e -1, l = l + [1], p = [0] + p, s = s - {'a'}, m['k'] = 'v', l[2] = 9, x += {'b'}, y -= ['c'], u.city = 'Paris' WHERE k = 1",
		&Update{Table: "t", Set: []Assignment{
			assign("c", AssignAdd, num("1")),
			assign("d", AssignRemove, num("2")),
			assign("e", AssignAdd, num("-1")),
			assign("l", AssignAdd, list(num("1"))),
			assign("p", AssignPrepend, list(num("0"))),
			assign("s", AssignRemove, set(str("a"))),
			{Column: "m", Op: AssignElement, Key: str("k"), Value: str("v")},
			{Column: "l", Op: AssignElement, Key: num("2"), Value: num("9")},
			assign("x", AssignAddTo, set(str("b"))),
			assign("y", AssignRemoveFrom, list(str("c"))),
			{Column: "u", Op: AssignField, Field: "city", Value: str("Paris")},
		}, Where: []Relation{eq("k", num("1"))}}},
	{"update function value", "UPDATE t SET ts = toTimestamp(now()), n = null WHERE k = 1",
		&Update{Table: "t", Set: []Assignment{
			assign("ts", AssignSet, &FuncCall{Name: "totimestamp", Args: []Term{&FuncCall{Name: "now"}}}),
			assign("n", AssignSet, &Literal{Kind: LitNull, Text: "null"})},
			Where: []Relation{eq("k", num("1"))}}},
	{"update if exists", "UPDATE t SET v = 1 WHERE k = 1 IF EXISTS",
		&Update{Table: "t", Set: []Assignment{assign("v", AssignSet, num("1"))}, Where: []Relation{eq("k", num("1"))}, IfExists: true}},
	{"update if conditions", "UPDATE t SET v = 1 WHERE k = 1 IF v = 0 AND m['a'] = 'b' AND w IN (1, 2) AND x != null AND y > 3 AND u.f <= ? AND l[0] IN ?",
		&Update{Table: "t", Set: []Assignment{assign("v", AssignSet, num("1"))}, Where: []Relation{eq("k", num("1"))},
			If: []Condition{
				{Column: "v", Op: OpEq, Value: num("0")},
				{Column: "m", Key: str("a"), Op: OpEq, Value: str("b")},
				{Column: "w", Op: OpIn, In: []Term{num("1"), num("2")}},
				{Column: "x", Op: OpNeq, Value: &Literal{Kind: LitNull, Text: "null"}},
				{Column: "y", Op: OpGt, Value: num("3")},
				{Column: "u", Field: "f", Op: OpLte, Value: qm(0)},
				{Column: "l", Key: num("0"), Op: OpIn, Value: qm(1)},
			}}},
	{"update keyword column", "UPDATE t SET value = value + 1, ttl = 3 WHERE key = 'k'",
		&Update{Table: "t", Set: []Assignment{assign("value", AssignAdd, num("1")), assign("ttl", AssignSet, num("3"))},
			Where: []Relation{eq("key", str("k"))}}},
}

func TestParseUpdate(t *testing.T) { runParseCases(t, updateCases) }

var deleteCases = []parseCase{
	{"delete row", "DELETE FROM t WHERE k = 1",
		&Delete{Table: "t", Where: []Relation{eq("k", num("1"))}}},
	{"delete targets", "DELETE a, m['k'], l[0], u.street FROM ks.t USING TIMESTAMP 99 WHERE k = ? AND c >= 1 AND c < 5 IF EXISTS",
		&Delete{Keyspace: "ks", Table: "t",
			Targets: []DeleteTarget{{Column: "a"}, {Column: "m", Key: str("k")}, {Column: "l", Key: num("0")}, {Column: "u", Field: "street"}},
			Using:   Using{Timestamp: num("99")},
			Where: []Relation{eq("k", qm(0)), {Columns: []string{"c"}, Op: OpGte, Value: num("1")},
				{Columns: []string{"c"}, Op: OpLt, Value: num("5")}},
			IfExists: true}},
	{"delete if", "DELETE FROM t WHERE k IN (1, 2) IF v = 3",
		&Delete{Table: "t", Where: []Relation{{Columns: []string{"k"}, Op: OpIn, In: []Term{num("1"), num("2")}}},
			If: []Condition{{Column: "v", Op: OpEq, Value: num("3")}}}},
}

func TestParseDelete(t *testing.T) { runParseCases(t, deleteCases) }

var batchCases = []parseCase{
	{"batch", "BEGIN BATCH INSERT INTO t (k) VALUES (1); UPDATE t SET v = 2 WHERE k = 1; DELETE FROM t WHERE k = 3; APPLY BATCH",
		&Batch{Statements: []Statement{
			&Insert{Table: "t", Columns: []string{"k"}, Values: []Term{num("1")}},
			&Update{Table: "t", Set: []Assignment{assign("v", AssignSet, num("2"))}, Where: []Relation{eq("k", num("1"))}},
			&Delete{Table: "t", Where: []Relation{eq("k", num("3"))}},
		}}},
	{"unlogged batch using", "begin unlogged batch using timestamp 5 insert into t (k) values (?) insert into t (k) values (?) apply batch;",
		&Batch{Type: BatchUnlogged, Using: Using{Timestamp: num("5")}, Statements: []Statement{
			&Insert{Table: "t", Columns: []string{"k"}, Values: []Term{qm(0)}},
			&Insert{Table: "t", Columns: []string{"k"}, Values: []Term{qm(1)}},
		}}},
	{"counter batch", "BEGIN COUNTER BATCH UPDATE t SET c = c + 1 WHERE k = 1; APPLY BATCH",
		&Batch{Type: BatchCounter, Statements: []Statement{
			&Update{Table: "t", Set: []Assignment{assign("c", AssignAdd, num("1"))}, Where: []Relation{eq("k", num("1"))}},
		}}},
	{"empty batch", "BEGIN BATCH APPLY BATCH", &Batch{}},
}

func TestParseBatch(t *testing.T) { runParseCases(t, batchCases) }
