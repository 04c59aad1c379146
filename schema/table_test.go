package schema

import (
	"strings"
	"testing"

	"github.com/dohyo/dohyo/cql"
)

// colSig renders a table's columns compactly: name:type:kind:position[:desc].
func colSig(t *Table) string {
	var parts []string
	for _, c := range t.Columns {
		s := c.Name + ":" + TypeString(c.Type) + ":" + c.Kind.String() + ":" + itoa(c.Position)
		if c.Desc {
			s += ":desc"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

func itoa(n int) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

func TestCreateTable(t *testing.T) {
	cases := []struct {
		name, stmt string
		cols       string
		counter    bool
	}{
		{"inline pk", "CREATE TABLE t (k int PRIMARY KEY, v text, a bigint)",
			"k:int:partition_key:0 a:bigint:regular:-1 v:text:regular:-1", false},
		{"composite with static and order", "CREATE TABLE ks.t (a int, b text, c timeuuid, d bigint, s int static, v text, PRIMARY KEY ((a, b), c, d)) WITH CLUSTERING ORDER BY (c DESC, d ASC)",
			"a:int:partition_key:0 b:text:partition_key:1 c:timeuuid:clustering:0:desc d:bigint:clustering:1 s:int:static:-1 v:text:regular:-1", false},
		{"partial clustering order", "CREATE TABLE t (k int, c1 int, c2 int, PRIMARY KEY (k, c1, c2)) WITH CLUSTERING ORDER BY (c1 DESC)",
			"k:int:partition_key:0 c1:int:clustering:0:desc c2:int:clustering:1", false},
		{"only key", "CREATE TABLE t (k int PRIMARY KEY)", "k:int:partition_key:0", false},
		{"counters", "CREATE TABLE t (k int PRIMARY KEY, hits counter, misses counter)",
			"k:int:partition_key:0 hits:counter:regular:-1 misses:counter:regular:-1", true},
		{"collections", "CREATE TABLE t (k uuid PRIMARY KEY, l list<int>, m map<text, frozen<list<int>>>, f frozen<set<inet>>, tu tuple<int, text>, v varchar)",
			"k:uuid:partition_key:0 f:frozen<set<inet>>:regular:-1 l:list<int>:regular:-1 m:map<text, frozen<list<int>>>:regular:-1 tu:frozen<tuple<int, text>>:regular:-1 v:text:regular:-1", false},
		{"frozen propagates", "CREATE TABLE t (k frozen<map<text, list<int>>> PRIMARY KEY, d frozen<list<tuple<int, list<int>>>>)",
			"k:frozen<map<text, frozen<list<int>>>>:partition_key:0 d:frozen<list<frozen<tuple<int, frozen<list<int>>>>>>:regular:-1", false},
		{"quoted names", `CREATE TABLE "T" ("K" int PRIMARY KEY, "select" text)`,
			`K:int:partition_key:0 select:text:regular:-1`, false},
		{"duration regular", "CREATE TABLE t (k int PRIMARY KEY, d duration, m map<text, duration>)",
			"k:int:partition_key:0 d:duration:regular:-1 m:map<text, duration>:regular:-1", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCatalog(t)
			stmt := parse(t, tc.stmt).(*cql.CreateTable)
			next, ch, err := c.Apply(stmt, "ks")
			if err != nil {
				t.Fatal(err)
			}
			want := Change{Type: ChangeCreated, Target: TargetTable, Keyspace: "ks", Table: stmt.Name}
			if ch == nil || *ch != want {
				t.Errorf("change = %+v, want %+v", ch, want)
			}
			tbl := next.Table("ks", stmt.Name)
			if tbl == nil {
				t.Fatal("table missing")
			}
			if got := colSig(tbl); got != tc.cols {
				t.Errorf("columns\n got %s\nwant %s", got, tc.cols)
			}
			if tbl.IsCounter() != tc.counter || tbl.Counter != tc.counter {
				t.Errorf("IsCounter = %v, want %v", tbl.IsCounter(), tc.counter)
			}
			if _, ok := parseUUID(tbl.ID); !ok || tbl.Keyspace != "ks" {
				t.Errorf("id %q keyspace %q", tbl.ID, tbl.Keyspace)
			}
			if c.Table("ks", stmt.Name) != nil {
				t.Error("original catalog gained the table")
			}
		})
	}
}

func TestCreateTableIDOption(t *testing.T) {
	c := newCatalog(t, "CREATE TABLE t (k int PRIMARY KEY) WITH id = 5A1C395E-B41F-11E5-9F22-BA0BE0483C18")
	if got := c.Table("ks", "t").ID; got != "5a1c395e-b41f-11e5-9f22-ba0be0483c18" {
		t.Errorf("id = %s", got)
	}
}

func TestCreateTableIfNotExists(t *testing.T) {
	c := newCatalog(t, "CREATE TABLE t (k int PRIMARY KEY)")
	next, ch, err := c.Apply(parse(t, "CREATE TABLE IF NOT EXISTS t (k text PRIMARY KEY, v int)"), "ks")
	if err != nil || ch != nil || next != c {
		t.Fatalf("got change %+v err %v; want a no-op", ch, err)
	}
	if got := TypeString(next.Table("ks", "t").Column("k").Type); got != "int" {
		t.Errorf("table replaced: k is %s", got)
	}
}

func TestCreateTableErrors(t *testing.T) {
	c := newCatalog(t, "CREATE TABLE existing (k int PRIMARY KEY)")
	long := strings.Repeat("t", 49)
	cases := []errCase{
		{"exists", "CREATE TABLE existing (k int PRIMARY KEY)", AlreadyExists, `Cannot add already existing table "existing" to keyspace "ks"`},
		{"no keyspace", "CREATE TABLE nope.t (k int PRIMARY KEY)", Invalid, "Keyspace 'nope' doesn't exist"},
		{"system keyspace", "CREATE TABLE system.t (k int PRIMARY KEY)", Invalid, "System keyspace 'system' is not user-modifiable"},
		{"system_auth", "CREATE TABLE system_auth.t (k int PRIMARY KEY)", Invalid, "System keyspace 'system_auth' is not user-modifiable"},
		{"unknown pk column", "CREATE TABLE t (k int, v int, PRIMARY KEY (x))", Invalid, "Unknown column 'x' referenced in PRIMARY KEY for table 't'"},
		{"unknown clustering column", "CREATE TABLE t (k int, v int, PRIMARY KEY (k, c))", Invalid, "Unknown column 'c' referenced in PRIMARY KEY for table 't'"},
		{"duplicate pk column", "CREATE TABLE t (k int, v int, PRIMARY KEY (k, k))", Invalid, "Duplicate column 'k' in PRIMARY KEY clause for table 't'"},
		{"duplicate declaration", "CREATE TABLE ks.t (k int PRIMARY KEY, v int, v text)", Invalid, "Duplicate column 'v' declaration for table 'ks.t'"},
		{"duplicate declaration unqualified", "CREATE TABLE t (k int PRIMARY KEY, v int, v text)", Invalid, "Duplicate column 'v' declaration for table 't'"},
		{"non-frozen list key", "CREATE TABLE t (l list<int> PRIMARY KEY)", Invalid, "Invalid non-frozen collection type list<int> for PRIMARY KEY column 'l'"},
		{"non-frozen map clustering", "CREATE TABLE t (k int, m map<int, text>, PRIMARY KEY (k, m))", Invalid, "Invalid non-frozen collection type map<int, text> for PRIMARY KEY column 'm'"},
		{"counter key", "CREATE TABLE t (k counter PRIMARY KEY, v counter)", Invalid, "counter type is not supported for PRIMARY KEY column 'k'"},
		{"duration key", "CREATE TABLE t (d duration PRIMARY KEY)", Invalid, "duration type is not supported for PRIMARY KEY column 'd'"},
		{"nested duration key", "CREATE TABLE t (k int, d frozen<map<text, duration>>, PRIMARY KEY (k, d))", Invalid, "duration type is not supported for PRIMARY KEY column 'd'"},
		{"static in key", "CREATE TABLE t (k int, c int static, PRIMARY KEY (k, c))", Invalid, "Static column 'c' cannot be part of the PRIMARY KEY"},
		{"static without clustering", "CREATE TABLE t (k int PRIMARY KEY, s int static)", Invalid, "Static columns are only useful (and thus allowed) if the table has at least one clustering column"},
		{"mixed counters", "CREATE TABLE t (k int PRIMARY KEY, c counter, v int)", Invalid, "Cannot mix counter and non counter columns in the same table"},
		{"counter ttl", "CREATE TABLE t (k int PRIMARY KEY, c counter) WITH default_time_to_live = 10", Invalid, "Cannot set default_time_to_live on a table with counters"},
		{"order on non clustering", "CREATE TABLE t (k int PRIMARY KEY, v int) WITH CLUSTERING ORDER BY (v ASC)", Invalid, "Only clustering key columns can be defined in CLUSTERING ORDER directive: [v] are not clustering columns"},
		{"order wrong column", "CREATE TABLE t (k int, a int, b int, v int, PRIMARY KEY (k, a, b)) WITH CLUSTERING ORDER BY (v ASC)", Invalid, "Only clustering key columns can be defined in CLUSTERING ORDER directive: [v] are not clustering columns"},
		{"order missing first column", "CREATE TABLE t (k int, a int, b int, PRIMARY KEY (k, a, b)) WITH CLUSTERING ORDER BY (b ASC)", Invalid, "Missing CLUSTERING ORDER for column a"},
		{"order swapped", "CREATE TABLE t (k int, a int, b int, PRIMARY KEY (k, a, b)) WITH CLUSTERING ORDER BY (b ASC, a DESC)",
			Invalid, "The order of columns in the CLUSTERING ORDER directive must match that of the clustering columns (a must appear before b)"},
		{"order duplicate", "CREATE TABLE t (k int, a int, PRIMARY KEY (k, a)) WITH CLUSTERING ORDER BY (a ASC, a DESC)",
			Invalid, "Duplicate column 'a' in CLUSTERING ORDER BY clause for table 't'"},
		{"table name too long", "CREATE TABLE " + long + " (k int PRIMARY KEY)", ConfigError,
			"ks." + long + ": Table name must not be empty, more than 48 characters long, or contain non-alphanumeric-underscore characters (got \"" + long + "\")"},
		{"nested non-frozen", "CREATE TABLE t (k int PRIMARY KEY, l list<list<int>>)", Invalid, "Non-frozen collections are not allowed inside collections: list<list<int>>"},
		{"nested non-frozen map key", "CREATE TABLE t (k int PRIMARY KEY, m map<set<int>, int>)", Invalid, "Non-frozen collections are not allowed inside collections: map<set<int>, int>"},
		{"udt unknown", "CREATE TABLE t (k int PRIMARY KEY, a address)", Invalid, "Unknown type ks.address"},
		{"udt other keyspace", "CREATE TABLE t (k int PRIMARY KEY, a frozen<other.address>)", Invalid,
			"Statement on keyspace ks cannot refer to a user type in keyspace other; user types can only be used in the keyspace they are defined in"},
		{"udt inside collection", "CREATE TABLE t (k int PRIMARY KEY, a list<address>)", Invalid, "Non-frozen UDTs are not allowed inside collections: list<address>"},
		{"counter in list", "CREATE TABLE t (k int PRIMARY KEY, l list<counter>)", Invalid, "Counters are not allowed inside collections: list<counter>"},
		{"counter in map key", "CREATE TABLE t (k int PRIMARY KEY, m map<counter, int>)", Invalid, "Counters are not allowed inside collections: map<counter, int>"},
		{"counter in tuple", "CREATE TABLE t (k int PRIMARY KEY, tu tuple<int, counter>)", Invalid, "Counters are not allowed inside tuples"},
		{"duration in set", "CREATE TABLE t (k int PRIMARY KEY, s set<duration>)", Invalid, "Durations are not allowed inside sets: set<duration>"},
		{"duration map key", "CREATE TABLE t (k int PRIMARY KEY, m map<duration, text>)", Invalid, "Durations are not allowed as map keys: map<duration, text>"},
		{"frozen scalar", "CREATE TABLE t (k int PRIMARY KEY, v frozen<int>)", Invalid, "frozen<> is only allowed on collections, tuples, and user-defined types (got int)"},
		{"compact storage", "CREATE TABLE t (k int PRIMARY KEY, v int) WITH COMPACT STORAGE", Invalid, "COMPACT STORAGE tables are not supported by dohyo"},
		{"unknown property", "CREATE TABLE t (k int PRIMARY KEY) WITH foo = 1", SyntaxError, "Unknown property 'foo'"},
		{"options before types", "CREATE TABLE t (k int PRIMARY KEY, v address) WITH gc_grace_seconds = -1", ConfigError,
			"gc_grace_seconds must be greater than or equal to 0 (got -1)"},
	}
	runErrCases(t, c, cases)
}

func TestCreateTableErrorsFromAST(t *testing.T) {
	c := newCatalog(t)
	cases := []struct {
		name    string
		stmt    *cql.CreateTable
		current string
		code    Code
		msg     string
	}{
		{"no keyspace", &cql.CreateTable{Name: "t", PartitionKey: []string{"k"}, Columns: []cql.ColumnDef{{Name: "k", Type: cql.Scalar(cql.KindInt)}}},
			"", Invalid, "No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename"},
		{"no primary key", &cql.CreateTable{Keyspace: "ks", Name: "t", Columns: []cql.ColumnDef{{Name: "k", Type: cql.Scalar(cql.KindInt)}}},
			"", Invalid, "No PRIMARY KEY specifed for table 'ks.t' (exactly one required)"},
		{"nil type", &cql.CreateTable{Name: "t", PartitionKey: []string{"k"}, Columns: []cql.ColumnDef{{Name: "k"}}},
			"ks", Invalid, "Unknown type"},
		{"short list", &cql.CreateTable{Name: "t", PartitionKey: []string{"k"}, Columns: []cql.ColumnDef{{Name: "k", Type: cql.Scalar(cql.KindInt)}, {Name: "l", Type: &cql.Type{Kind: cql.KindList}}}},
			"ks", SyntaxError, "Invalid list type: 0 element types"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := applyErr(t, c, tc.stmt, tc.current)
			if got.Code != tc.code || got.Message != tc.msg {
				t.Errorf("got %v %q, want %v %q", got.Code, got.Message, tc.code, tc.msg)
			}
		})
	}
}

func TestDropTable(t *testing.T) {
	c := newCatalog(t, "CREATE TABLE t (k int PRIMARY KEY)", "CREATE TABLE u (k int PRIMARY KEY)")
	next, ch, err := c.Apply(parse(t, "DROP TABLE ks.t"), "")
	if err != nil {
		t.Fatal(err)
	}
	if want := (Change{Type: ChangeDropped, Target: TargetTable, Keyspace: "ks", Table: "t"}); *ch != want {
		t.Errorf("change = %+v, want %+v", ch, want)
	}
	if next.Table("ks", "t") != nil || c.Table("ks", "t") == nil {
		t.Error("drop did not copy on write")
	}
	if next.Table("ks", "u") != c.Table("ks", "u") {
		t.Error("untouched table not shared")
	}
	runErrCases(t, c, []errCase{
		{"missing", "DROP TABLE nope", Invalid, "Table 'ks.nope' doesn't exist"},
		{"missing keyspace", "DROP TABLE nope.t", Invalid, "Table 'nope.t' doesn't exist"},
	})
	if n2, ch, err := c.Apply(parse(t, "DROP TABLE IF EXISTS nope"), "ks"); err != nil || ch != nil || n2 != c {
		t.Errorf("IF EXISTS: change %+v err %v", ch, err)
	}
}

func TestRecreatedTableGetsNewID(t *testing.T) {
	c := newCatalog(t, "CREATE TABLE t (k int PRIMARY KEY)")
	id1 := c.Table("ks", "t").ID
	c = run(t, c, "DROP TABLE t", "CREATE TABLE t (k int PRIMARY KEY)")
	if id2 := c.Table("ks", "t").ID; id2 == id1 {
		t.Errorf("recreated table kept id %s", id1)
	}
}
