package cqlserver

import (
	"context"
	"strings"

	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

// system_schema for relayed keyspaces: the rows Cassandra itself has
// (tables, columns, types, functions, aggregates, views, indexes,
// triggers, ...), read on the relay's control connection and cached with
// the rest of system_schema per catalog version (Cassandra's schema
// version: it changes with every DDL, and the relay's schema events
// invalidate the catalog). dohyo's own rendering from its catalog stays
// for keyspaces on other backends, for the system keyspaces (dohyo's own
// definitions), and for a relay without a control connection.

// relayedSchemaRows replaces the rows of relayed keyspaces in b (a
// system_schema table, whose first column is keyspace_name) by
// Cassandra's.
func (v *virtualBackend) relayedSchemaRows(ctx context.Context, b *rowBuilder) {
	if b.err != nil || len(v.srv.relays) == 0 || len(b.t.Columns) == 0 || b.t.Columns[0].Name != "keyspace_name" {
		return
	}
	coord := v.srv.coord
	for name, rl := range v.srv.relays {
		bc := rl.control.Load()
		if bc == nil || bc.isClosed() {
			continue
		}
		rows, err := rl.controlQuery(ctx, bc, selectColumns(b.t))
		if err != nil {
			rl.log.Warn("relay: reading Cassandra's system_schema failed; dohyo's catalog stands in",
				"table", b.t.Name, "err", err)
			continue
		}
		relayed := func(ks string) bool {
			_, sys := v.system[ks]
			return !sys && coord.Route(ks).Backend == name // the virtual keyspaces route elsewhere
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

// selectColumns reads t's columns, in t's order, from Cassandra's table of
// the same name.
func selectColumns(t *schema.Table) string {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = cql.QuoteIdent(c.Name)
	}
	return "SELECT " + strings.Join(names, ", ") + " FROM system_schema." + cql.QuoteIdent(t.Name)
}
