package schema

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dohyo/dohyo/cql"
)

func TestVersionsChangeOnEveryEffectiveDDL(t *testing.T) {
	c := NewWithOptions(testOptions())
	seen := map[string]bool{c.Version: true}
	stmts := []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, v int)",
		"ALTER TABLE ks.t ADD w text",
		"ALTER TABLE ks.t WITH comment = 'x'",
		"ALTER KEYSPACE ks WITH durable_writes = false",
		"DROP TABLE ks.t",
		"DROP KEYSPACE ks",
	}
	for _, s := range stmts {
		next, ch, err := c.Apply(parse(t, s), "")
		if err != nil || ch == nil {
			t.Fatalf("%s: change %v err %v", s, ch, err)
		}
		if seen[next.Version] {
			t.Errorf("%s: version %s reused", s, next.Version)
		}
		if _, ok := timeUUIDTicks(next.Version); !ok {
			t.Errorf("%s: version %s is not a time UUID", s, next.Version)
		}
		seen[next.Version] = true
		c = next
	}
}

func TestVersionsMonotonicWithStoppedClock(t *testing.T) {
	fixed := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	c := NewWithOptions(Options{Now: func() time.Time { return fixed }, Rand: &seqReader{}})
	c = run(t, c, "CREATE KEYSPACE a WITH replication = {'class': 'SimpleStrategy'}")
	v1 := c.Version
	c = run(t, c, "CREATE KEYSPACE b WITH replication = {'class': 'SimpleStrategy'}")
	t1, _ := timeUUIDTicks(v1)
	t2, _ := timeUUIDTicks(c.Version)
	if t2 <= t1 {
		t.Errorf("version ticks %d then %d: not increasing", t1, t2)
	}
	want := uint64(fixed.UnixNano()/100) + uuidEpochOffset
	if t1 != want {
		t.Errorf("first version ticks %d, want %d", t1, want)
	}
}

func TestDeterministicWithInjectedOptions(t *testing.T) {
	build := func() *Catalog {
		return run(t, NewWithOptions(testOptions()),
			"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy'}", "CREATE TABLE ks.t (k int PRIMARY KEY)")
	}
	a, b := build(), build()
	if a.Version != b.Version || a.Table("ks", "t").ID != b.Table("ks", "t").ID {
		t.Errorf("not deterministic: %s/%s vs %s/%s", a.Version, a.Table("ks", "t").ID, b.Version, b.Table("ks", "t").ID)
	}
	if id := a.Table("ks", "t").ID; id[14] != '4' {
		t.Errorf("table id %s is not a version-4 UUID", id)
	}
}

func TestCopyOnWriteSharesUntouched(t *testing.T) {
	c := newCatalog(t, "CREATE TABLE a (k int PRIMARY KEY)", "CREATE TABLE b (k int PRIMARY KEY)")
	c = run(t, c, "CREATE KEYSPACE other WITH replication = {'class': 'SimpleStrategy'}")
	before := c.Table("ks", "a").CreateStatement()
	next := run(t, c, "ALTER TABLE ks.a ADD v int")
	if next.Keyspace("other") != c.Keyspace("other") {
		t.Error("untouched keyspace copied")
	}
	if next.Table("ks", "b") != c.Table("ks", "b") {
		t.Error("untouched table copied")
	}
	if next.Keyspace("ks") == c.Keyspace("ks") || next.Table("ks", "a") == c.Table("ks", "a") {
		t.Error("changed keyspace/table shared")
	}
	if c.Table("ks", "a").CreateStatement() != before || c.Table("ks", "a").Column("v") != nil {
		t.Error("old snapshot modified")
	}
	if next.Table("ks", "a").Column("k") != c.Table("ks", "a").Column("k") {
		t.Error("unchanged column not shared")
	}
}

func TestApplyRejectsNonDDL(t *testing.T) {
	_, _, err := New().Apply(&cql.Select{Table: "t"}, "ks")
	var se *Error
	if !errors.As(err, &se) || se.Code != Invalid {
		t.Errorf("got %v", err)
	}
	// A nil catalog behaves as an empty one.
	var nilCat *Catalog
	next, ch, err := nilCat.Apply(parse(t, "CREATE KEYSPACE k WITH replication = {'class': 'SimpleStrategy'}"), "")
	if err != nil || ch == nil || next.Keyspace("k") == nil {
		t.Errorf("nil catalog: %v %v", ch, err)
	}
}

func TestTableHelpers(t *testing.T) {
	c := newCatalog(t, "CREATE TABLE t (a int, b text, c timeuuid, d bigint, s int static, s0 text static, v text, u int, PRIMARY KEY ((a, b), c, d)) WITH default_time_to_live = 9 AND gc_grace_seconds = 11")
	tbl := c.Table("ks", "t")
	names := func(cols []*Column) string {
		var s []string
		for _, c := range cols {
			s = append(s, c.Name)
		}
		return strings.Join(s, ",")
	}
	types := func(ts []*cql.Type) string {
		var s []string
		for _, t := range ts {
			s = append(s, t.String())
		}
		return strings.Join(s, ",")
	}
	checks := []struct{ got, want string }{
		{types(tbl.PartitionKeyTypes()), "int,text"},
		{types(tbl.ClusteringTypes()), "timeuuid,bigint"},
		{names(tbl.Regular()), "u,v"},
		{names(tbl.Static()), "s,s0"},
		{names(tbl.Columns), "a,b,c,d,s,s0,u,v"},
		{names(tbl.PartitionKey), "a,b"},
		{names(tbl.Clustering), "c,d"},
	}
	for i, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("check %d: got %s, want %s", i, ch.got, ch.want)
		}
	}
	if !tbl.HasStatic() || tbl.IsCounter() || tbl.DefaultTTL() != 9 || tbl.GCGraceSeconds() != 11 {
		t.Errorf("HasStatic %v IsCounter %v ttl %d gc %d", tbl.HasStatic(), tbl.IsCounter(), tbl.DefaultTTL(), tbl.GCGraceSeconds())
	}
	// A hand-built table (schema discovery) is ordered by Reindex.
	hand := &Table{Keyspace: "ks", Name: "h", Columns: []*Column{
		{Name: "v", Type: cql.Scalar(cql.KindCounter), Kind: Regular, Position: -1},
		{Name: "c", Type: cql.Scalar(cql.KindInt), Kind: Clustering, Position: 0},
		{Name: "k2", Type: cql.Scalar(cql.KindInt), Kind: PartitionKey, Position: 1},
		{Name: "k1", Type: cql.Scalar(cql.KindInt), Kind: PartitionKey, Position: 0},
	}}
	hand.Reindex()
	if got := names(hand.Columns) + "|" + names(hand.PartitionKey) + "|" + names(hand.Clustering); got != "k1,k2,c,v|k1,k2|c" {
		t.Errorf("Reindex: %s", got)
	}
	if !hand.IsCounter() || hand.HasStatic() {
		t.Errorf("hand-built IsCounter %v HasStatic %v", hand.IsCounter(), hand.HasStatic())
	}
}

func TestMerge(t *testing.T) {
	a := run(t, NewWithOptions(testOptions()),
		"CREATE KEYSPACE x WITH replication = {'class': 'SimpleStrategy'}",
		"CREATE KEYSPACE shared WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	bopts := testOptions()
	bopts.Now = func() time.Time { return time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC) }
	b := run(t, NewWithOptions(bopts),
		"CREATE KEYSPACE y WITH replication = {'class': 'SimpleStrategy'}",
		"CREATE KEYSPACE shared WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 2}")
	m := Merge(a, nil, b)
	if got := strings.Join(m.KeyspaceNames(), ","); got != "shared,x,y" {
		t.Errorf("keyspaces %s", got)
	}
	if m.Keyspace("shared") != b.Keyspace("shared") || m.Keyspace("x") != a.Keyspace("x") {
		t.Error("later catalog must win and keyspaces be shared")
	}
	if m.Version == a.Version || m.Version == b.Version {
		t.Error("merged version equals an input's")
	}
	if Merge(a, b).Version != m.Version {
		t.Error("merge version not a function of input versions")
	}
	if Merge(b, a).Version == m.Version {
		t.Error("merge version ignores order")
	}
	b2 := run(t, b, "DROP KEYSPACE y")
	if Merge(a, b2).Version == m.Version {
		t.Error("merge version did not change with an input")
	}
	if len(a.Keyspaces) != 2 || len(b.Keyspaces) != 2 {
		t.Error("inputs modified")
	}
	if e := Merge(); e.Version == "" || len(e.Keyspaces) != 0 {
		t.Errorf("empty merge: %+v", e)
	}
}

func TestErrorCodeString(t *testing.T) {
	for c, want := range map[Code]string{Invalid: "Invalid", AlreadyExists: "AlreadyExists", ConfigError: "ConfigError", SyntaxError: "SyntaxError", 9: "Code(9)"} {
		if c.String() != want {
			t.Errorf("%d: %s", int(c), c)
		}
	}
}

type failReader struct{}

func (failReader) Read([]byte) (int, error) { return 0, errors.New("entropy exhausted") }

func TestRandomSourceFailure(t *testing.T) {
	c := NewWithOptions(Options{Rand: failReader{}})
	_, _, err := c.Apply(parse(t, "CREATE KEYSPACE k WITH replication = {'class': 'SimpleStrategy'}"), "")
	if err == nil || !strings.Contains(err.Error(), "entropy exhausted") {
		t.Errorf("got %v", err)
	}
}

func TestOptionsDefaultKeyspaceRF(t *testing.T) {
	c := run(t, NewWithOptions(Options{DefaultKeyspaceRF: 3, Datacenters: []string{"east", "west"}}),
		"CREATE KEYSPACE a WITH replication = {'class': 'SimpleStrategy'}",
		"CREATE KEYSPACE b WITH replication = {'class': 'NetworkTopologyStrategy'}")
	if rf := c.Keyspace("a").ReplicationFactor(); rf != 3 {
		t.Errorf("a: rf %d", rf)
	}
	if got := c.Keyspace("b").Replication; got["east"] != "3" || got["west"] != "3" || len(got) != 3 {
		t.Errorf("b: %v", got)
	}
}

func TestIsSystemKeyspace(t *testing.T) {
	for name, want := range map[string]bool{"system": true, "System_Auth": true, "system_views": true, "ks": false, "systems": false} {
		if IsSystemKeyspace(name) != want {
			t.Errorf("IsSystemKeyspace(%s) = %v", name, !want)
		}
	}
}

func TestPropertyValueErrors(t *testing.T) {
	c := newCatalog(t)
	cases := []struct {
		name string
		val  cql.Term
		msg  string
	}{
		{"bind marker", &cql.BindMarker{}, "Invalid property value: ?"},
		{"null", &cql.Literal{Kind: cql.LitNull}, "Invalid property value: null"},
		{"udt literal", &cql.UDTLit{Fields: []string{"class"}, Values: []cql.Term{str("x")}}, "Invalid property value: class"},
		{"list", &cql.CollectionLit{Kind: cql.CollList, Values: []cql.Term{str("x")}}, "Invalid property value: value"},
		{"map of non-constants", &cql.CollectionLit{Kind: cql.CollMap, Keys: []cql.Term{str("class")}, Values: []cql.Term{&cql.BindMarker{}}},
			"Invalid property value: class"},
	}
	for _, tc := range cases {
		stmt := &cql.CreateTable{Name: "t", PartitionKey: []string{"k"}, Columns: []cql.ColumnDef{{Name: "k", Type: cql.Scalar(cql.KindInt)}},
			Options: []cql.Option{{Name: "compaction", Value: tc.val}}}
		if e := applyErr(t, c, stmt, "ks"); e.Code != SyntaxError || e.Message != tc.msg {
			t.Errorf("%s: got %v %q, want %q", tc.name, e.Code, e.Message, tc.msg)
		}
	}
}
