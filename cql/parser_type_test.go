package cql

import "testing"

var typeDDLCases = []parseCase{
	{"create type", "CREATE TYPE ks.address (street text, zip int)", &CreateType{Keyspace: "ks", Name: "address",
		Fields: []FieldDef{{"street", Scalar(KindText)}, {"zip", Scalar(KindInt)}}}},
	{"create type if not exists", "CREATE TYPE IF NOT EXISTS a (l frozen<list<int>>)", &CreateType{Name: "a", IfNotExists: true,
		Fields: []FieldDef{{"l", FrozenOf(ListOf(Scalar(KindInt)))}}}},
	{"alter type add", "ALTER TYPE address ADD city text", &AlterUserType{Name: "address", Op: AlterTypeAdd,
		Add: FieldDef{"city", Scalar(KindText)}}},
	{"alter type add if not exists", "ALTER TYPE IF EXISTS ks.a ADD IF NOT EXISTS c int", &AlterUserType{Keyspace: "ks", Name: "a",
		IfExists: true, Op: AlterTypeAdd, IfFieldExists: true, Add: FieldDef{"c", Scalar(KindInt)}}},
	{"alter type rename", "ALTER TYPE a RENAME IF EXISTS x TO y AND z TO w", &AlterUserType{Name: "a", Op: AlterTypeRename,
		IfFieldExists: true, RenameFrom: []string{"x", "z"}, RenameTo: []string{"y", "w"}}},
	{"alter type alter", "ALTER TYPE a ALTER x TYPE text", &AlterUserType{Name: "a", Op: AlterTypeAlter,
		Add: FieldDef{"x", Scalar(KindText)}}},
	{"drop type", "DROP TYPE IF EXISTS address", &DropType{Name: "address", IfExists: true}},
	{"drop type qualified", "DROP TYPE ks.a", &DropType{Keyspace: "ks", Name: "a"}},
}

func TestParseTypeDDL(t *testing.T) { runParseCases(t, typeDDLCases) }

func TestParseTypeDDLErrors(t *testing.T) {
	for _, q := range []string{
		"CREATE TYPE a ()",
		"CREATE TYPE a (x)",
		"ALTER TYPE a DROP x",
		"ALTER TYPE a RENAME x",
		"DROP TYPE",
	} {
		if _, err := Parse(q); err == nil {
			t.Errorf("Parse(%q) succeeded", q)
		}
	}
}

func TestParseVectorType(t *testing.T) {
	p, err := Parse("CREATE TABLE t (k int PRIMARY KEY, v vector<float, 3>)")
	if err != nil {
		t.Fatal(err)
	}
	ct, ok := p.Stmt.(*CreateTable)
	if !ok || !ct.Columns[1].Type.Equal(VectorOf(Scalar(KindFloat), 3)) {
		t.Fatalf("got %#v", p.Stmt)
	}
	for _, q := range []string{
		"CREATE TABLE t (k int PRIMARY KEY, v vector<float>)",
		"CREATE TABLE t (k int PRIMARY KEY, v vector<float, x>)",
		"CREATE TABLE t (k int PRIMARY KEY, v vector<float, 1.5>)",
	} {
		if _, err := Parse(q); err == nil {
			t.Errorf("Parse(%q) succeeded", q)
		}
	}
}
