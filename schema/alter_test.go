package schema

import (
	"testing"
)

const baseTable = "CREATE TABLE t (k int, c int, v text, w int, PRIMARY KEY (k, c))"

func TestAlterTable(t *testing.T) {
	cases := []struct {
		name  string
		stmts []string
		cols  string
	}{
		{"add", []string{"ALTER TABLE t ADD a bigint"},
			"k:int:partition_key:0 c:int:clustering:0 a:bigint:regular:-1 v:text:regular:-1 w:int:regular:-1"},
		{"add many and static", []string{"ALTER TABLE ks.t ADD (s set<text> static, b blob)"},
			"k:int:partition_key:0 c:int:clustering:0 s:set<text>:static:-1 b:blob:regular:-1 v:text:regular:-1 w:int:regular:-1"},
		{"add if not exists partly new", []string{"ALTER TABLE t ADD IF NOT EXISTS (v text, n int)"},
			"k:int:partition_key:0 c:int:clustering:0 n:int:regular:-1 v:text:regular:-1 w:int:regular:-1"},
		{"drop", []string{"ALTER TABLE t DROP v"}, "k:int:partition_key:0 c:int:clustering:0 w:int:regular:-1"},
		{"drop many", []string{"ALTER TABLE t DROP (v, w)"}, "k:int:partition_key:0 c:int:clustering:0"},
		{"drop if exists", []string{"ALTER TABLE t DROP IF EXISTS (nope, w)"}, "k:int:partition_key:0 c:int:clustering:0 v:text:regular:-1"},
		{"rename keys", []string{"ALTER TABLE t RENAME k TO id AND c TO seq"},
			"id:int:partition_key:0 seq:int:clustering:0 v:text:regular:-1 w:int:regular:-1"},
		{"re-add dropped same type", []string{"ALTER TABLE t DROP v", "ALTER TABLE t ADD v text"},
			"k:int:partition_key:0 c:int:clustering:0 v:text:regular:-1 w:int:regular:-1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCatalog(t, baseTable)
			before := colSig(c.Table("ks", "t"))
			next := c
			for _, s := range tc.stmts {
				var ch *Change
				var err error
				next, ch, err = next.Apply(parse(t, s), "ks")
				if err != nil {
					t.Fatalf("%s: %v", s, err)
				}
				if want := (Change{Type: ChangeUpdated, Target: TargetTable, Keyspace: "ks", Table: "t"}); ch == nil || *ch != want {
					t.Errorf("change = %+v, want %+v", ch, want)
				}
			}
			if got := colSig(next.Table("ks", "t")); got != tc.cols {
				t.Errorf("columns\n got %s\nwant %s", got, tc.cols)
			}
			if got := colSig(c.Table("ks", "t")); got != before {
				t.Errorf("old snapshot changed: %s", got)
			}
			if next.Version == c.Version {
				t.Error("version unchanged")
			}
		})
	}
}

func TestAlterTableRecordsDrops(t *testing.T) {
	c := newCatalog(t, baseTable, "ALTER TABLE t DROP v")
	d := c.Table("ks", "t").Dropped["v"]
	if d == nil || TypeString(d.Type) != "text" || d.Kind != Regular || d.DroppedAt == 0 {
		t.Fatalf("dropped = %+v", d)
	}
	if c.Table("ks", "t").Column("v") != nil {
		t.Error("v still present")
	}
}

func TestAlterTableOptions(t *testing.T) {
	c := newCatalog(t, baseTable)
	next, ch, err := c.Apply(parse(t, "ALTER TABLE t WITH comment = 'it''s' AND default_time_to_live = 3600 AND gc_grace_seconds = 10"), "ks")
	if err != nil || ch == nil {
		t.Fatalf("change %+v err %v", ch, err)
	}
	tbl := next.Table("ks", "t")
	if tbl.Params.Comment != "it's" || tbl.DefaultTTL() != 3600 || tbl.GCGraceSeconds() != 10 {
		t.Errorf("params = %+v", tbl.Params)
	}
	if tbl.Options["comment"] != "'it''s'" || tbl.Options["default_time_to_live"] != "3600" {
		t.Errorf("options = %v", tbl.Options)
	}
	if old := c.Table("ks", "t"); old.Params.Comment != "" || old.DefaultTTL() != 0 || old.Options["comment"] != "''" {
		t.Errorf("old snapshot changed: %+v", old.Params)
	}
	// Setting the same values again changes nothing.
	again, ch, err := next.Apply(parse(t, "ALTER TABLE t WITH comment = 'it''s'"), "ks")
	if err != nil || ch != nil || again != next {
		t.Errorf("same options: change %+v err %v", ch, err)
	}
}

func TestAlterTableNoOps(t *testing.T) {
	c := newCatalog(t, baseTable)
	for _, s := range []string{
		"ALTER TABLE IF EXISTS nope ADD x int",
		"ALTER TABLE t ADD IF NOT EXISTS v text",
		"ALTER TABLE t DROP IF EXISTS nope",
		"ALTER TABLE t RENAME IF EXISTS nope TO other",
		"ALTER TABLE t WITH gc_grace_seconds = 864000",
	} {
		next, ch, err := c.Apply(parse(t, s), "ks")
		if err != nil || ch != nil || next != c {
			t.Errorf("%s: change %+v err %v; want a no-op", s, ch, err)
		}
	}
}

func TestAlterTableErrors(t *testing.T) {
	c := newCatalog(t, baseTable,
		"CREATE TABLE nock (k int PRIMARY KEY, v int)",
		"CREATE TABLE cnt (k int PRIMARY KEY, n counter)",
		"CREATE TABLE keyonly (k int PRIMARY KEY)",
		"ALTER TABLE t DROP w")
	cases := []errCase{
		{"missing table", "ALTER TABLE nope ADD x int", Invalid, "Table 'ks.nope' doesn't exist"},
		{"missing keyspace", "ALTER TABLE other.t ADD x int", Invalid, "Table 'other.t' doesn't exist"},
		{"add existing", "ALTER TABLE t ADD v int", Invalid, "Column with name 'v' already exists"},
		{"add key column", "ALTER TABLE t ADD k int", Invalid, "Column with name 'k' already exists"},
		{"add twice in one", "ALTER TABLE t ADD (x int, x text)", Invalid, "Column with name 'x' already exists"},
		{"add static no clustering", "ALTER TABLE nock ADD s int static", Invalid,
			"Static columns are only useful (and thus allowed) if the table has at least one clustering column"},
		{"add bad type", "ALTER TABLE t ADD l list<list<int>>", Invalid, "Non-frozen collections are not allowed inside collections: list<list<int>>"},
		{"add counter to regular table", "ALTER TABLE nock ADD n counter", ConfigError, `ks.nock: Cannot have a counter column ("n") in a non counter table`},
		{"add counter to key-only table", "ALTER TABLE keyonly ADD n counter", ConfigError, `ks.keyonly: Cannot have a counter column ("n") in a non counter table`},
		{"add regular to counter table", "ALTER TABLE cnt ADD v int", ConfigError, `ks.cnt: Cannot have a non counter column ("v") in a counter table`},
		{"re-add incompatible", "ALTER TABLE t ADD w text", Invalid, "Cannot re-add previously dropped column 'w' of type text, incompatible with previous type int"},
		{"re-add other kind", "ALTER TABLE t ADD w int static", Invalid, "Cannot re-add previously dropped column 'w' of kind STATIC, incompatible with previous kind REGULAR"},
		{"drop key", "ALTER TABLE t DROP k", Invalid, "Cannot drop PRIMARY KEY column k"},
		{"drop clustering", "ALTER TABLE t DROP c", Invalid, "Cannot drop PRIMARY KEY column c"},
		{"drop unknown", "ALTER TABLE t DROP x", Invalid, "Column x was not found in table 'ks.t'"},
		{"rename regular", "ALTER TABLE t RENAME v TO v2", Invalid, "Cannot rename non PRIMARY KEY column v"},
		{"rename unknown", "ALTER TABLE t RENAME x TO y", Invalid, "Undefined column name x in table ks.t"},
		{"rename onto existing", "ALTER TABLE t RENAME c TO v", Invalid, "Cannot rename column c to v in table 'ks.t'; another column with that name already exists"},
		{"alter type", "ALTER TABLE t ALTER v TYPE blob", Invalid, "Altering column types is no longer supported"},
		{"ttl on counters", "ALTER TABLE cnt WITH default_time_to_live = 5", Invalid, "Cannot set default_time_to_live on a table with counters"},
		{"alter id", "ALTER TABLE t WITH id = 5a1c395e-b41f-11e5-9f22-ba0be0483c18", ConfigError, "Cannot alter table id."},
		{"unknown option", "ALTER TABLE t WITH nope = 1", SyntaxError, "Unknown property 'nope'"},
		{"system", "ALTER TABLE system.local ADD x int", Invalid, "System keyspace 'system' is not user-modifiable"},
	}
	runErrCases(t, c, cases)
}

func TestCounterTableStaysCounter(t *testing.T) {
	c := newCatalog(t, "CREATE TABLE cnt (k int PRIMARY KEY, n counter)", "ALTER TABLE cnt DROP n")
	tbl := c.Table("ks", "cnt")
	if !tbl.IsCounter() {
		t.Error("counter table lost its counter flag")
	}
	runErrCases(t, c, []errCase{
		{"re-add dropped counter", "ALTER TABLE cnt ADD n counter", Invalid, "Cannot re-add previously dropped counter column n"},
		{"add regular", "ALTER TABLE cnt ADD v int", ConfigError, `ks.cnt: Cannot have a non counter column ("v") in a counter table`},
	})
	c = run(t, c, "ALTER TABLE cnt ADD m counter")
	if got := colSig(c.Table("ks", "cnt")); got != "k:int:partition_key:0 m:counter:regular:-1" {
		t.Errorf("columns = %s", got)
	}
}
