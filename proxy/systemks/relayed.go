package systemks

import (
	"context"
)

// relayedSchemaRows replaces the rows of keyspaces whose backend has a
// SchemaSource in b (a system_schema table, whose first column is
// keyspace_name) by that backend's own: for a Cassandra relay, the rows
// Cassandra itself has (tables, columns, types, functions, aggregates,
// views, indexes, triggers, ...), cached with the rest of system_schema
// per catalog version (Cassandra's schema version: it changes with every
// DDL, and the relay's schema events invalidate the catalog). dohyo's own
// rendering from its catalog stays for keyspaces on other backends, for
// the system keyspaces (dohyo's own definitions), and for a source that
// cannot answer.
func (v *Backend) relayedSchemaRows(ctx context.Context, b *rowBuilder) {
	if b.err != nil || len(v.cfg.SchemaSources) == 0 || len(b.t.Columns) == 0 || b.t.Columns[0].Name != "keyspace_name" {
		return
	}
	coord := v.cfg.Coordinator
	for name, src := range v.cfg.SchemaSources {
		rows, ok := src.SchemaRows(ctx, b.t)
		if !ok {
			continue
		}
		relayed := func(ks string) bool {
			_, sys := v.system[ks]
			return !sys && coord.Route(ks).Name == name // the system keyspaces route elsewhere
		}
		kept := b.rows[:0]
		for _, row := range b.rows {
			if !relayed(string(row[0])) {
				kept = append(kept, row)
			}
		}
		for _, row := range rows {
			if len(row) == len(b.t.Columns) && relayed(string(row[0])) {
				kept = append(kept, row)
			}
		}
		b.rows = kept
	}
}
