package schema

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestUserTypesRoundTripAndFollowAlter(t *testing.T) {
	c := NewWithOptions(testOptions())
	c = run(t, c,
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TYPE ks.addr (street text, zip int)",
		"CREATE TYPE ks.person (name text, home frozen<addr>, tags set<text>)",
		"CREATE TABLE ks.t (k int PRIMARY KEY, a addr, p frozen<person>, l list<frozen<addr>>, c 'LexicalUUIDType')",
	)
	before := c.Table("ks", "t")
	c = run(t, c, "ALTER TYPE ks.addr ADD city text", "ALTER TYPE ks.addr RENAME zip TO postcode")
	tb := c.Table("ks", "t")
	if got := strings.Join(tb.Column("a").Type.Fields, ","); got != "street,postcode,city" {
		t.Errorf("column a fields after ALTER TYPE: %s", got)
	}
	home := tb.Column("p").Type.Elems[1]
	if got := strings.Join(home.Fields, ","); got != "street,postcode,city" || !home.Frozen {
		t.Errorf("nested addr in person: %s frozen=%v", got, home.Frozen)
	}
	if got := strings.Join(before.Column("a").Type.Fields, ","); got != "street,zip" {
		t.Errorf("ALTER TYPE changed the previous catalog's table: %s", got)
	}
	if tb.ID != before.ID {
		t.Error("ALTER TYPE changed the table id")
	}
	if got := tb.Column("c").Type.String(); got != "'org.apache.cassandra.db.marshal.LexicalUUIDType'" {
		t.Errorf("custom column type %s", got)
	}

	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	got, err := UnmarshalCatalog(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"addr", "person"} {
		if DescribeType(got.Keyspace("ks").Types[n]) != DescribeType(c.Keyspace("ks").Types[n]) {
			t.Errorf("type %s differs after the round trip:\n%s", n, DescribeType(got.Keyspace("ks").Types[n]))
		}
	}
	if got.Table("ks", "t").CreateStatement() != tb.CreateStatement() {
		t.Errorf("table differs after the round trip:\n%s", got.Table("ks", "t").CreateStatement())
	}
	if want := "CREATE TYPE ks.person (\n    name text,\n    home frozen<addr>,\n    tags set<text>\n);"; DescribeType(got.Keyspace("ks").Types["person"]) != want {
		t.Errorf("DescribeType:\n%s", DescribeType(got.Keyspace("ks").Types["person"]))
	}
}

func TestTypesInDependencyOrder(t *testing.T) {
	c := run(t, NewWithOptions(testOptions()),
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TYPE ks.z_addr (street text)",
		"CREATE TYPE ks.a_person (home frozen<z_addr>)",
		"CREATE TYPE ks.m_other (x int)",
	)
	var names []string
	for _, u := range c.Keyspace("ks").TypesInDependencyOrder() {
		names = append(names, u.Name)
	}
	if got := strings.Join(names, ","); got != "z_addr,a_person,m_other" {
		t.Errorf("order %s, want z_addr,a_person,m_other", got)
	}
}
