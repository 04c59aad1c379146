package cql

import "testing"

func boolPtr(b bool) *bool { return &b }

var ddlCases = []parseCase{
	{"create keyspace", "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}",
		&CreateKeyspace{Name: "ks",
			Replication: map[string]string{"class": "SimpleStrategy", "replication_factor": "3"},
			Options:     []Option{{Name: "replication", Value: mapLit(str("class"), str("SimpleStrategy"), str("replication_factor"), num("3"))}}}},
	{"create keyspace full", `create keyspace if not exists "MyKs" with REPLICATION = { 'class' : 'NetworkTopologyStrategy', 'dc1' : '3' } and durable_writes = false;`,
		&CreateKeyspace{Name: "MyKs", IfNotExists: true,
			Replication:   map[string]string{"class": "NetworkTopologyStrategy", "dc1": "3"},
			DurableWrites: boolPtr(false),
			Options: []Option{
				{Name: "replication", Value: mapLit(str("class"), str("NetworkTopologyStrategy"), str("dc1"), str("3"))},
				{Name: "durable_writes", Value: boolean(false)}}}},
	{"create schema", "CREATE SCHEMA ks WITH durable_writes = 'true'",
		&CreateKeyspace{Name: "ks", DurableWrites: boolPtr(true), Options: []Option{{Name: "durable_writes", Value: str("true")}}}},
	{"alter keyspace", "ALTER KEYSPACE IF EXISTS ks WITH durable_writes = true",
		&AlterKeyspace{Name: "ks", IfExists: true, DurableWrites: boolPtr(true), Options: []Option{{Name: "durable_writes", Value: boolean(true)}}}},
	{"alter keyspace replication", "ALTER KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		&AlterKeyspace{Name: "ks", Replication: map[string]string{"class": "SimpleStrategy", "replication_factor": "1"},
			Options: []Option{{Name: "replication", Value: mapLit(str("class"), str("SimpleStrategy"), str("replication_factor"), num("1"))}}}},
	{"drop keyspace", "DROP KEYSPACE ks", &DropKeyspace{Name: "ks"}},
	{"drop keyspace if exists", "drop keyspace if exists ks", &DropKeyspace{Name: "ks", IfExists: true}},

	{"create table inline pk", "CREATE TABLE t (key int PRIMARY KEY, value text, ttl int, type text)",
		&CreateTable{Name: "t", PrimaryKeys: 1, PartitionKey: []string{"key"}, Columns: []ColumnDef{
			{Name: "key", Type: Scalar(KindInt)}, {Name: "value", Type: Scalar(KindText)},
			{Name: "ttl", Type: Scalar(KindInt)}, {Name: "type", Type: Scalar(KindText)}}}},
	{"create table composite", `CREATE TABLE IF NOT EXISTS ks."Events" (a int, b text, c timeuuid, d bigint, s set<text> STATIC, PRIMARY KEY ((a, b), c, d))
		WITH CLUSTERING ORDER BY (c DESC, d ASC) AND COMPACT STORAGE AND comment = 'x' AND gc_grace_seconds = 10
		AND compaction = {'class': 'LeveledCompactionStrategy'} AND caching = keys_only AND speculative_retry = '99PERCENTILE'`,
		&CreateTable{Keyspace: "ks", Name: "Events", IfNotExists: true,
			Columns: []ColumnDef{{Name: "a", Type: Scalar(KindInt)}, {Name: "b", Type: Scalar(KindText)},
				{Name: "c", Type: Scalar(KindTimeuuid)}, {Name: "d", Type: Scalar(KindBigint)},
				{Name: "s", Type: SetOf(Scalar(KindText)), Static: true}},
			PrimaryKeys: 1, PartitionKey: []string{"a", "b"},
			Clustering:      []string{"c", "d"},
			ClusteringOrder: []ClusteringOrder{{Column: "c", Desc: true}, {Column: "d"}},
			CompactStorage:  true,
			Options: []Option{{Name: "comment", Value: str("x")}, {Name: "gc_grace_seconds", Value: num("10")},
				{Name: "compaction", Value: mapLit(str("class"), str("LeveledCompactionStrategy"))},
				{Name: "caching", Value: str("keys_only")}, {Name: "speculative_retry", Value: str("99PERCENTILE")}}}},
	{"create table simple pk", "CREATE COLUMNFAMILY t (k int, c int, v int, PRIMARY KEY (k, c),)",
		&CreateTable{Name: "t", PrimaryKeys: 1, PartitionKey: []string{"k"}, Clustering: []string{"c"}, Columns: []ColumnDef{
			{Name: "k", Type: Scalar(KindInt)}, {Name: "c", Type: Scalar(KindInt)}, {Name: "v", Type: Scalar(KindInt)}}}},
	{"create table single pk clause", "CREATE TABLE t (k int, PRIMARY KEY ((k)))",
		&CreateTable{Name: "t", PrimaryKeys: 1, PartitionKey: []string{"k"}, Columns: []ColumnDef{{Name: "k", Type: Scalar(KindInt)}}}},
	{"create table collections", "CREATE TABLE t (k uuid PRIMARY KEY, l list<int>, m map<text, frozen<list<int>>>, f frozen<set<inet>>, tu tuple<int, text>, u address, fu frozen<ks.address>)",
		&CreateTable{Name: "t", PrimaryKeys: 1, PartitionKey: []string{"k"}, Columns: []ColumnDef{
			{Name: "k", Type: Scalar(KindUUID)}, {Name: "l", Type: ListOf(Scalar(KindInt))},
			{Name: "m", Type: MapOf(Scalar(KindText), FrozenOf(ListOf(Scalar(KindInt))))},
			{Name: "f", Type: FrozenOf(SetOf(Scalar(KindInet)))},
			{Name: "tu", Type: FrozenOf(TupleOf(Scalar(KindInt), Scalar(KindText)))},
			{Name: "u", Type: &Type{Kind: KindUDT, Name: "address"}},
			{Name: "fu", Type: &Type{Kind: KindUDT, Keyspace: "ks", Name: "address", Frozen: true}}}}},

	{"alter add", "ALTER TABLE ks.t ADD v text", &AlterTable{Keyspace: "ks", Name: "t", Op: AlterAdd, Add: []ColumnDef{{Name: "v", Type: Scalar(KindText)}}}},
	{"alter add many", "ALTER TABLE t ADD IF NOT EXISTS (a int, b set<text> static)", &AlterTable{Name: "t", Op: AlterAdd, IfColumnExists: true,
		Add: []ColumnDef{{Name: "a", Type: Scalar(KindInt)}, {Name: "b", Type: SetOf(Scalar(KindText)), Static: true}}}},
	{"alter drop", "ALTER TABLE IF EXISTS t DROP v", &AlterTable{Name: "t", IfExists: true, Op: AlterDrop, Drop: []string{"v"}}},
	{"alter drop many", "ALTER TABLE t DROP IF EXISTS (a, \"B\")", &AlterTable{Name: "t", Op: AlterDrop, IfColumnExists: true, Drop: []string{"a", "B"}}},
	{"alter rename", "ALTER TABLE t RENAME a TO b AND c TO d", &AlterTable{Name: "t", Op: AlterRename,
		Rename: map[string]string{"a": "b", "c": "d"}, RenameOrder: []string{"a", "c"}}},
	{"alter with", "ALTER TABLE t WITH comment = 'hi' AND default_time_to_live = 3600", &AlterTable{Name: "t", Op: AlterWith,
		Options: []Option{{Name: "comment", Value: str("hi")}, {Name: "default_time_to_live", Value: num("3600")}}}},
	{"alter type", "ALTER TABLE t ALTER v TYPE blob", &AlterTable{Name: "t", Op: AlterType, Column: "v", NewType: Scalar(KindBlob)}},
	{"drop table", "DROP TABLE ks.t", &DropTable{Keyspace: "ks", Name: "t"}},
	{"drop table if exists", "DROP COLUMNFAMILY IF EXISTS t", &DropTable{Name: "t", IfExists: true}},
	{"truncate", "TRUNCATE ks.t", &Truncate{Keyspace: "ks", Name: "t"}},
	{"truncate table", "truncate table T", &Truncate{Name: "t"}},
	{"use", "USE ks", &Use{Keyspace: "ks"}},
	{"use quoted", `USE "MyKs";`, &Use{Keyspace: "MyKs"}},
}

func TestParseDDL(t *testing.T) { runParseCases(t, ddlCases) }

// Every scalar type name is accepted in a column definition.
func TestParseCreateTableScalarTypes(t *testing.T) {
	names := []string{"ascii", "bigint", "blob", "boolean", "counter", "date", "decimal", "double", "duration",
		"float", "inet", "int", "smallint", "text", "varchar", "time", "timestamp", "timeuuid", "tinyint", "uuid", "varint"}
	for _, n := range names {
		p, err := Parse("CREATE TABLE t (k int PRIMARY KEY, c " + n + ")")
		if err != nil {
			t.Errorf("type %s: %v", n, err)
			continue
		}
		want, _ := KindByName(n)
		if got := p.Stmt.(*CreateTable).Columns[1].Type; !got.Equal(Scalar(want)) {
			t.Errorf("type %s parsed as %v", n, got)
		}
	}
}

var unsupportedCases = []parseCase{
	{"create trigger", "CREATE TRIGGER tr ON t USING 'org.Trigger'", &Unsupported{What: "CREATE TRIGGER"}},
}

func TestParseUnsupported(t *testing.T) { runParseCases(t, unsupportedCases) }

// Primary key declarations are counted, not rejected: Cassandra reports a
// missing or repeated PRIMARY KEY as Invalid, which the schema package does.
func TestParsePrimaryKeyCount(t *testing.T) {
	for in, want := range map[string]int{
		"CREATE TABLE t (k int, v int)":                                 0,
		"CREATE TABLE t (k int PRIMARY KEY, v int)":                     1,
		"CREATE TABLE t (k int PRIMARY KEY, v int, PRIMARY KEY (k, v))": 2,
		"CREATE TABLE t (k int PRIMARY KEY, v int PRIMARY KEY)":         2,
	} {
		p, err := Parse(in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", in, err)
		}
		if got := p.Stmt.(*CreateTable).PrimaryKeys; got != want {
			t.Errorf("Parse(%q).PrimaryKeys = %d, want %d", in, got, want)
		}
	}
}
