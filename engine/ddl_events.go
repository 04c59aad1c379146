package engine

import (
	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/schema"
)

// statementEvents lists the SCHEMA_CHANGE events a committed statement
// pushes, as Cassandra 5.0 does: one per schema object the statement
// changed (its schema events come from the diff of the keyspace), not only
// the one its RESULT names. ALTER TABLE of a base changes the views that
// select all its columns or rename its key, each an UPDATED TABLE of its
// own (drivers refresh a view only on its own event); DROP KEYSPACE drops
// its tables, views, types and functions before the keyspace. The main
// change comes first, except a dropped keyspace, which comes last as in
// Cassandra. nil means the main change alone.
func statementEvents(old, cur *schema.Catalog, main *bindings.SchemaChange) []*bindings.SchemaChange {
	one := func(c *schema.Catalog) *schema.Catalog {
		sub := &schema.Catalog{Keyspaces: map[string]*schema.Keyspace{}}
		if ks := c.Keyspace(main.Keyspace); ks != nil {
			sub.Keyspaces[main.Keyspace] = ks
		}
		return sub
	}
	diff := diffCatalogs(one(old), one(cur))
	events := make([]*bindings.SchemaChange, 0, len(diff)+1)
	last := main.Target == bindings.TargetKeyspace && main.Type == bindings.Dropped
	if !last {
		events = append(events, main)
	}
	for _, ch := range diff {
		if !sameChange(ch, main) {
			events = append(events, ch)
		}
	}
	if last {
		events = append(events, main)
	}
	if len(events) == 1 {
		return nil
	}
	return events
}

// sameChange reports whether a and b name the same change of one object.
func sameChange(a, b *bindings.SchemaChange) bool {
	if a.Type != b.Type || a.Target != b.Target || a.Keyspace != b.Keyspace || a.Object != b.Object || len(a.Args) != len(b.Args) {
		return false
	}
	for i := range a.Args {
		if a.Args[i] != b.Args[i] {
			return false
		}
	}
	return true
}
