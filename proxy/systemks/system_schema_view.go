package systemks

import (
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

// viewRows renders system_schema.views: the materialized views of the
// catalog, with their options as in system_schema.tables (their columns are
// in system_schema.columns like a table's).
func viewRows(_ *Backend, t *schema.Table, kss []*schema.Keyspace) *rowBuilder {
	b := &rowBuilder{t: t}
	eachTable(kss, func(tb *schema.Table) {
		if !tb.IsView() {
			return
		}
		row := paramsRow(tb)
		row["view_name"] = tb.Name
		row["base_table_name"] = tb.View.BaseTable
		row["base_table_id"] = tb.View.BaseID
		if _, err := cql.ParseUUID(tb.View.BaseID); err != nil {
			row["base_table_id"] = nameUUID(tb.Keyspace + tb.View.BaseTable)
		}
		row["include_all_columns"] = tb.View.IncludeAll
		row["where_clause"] = tb.View.Where
		b.add(row)
	})
	return b
}
