package relay

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

// SchemaRows reads Cassandra's own rows of the system_schema table t on
// the control connection (systemks.SchemaSource); without a control
// connection, or when the read fails (logged), dohyo's catalog stands in.
func (rl *Relay) SchemaRows(ctx context.Context, t *schema.Table) ([][][]byte, bool) {
	bc := rl.control.Load()
	if bc == nil || bc.isClosed() {
		return nil, false
	}
	rows, err := rl.controlQuery(ctx, bc, selectColumns(t))
	if err != nil {
		rl.log.Warn("relay: reading Cassandra's system_schema failed; dohyo's catalog stands in",
			"table", t.Name, "err", err)
		return nil, false
	}
	return rows, true
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
