package schema

import (
	"maps"
	"testing"

	"github.com/dohyo/dohyo/cql"
)

func TestCreateKeyspace(t *testing.T) {
	cases := []struct {
		name, stmt string
		repl       map[string]string
		durable    bool
	}{
		{"simple short name", "CREATE KEYSPACE k1 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}",
			map[string]string{"class": simpleStrategy, "replication_factor": "3"}, true},
		{"simple full name, durable off", "CREATE KEYSPACE k1 WITH replication = {'class': 'org.apache.cassandra.locator.SimpleStrategy', 'replication_factor': '2'} AND durable_writes = false",
			map[string]string{"class": simpleStrategy, "replication_factor": "2"}, false},
		{"simple default rf", "CREATE KEYSPACE k1 WITH replication = {'class': 'SimpleStrategy'}",
			map[string]string{"class": simpleStrategy, "replication_factor": "1"}, true},
		{"nts per dc", "CREATE KEYSPACE k1 WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 3, 'dc2': '2'}",
			map[string]string{"class": ntsStrategy, "dc1": "3", "dc2": "2"}, true},
		{"nts auto expansion", "CREATE KEYSPACE k1 WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': 3}",
			map[string]string{"class": ntsStrategy, "datacenter1": "3"}, true},
		{"nts empty uses default rf", "CREATE KEYSPACE k1 WITH replication = {'class': 'NetworkTopologyStrategy'}",
			map[string]string{"class": ntsStrategy, "datacenter1": "1"}, true},
		{"nts zero dropped", "CREATE KEYSPACE k1 WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 2, 'dc2': 0}",
			map[string]string{"class": ntsStrategy, "dc1": "2"}, true},
		{"quoted name", `CREATE KEYSPACE "MyKs" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
			map[string]string{"class": simpleStrategy, "replication_factor": "1"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewWithOptions(testOptions())
			next, ch, err := c.Apply(parse(t, tc.stmt), "")
			if err != nil {
				t.Fatal(err)
			}
			name := parse(t, tc.stmt).(*cql.CreateKeyspace).Name
			want := &Change{Type: ChangeCreated, Target: TargetKeyspace, Keyspace: name}
			if *ch != *want {
				t.Errorf("change = %+v, want %+v", ch, want)
			}
			ks := next.Keyspace(name)
			if ks == nil {
				t.Fatalf("keyspace %s missing", name)
			}
			if !maps.Equal(ks.Replication, tc.repl) || ks.DurableWrites != tc.durable {
				t.Errorf("got %v durable=%v, want %v durable=%v", ks.Replication, ks.DurableWrites, tc.repl, tc.durable)
			}
			if len(c.Keyspaces) != 0 {
				t.Errorf("original catalog changed: %v", c.KeyspaceNames())
			}
		})
	}
}

func TestCreateKeyspaceOptionsFromTypedFields(t *testing.T) {
	// A hand-built AST may carry only Replication/DurableWrites.
	off := false
	stmt := &cql.CreateKeyspace{Name: "k", Replication: map[string]string{"class": "SimpleStrategy", "replication_factor": "2"}, DurableWrites: &off}
	c, _, err := New().Apply(stmt, "")
	if err != nil {
		t.Fatal(err)
	}
	if ks := c.Keyspace("k"); ks.DurableWrites || ks.Replication["replication_factor"] != "2" || ks.ReplicationFactor() != 2 {
		t.Errorf("got %+v", ks)
	}
	e := applyErr(t, New(), &cql.CreateKeyspace{Name: "k", Replication: map[string]string{"replication_factor": "2"}}, "")
	if e.Code != ConfigError || e.Message != "Missing replication strategy class" {
		t.Errorf("got %v %q", e.Code, e.Message)
	}
	// Options win over the typed fields; the parser rejects a string here.
	e = applyErr(t, New(), &cql.CreateKeyspace{Name: "k", Options: []cql.Option{{Name: "replication", Value: str("x")}}}, "")
	if e.Code != SyntaxError || e.Message != "Invalid value for property 'replication'. It should be a map." {
		t.Errorf("got %v %q", e.Code, e.Message)
	}
}

func TestKeyspaceErrors(t *testing.T) {
	c := newCatalog(t)
	long := "k123456789012345678901234567890123456789012345678" // 49 chars
	cases := []errCase{
		{"exists", "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
			AlreadyExists, `Cannot add existing keyspace "ks"`},
		{"system", "CREATE KEYSPACE system WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
			Invalid, "System keyspace 'system' is not user-modifiable"},
		{"system_schema case", `CREATE KEYSPACE "SYSTEM_SCHEMA" WITH replication = {'class': 'SimpleStrategy'}`,
			Invalid, "System keyspace 'SYSTEM_SCHEMA' is not user-modifiable"},
		{"virtual", "DROP KEYSPACE system_views", Invalid, "System keyspace 'system_views' is not user-modifiable"},
		{"system_auth exists", "CREATE KEYSPACE system_auth WITH replication = {'class': 'SimpleStrategy'}",
			AlreadyExists, `Cannot add existing keyspace "system_auth"`},
		{"alter system_auth", "ALTER KEYSPACE system_auth WITH durable_writes = true",
			Invalid, "System keyspace 'system_auth' is not user-modifiable"},
		{"drop system_traces", "DROP KEYSPACE system_traces", Invalid, "System keyspace 'system_traces' is not user-modifiable"},
		{"name too long", "CREATE KEYSPACE " + long + " WITH replication = {'class': 'SimpleStrategy'}",
			Invalid, "Keyspace name must not be empty, more than 48 characters long, or contain non-alphanumeric-underscore characters (got '" + long + "')"},
		{"name bad chars", `CREATE KEYSPACE "a-b" WITH replication = {'class': 'SimpleStrategy'}`,
			Invalid, "Keyspace name must not be empty, more than 48 characters long, or contain non-alphanumeric-underscore characters (got 'a-b')"},
		{"missing replication", "CREATE KEYSPACE k2 WITH durable_writes = false", Invalid, "Missing mandatory option 'replication'"},
		{"missing class", "CREATE KEYSPACE k2 WITH replication = {'replication_factor': 1}", ConfigError, "Missing replication strategy class"},
		{"unknown class", "CREATE KEYSPACE k2 WITH replication = {'class': 'FooStrategy'}",
			ConfigError, "Unable to find replication strategy class 'org.apache.cassandra.locator.FooStrategy'"},
		{"local strategy", "CREATE KEYSPACE k2 WITH replication = {'class': 'LocalStrategy'}",
			Invalid, "Unable to use given strategy class: LocalStrategy is reserved for internal use."},
		{"old nts", "CREATE KEYSPACE k2 WITH replication = {'class': 'OldNetworkTopologyStrategy'}",
			ConfigError, "The support for the OldNetworkTopologyStrategy has been removed in C* version 4.0. The keyspace strategy should be switch to NetworkTopologyStrategy"},
		{"unknown property", "CREATE KEYSPACE k2 WITH replication = {'class': 'SimpleStrategy'} AND foo = 1", SyntaxError, "Unknown property 'foo'"},
		{"duplicate property", "CREATE KEYSPACE k2 WITH replication = {'class': 'SimpleStrategy'} AND replication = {'class': 'SimpleStrategy'}",
			SyntaxError, "Multiple definition for property 'replication'"},
		{"simple extra option", "CREATE KEYSPACE k2 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1, 'dc1': 1}",
			ConfigError, "Unrecognized strategy option {dc1} passed to SimpleStrategy for keyspace k2. Expected options: [replication_factor]"},
		{"bad rf", "CREATE KEYSPACE k2 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 'three'}",
			ConfigError, `For input string: "three"`},
		{"negative rf", "CREATE KEYSPACE k2 WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': -1}",
			ConfigError, "Replication factor must be non-negative, found -1"},
		{"transient", "CREATE KEYSPACE k2 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': '3/1'}",
			ConfigError, "Transient replication is disabled. Enable in cassandra.yaml to use."},
		{"nts all zero", "CREATE KEYSPACE k2 WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 0}",
			ConfigError, "Configuration for at least one datacenter must be present"},
		{"alter missing", "ALTER KEYSPACE nope WITH durable_writes = false", Invalid, "Keyspace 'nope' doesn't exist"},
		{"drop missing", "DROP KEYSPACE nope", Invalid, "Keyspace 'nope' doesn't exist"},
	}
	runErrCases(t, c, cases)
}

func TestKeyspaceNoOps(t *testing.T) {
	c := newCatalog(t)
	stmts := []string{
		"CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}",
		"CREATE KEYSPACE IF NOT EXISTS system_auth WITH replication = {'class': 'SimpleStrategy'}",
		"ALTER KEYSPACE IF EXISTS nope WITH durable_writes = false",
		"DROP KEYSPACE IF EXISTS nope",
		"ALTER KEYSPACE ks WITH durable_writes = true",
		"ALTER KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
	}
	for _, s := range stmts {
		next, ch, err := c.Apply(parse(t, s), "")
		if err != nil || ch != nil || next != c {
			t.Errorf("%s: got change %+v err %v, same catalog %v; want a no-op", s, ch, err, next == c)
		}
	}
}

func TestAlterKeyspace(t *testing.T) {
	cases := []struct {
		name, stmt string
		repl       map[string]string
		durable    bool
	}{
		{"durable only", "ALTER KEYSPACE ks WITH durable_writes = false",
			map[string]string{"class": simpleStrategy, "replication_factor": "1"}, false},
		{"simple rf", "ALTER KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}",
			map[string]string{"class": simpleStrategy, "replication_factor": "3"}, true},
		{"simple keeps rf", "ALTER KEYSPACE ks WITH replication = {'class': 'SimpleStrategy'} AND durable_writes = false",
			map[string]string{"class": simpleStrategy, "replication_factor": "1"}, false},
		{"to nts keeps rf", "ALTER KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy'}",
			map[string]string{"class": ntsStrategy, "datacenter1": "1"}, true},
		{"to nts explicit", "ALTER KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'east': 2}",
			map[string]string{"class": ntsStrategy, "east": "2"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCatalog(t)
			next, ch, err := c.Apply(parse(t, tc.stmt), "")
			if err != nil {
				t.Fatal(err)
			}
			if want := (Change{Type: ChangeUpdated, Target: TargetKeyspace, Keyspace: "ks"}); ch == nil || *ch != want {
				t.Errorf("change = %+v, want %+v", ch, want)
			}
			ks := next.Keyspace("ks")
			if !maps.Equal(ks.Replication, tc.repl) || ks.DurableWrites != tc.durable {
				t.Errorf("got %v durable=%v, want %v durable=%v", ks.Replication, ks.DurableWrites, tc.repl, tc.durable)
			}
			if old := c.Keyspace("ks"); old.Replication["replication_factor"] != "1" || !old.DurableWrites {
				t.Errorf("old snapshot changed: %+v", old)
			}
		})
	}
}

func TestAlterNTSAutoExpansionKeepsDCs(t *testing.T) {
	c := NewWithOptions(Options{Datacenters: []string{"dc1", "dc2"}})
	c = run(t, c, "CREATE KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 5}",
		"ALTER KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': 2}")
	want := map[string]string{"class": ntsStrategy, "dc1": "5", "dc2": "2"}
	if got := c.Keyspace("ks").Replication; !maps.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if rf := c.Keyspace("ks").ReplicationFactor(); rf != 7 {
		t.Errorf("ReplicationFactor = %d, want 7", rf)
	}
}

func TestDropKeyspace(t *testing.T) {
	c := newCatalog(t, "CREATE TABLE ks.t (k int PRIMARY KEY)")
	next, ch, err := c.Apply(parse(t, "DROP KEYSPACE ks"), "")
	if err != nil {
		t.Fatal(err)
	}
	if want := (Change{Type: ChangeDropped, Target: TargetKeyspace, Keyspace: "ks"}); *ch != want {
		t.Errorf("change = %+v, want %+v", ch, want)
	}
	if next.Keyspace("ks") != nil || c.Table("ks", "t") == nil {
		t.Errorf("drop: new has ks=%v, old has table=%v", next.Keyspace("ks") != nil, c.Table("ks", "t") != nil)
	}
}
