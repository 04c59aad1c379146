package cqlserver

import (
	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql/wire"
)

// Column specs (native_protocol_v5.spec §4.2.5.2); the types are written by
// wire.AppendType.

// sameTable reports whether every column shares one keyspace and table
// (the Global_tables_spec flag).
func sameTable(cols []bindings.ColumnSpec) bool {
	if len(cols) == 0 {
		return false
	}
	for _, c := range cols[1:] {
		if c.Keyspace != cols[0].Keyspace || c.Table != cols[0].Table {
			return false
		}
	}
	return true
}

// appendColumnSpecs writes [<global_table_spec>] <col_spec_i>...
func appendColumnSpecs(f []byte, cols []bindings.ColumnSpec, global bool, version byte) []byte {
	if global {
		f = wire.AppendString(f, cols[0].Keyspace)
		f = wire.AppendString(f, cols[0].Table)
	}
	for _, c := range cols {
		if !global {
			f = wire.AppendString(f, c.Keyspace)
			f = wire.AppendString(f, c.Table)
		}
		f = wire.AppendString(f, c.Name)
		f = wire.AppendType(f, c.Type, version)
	}
	return f
}
