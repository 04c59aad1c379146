package cql

import "testing"

var udfCases = []parseCase{
	{"create function", "CREATE OR REPLACE FUNCTION ks.f(a int, b text) CALLED ON NULL INPUT RETURNS int LANGUAGE java AS 'return a;'",
		&CreateFunction{Keyspace: "ks", Name: "f", OrReplace: true, Args: []FuncArg{{"a", Scalar(KindInt)}, {"b", Scalar(KindText)}},
			CalledOnNull: true, Returns: Scalar(KindInt), Language: "java", Body: "return a;"}},
	{"create function dollar", "CREATE FUNCTION IF NOT EXISTS f() RETURNS NULL ON NULL INPUT RETURNS text LANGUAGE JAVA AS $$return \"x\";$$",
		&CreateFunction{Name: "f", IfNotExists: true, Returns: Scalar(KindText), Language: "java", Body: `return "x";`}},
	{"create aggregate", "CREATE AGGREGATE IF NOT EXISTS a(int) SFUNC s STYPE tuple<int, bigint> FINALFUNC f INITCOND (0, 0)",
		&CreateAggregate{Name: "a", IfNotExists: true, ArgTypes: []*Type{Scalar(KindInt)}, StateFunc: "s",
			StateType: FrozenOf(TupleOf(Scalar(KindInt), Scalar(KindBigint))), FinalFunc: "f",
			InitCond: &TupleLit{Elems: []Term{&Literal{Kind: LitInteger, Text: "0"}, &Literal{Kind: LitInteger, Text: "0"}}}}},
	{"drop function", "DROP FUNCTION f", &DropFunction{Name: "f"}},
	{"drop function types", "DROP FUNCTION IF EXISTS ks.f(int, text)", &DropFunction{Keyspace: "ks", Name: "f", IfExists: true, HasArgs: true,
		ArgTypes: []*Type{Scalar(KindInt), Scalar(KindText)}}},
	{"drop aggregate", "DROP AGGREGATE a()", &DropAggregate{Name: "a", HasArgs: true}},
}

func TestParseUDF(t *testing.T) { runParseCases(t, udfCases) }
