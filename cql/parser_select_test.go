package cql

import "testing"

func col(name string) *Selector { return &Selector{Kind: SelColumn, Column: name} }

func rel(cols []string, op RelOp, v Term) Relation { return Relation{Columns: cols, Op: op, Value: v} }

func cols(c ...string) []string { return c }

func tuple(e ...Term) *TupleLit { return &TupleLit{Elems: e} }

var selectCases = []parseCase{
	{"star", "SELECT * FROM t", &Select{Table: "t", Star: true}},
	{"columns alias", `SELECT a, b AS bee, "Quoted", key, value, ttl, type, writetime, count FROM ks.t`,
		&Select{Keyspace: "ks", Table: "t", Selectors: []*Selector{col("a"), {Kind: SelColumn, Column: "b", Alias: "bee"},
			col("Quoted"), col("key"), col("value"), col("ttl"), col("type"), col("writetime"), col("count")}}},
	{"json", "SELECT JSON * FROM t", &Select{Table: "t", JSON: true, Star: true}},
	{"json distinct", "SELECT JSON DISTINCT k FROM t", &Select{Table: "t", JSON: true, Distinct: true, Selectors: []*Selector{col("k")}}},
	{"distinct", "select distinct k, c from t", &Select{Table: "t", Distinct: true, Selectors: []*Selector{col("k"), col("c")}}},
	{"json and distinct as columns", "SELECT json, distinct FROM t", &Select{Table: "t", Selectors: []*Selector{col("json"), col("distinct")}}},
	{"json column only", "SELECT json FROM t", &Select{Table: "t", Selectors: []*Selector{col("json")}}},
	{"functions", "SELECT COUNT(*), count(1) AS n, count(v), WRITETIME(v), ttl(v) AS t, toTimestamp(c), token(k), CAST(x AS text), ks.fn(a, 1), now() FROM t",
		&Select{Table: "t", Selectors: []*Selector{
			{Kind: SelCountStar},
			{Kind: SelCountStar, Alias: "n"},
			{Kind: SelCall, Func: "count", Args: []*Selector{col("v")}},
			{Kind: SelWritetime, Column: "v"},
			{Kind: SelTTL, Column: "v", Alias: "t"},
			{Kind: SelCall, Func: "totimestamp", Args: []*Selector{col("c")}},
			{Kind: SelCall, Func: "token", Args: []*Selector{col("k")}},
			{Kind: SelCast, Args: []*Selector{col("x")}, Type: Scalar(KindText)},
			{Kind: SelCall, Func: "ks.fn", Args: []*Selector{col("a"), {Kind: SelTerm, Term: num("1")}}},
			{Kind: SelCall, Func: "now"},
		}}},
	{"operators", "SELECT a + 1 * b, (a - b) % 2 AS m, - a / 3, -x, a - -1, abs(a - 1), (int) 1 + a, (1, 2) FROM t",
		&Select{Table: "t", Selectors: []*Selector{
			{Kind: SelOp, Op: '+', Args: []*Selector{col("a"), {Kind: SelOp, Op: '*', Args: []*Selector{{Kind: SelTerm, Term: num("1")}, col("b")}}}},
			{Kind: SelOp, Op: '%', Alias: "m", Args: []*Selector{{Kind: SelOp, Op: '-', Paren: true, Args: []*Selector{col("a"), col("b")}}, {Kind: SelTerm, Term: num("2")}}},
			{Kind: SelOp, Op: '/', Args: []*Selector{{Kind: SelNeg, Args: []*Selector{col("a")}}, {Kind: SelTerm, Term: num("3")}}},
			{Kind: SelNeg, Args: []*Selector{col("x")}},
			{Kind: SelOp, Op: '-', Args: []*Selector{col("a"), {Kind: SelTerm, Term: num("-1")}}},
			{Kind: SelCall, Func: "abs", Args: []*Selector{{Kind: SelOp, Op: '-', Args: []*Selector{col("a"), {Kind: SelTerm, Term: num("1")}}}}},
			{Kind: SelOp, Op: '+', Args: []*Selector{{Kind: SelTerm, Term: &Cast{Type: Scalar(KindInt), Term: num("1")}}, col("a")}},
			{Kind: SelTerm, Term: tuple(num("1"), num("2"))},
		}}},
	{"where comparisons", "SELECT * FROM t WHERE k = ? AND c > 1 AND c <= 5 AND d < 'x' AND d >= 2.5 AND e != 0",
		&Select{Table: "t", Star: true, Where: []Relation{
			eq("k", qm(0)), rel(cols("c"), OpGt, num("1")), rel(cols("c"), OpLte, num("5")),
			rel(cols("d"), OpLt, str("x")), rel(cols("d"), OpGte, flt("2.5")), rel(cols("e"), OpNeq, num("0"))}}},
	{"where in", "SELECT * FROM t WHERE a IN (1, 2, 3) AND b IN ? AND c IN :cs AND d IN ()",
		&Select{Table: "t", Star: true, Where: []Relation{
			{Columns: cols("a"), Op: OpIn, In: []Term{num("1"), num("2"), num("3")}},
			{Columns: cols("b"), Op: OpIn, Value: qm(0)},
			{Columns: cols("c"), Op: OpIn, Value: named(1, "cs")},
			{Columns: cols("d"), Op: OpIn, In: []Term{}}}}},
	{"where contains like null key", "SELECT * FROM t WHERE s CONTAINS 1 AND m CONTAINS KEY 'k' AND n LIKE 'a%' AND v IS NOT NULL AND m['x'] = 2",
		&Select{Table: "t", Star: true, Where: []Relation{
			rel(cols("s"), OpContains, num("1")), rel(cols("m"), OpContainsKey, str("k")),
			rel(cols("n"), OpLike, str("a%")), {Columns: cols("v"), Op: OpIsNotNull},
			{Columns: cols("m"), Key: str("x"), Op: OpEq, Value: num("2")}}}},
	{"multi-column", "SELECT * FROM t WHERE k = 0 AND (c1, c2) > (1, 2) AND (c1, c2) <= ? AND (c1,c2) IN ((1,2),(3,4)) AND (c1, c2) IN ? AND (c1, c2) IN (?, ?)",
		&Select{Table: "t", Star: true, Where: []Relation{
			eq("k", num("0")),
			rel(cols("c1", "c2"), OpGt, tuple(num("1"), num("2"))),
			rel(cols("c1", "c2"), OpLte, qm(0)),
			{Columns: cols("c1", "c2"), Op: OpIn, In: []Term{tuple(num("1"), num("2")), tuple(num("3"), num("4"))}},
			{Columns: cols("c1", "c2"), Op: OpIn, Value: qm(1)},
			{Columns: cols("c1", "c2"), Op: OpIn, In: []Term{qm(2), qm(3)}}}}},
	{"token", "SELECT * FROM t WHERE token(k) > ? AND TOKEN(a, b) <= token(1, 2)",
		&Select{Table: "t", Star: true, Where: []Relation{
			{Columns: cols("k"), Token: true, Op: OpGt, Value: qm(0)},
			{Columns: cols("a", "b"), Token: true, Op: OpLte, Value: &FuncCall{Name: "token", Args: []Term{num("1"), num("2")}}}}}},
	{"clauses", "SELECT k, sum(v) FROM t WHERE k = 1 GROUP BY k, c ORDER BY c DESC, d ASC, e PER PARTITION LIMIT 2 LIMIT ? ALLOW FILTERING",
		&Select{Table: "t", Selectors: []*Selector{col("k"), {Kind: SelCall, Func: "sum", Args: []*Selector{col("v")}}},
			Where:             []Relation{eq("k", num("1"))},
			GroupBy:           []string{"k", "c"},
			OrderBy:           []Ordering{{Column: "c", Desc: true}, {Column: "d"}, {Column: "e"}},
			PerPartitionLimit: num("2"),
			Limit:             qm(0),
			AllowFiltering:    true}},
	{"limit only", "SELECT * FROM t LIMIT 10;", &Select{Table: "t", Star: true, Limit: num("10")}},
	{"keyword columns in where", "SELECT value FROM t WHERE key = 1 AND type = 'a' AND ttl > 2",
		&Select{Table: "t", Selectors: []*Selector{col("value")}, Where: []Relation{
			eq("key", num("1")), eq("type", str("a")), rel(cols("ttl"), OpGt, num("2"))}}},
	{"case and comments", "sElEcT /* all */ *\n-- from here\nFROM \"T\" // end\nWHERE \"K\" = 1",
		&Select{Table: "T", Star: true, Where: []Relation{eq("K", num("1"))}}},
	{"uuid and blob values", "SELECT * FROM t WHERE id = 550e8400-e29b-41d4-a716-446655440000 AND b = 0xff",
		&Select{Table: "t", Star: true, Where: []Relation{
			eq("id", &Literal{Kind: LitUUID, Text: "550e8400-e29b-41d4-a716-446655440000"}),
			eq("b", &Literal{Kind: LitBlob, Text: "0xff"})}}},
}

func TestParseSelect(t *testing.T) { runParseCases(t, selectCases) }

// Queries real drivers and cqlsh send on connect must parse.
func TestParseDriverQueries(t *testing.T) {
	cases := []struct{ in, ks, table string }{
		{"SELECT cluster_name, data_center, rack, partitioner, release_version, tokens, host_id, schema_version, broadcast_address FROM system.local WHERE key='local'", "system", "local"},
		{"SELECT * FROM system.peers", "system", "peers"},
		{"SELECT peer, data_center, host_id, preferred_ip, rack, release_version, rpc_address, schema_version, tokens FROM system.peers", "system", "peers"},
		{"SELECT * FROM system.peers_v2", "system", "peers_v2"},
		{"SELECT * FROM system_schema.keyspaces", "system_schema", "keyspaces"},
		{"SELECT * FROM system_schema.tables WHERE keyspace_name = 'ks'", "system_schema", "tables"},
		{"SELECT * FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?", "system_schema", "columns"},
		{"SELECT * FROM system_schema.types", "system_schema", "types"},
		{"SELECT * FROM system_schema.functions", "system_schema", "functions"},
		{"SELECT * FROM system_schema.aggregates", "system_schema", "aggregates"},
		{"SELECT * FROM system_schema.indexes", "system_schema", "indexes"},
		{"SELECT * FROM system_schema.views", "system_schema", "views"},
		{"SELECT * FROM system_schema.triggers", "system_schema", "triggers"},
		{"SELECT * FROM system_virtual_schema.keyspaces", "system_virtual_schema", "keyspaces"},
		{"select schema_version from system.local where key='local'", "system", "local"},
	}
	for _, tc := range cases {
		p, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		s, ok := p.Stmt.(*Select)
		if !ok || s.Keyspace != tc.ks || s.Table != tc.table {
			t.Errorf("Parse(%q) = %s, want a SELECT from %s.%s", tc.in, dump(p.Stmt), tc.ks, tc.table)
		}
	}
}
