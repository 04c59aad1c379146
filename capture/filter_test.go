package capture

import (
	"reflect"
	"testing"
)

func TestKeyspaceFilter(t *testing.T) {
	f := NewKeyspaceFilter([]string{"shop", "Mixed"})
	for _, c := range []struct {
		query, session string
		keep           bool
	}{
		{"INSERT INTO shop.orders (k) VALUES (?)", "", true},
		{"INSERT INTO orders (k) VALUES (?)", "shop", true},
		{"INSERT INTO other.orders (k) VALUES (?)", "shop", false}, // the named keyspace wins
		{"SELECT * FROM orders", "other", false},
		{"SELECT * FROM system.local WHERE key = 'local'", "", false},
		{"SELECT * FROM system.local WHERE key = 'local'", "shop", false},
		{"USE shop", "", true},
		{`SELECT * FROM "Mixed".t`, "", true},
		{"CREATE KEYSPACE shop WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", "", true},
		{"LIST ROLES", "shop", true},                     // names no keyspace: the session's
		{"this is not CQL", "shop", true},                // does not parse: the session's
		{"INSERT INTO orders (k) VALUES (?)", "", false}, // no keyspace at all
	} {
		r := &Record{Query: c.query, Keyspace: c.session}
		if got := f.Keep(r); got != c.keep {
			t.Errorf("Keep(%q in %q) = %v, want %v", c.query, c.session, got, c.keep)
		}
	}
	kept, left := f.Counts()
	want := []FilterCount{{"other", 2}, {"system", 2}, {"", 1}}
	if kept != 7 || !reflect.DeepEqual(left, want) {
		t.Errorf("Counts() = %d, %+v; want 7, %+v", kept, left, want)
	}
}
