package systemks

import (
	"context"
	"encoding/hex"
	"strings"
	"time"

	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

// system_schema.* rendered from the merged catalog in Cassandra 5.0's layout
// (SchemaKeyspace), plus system_virtual_schema.* (empty: dohyo has no
// virtual tables of its own). The system keyspaces' own definitions are
// listed too, so cqlsh and drivers describe them like any other.

func schemaParams(p *schema.TableParams) {
	p.GCGraceSeconds = int((7 * 24 * time.Hour).Seconds())
	p.MemtableFlushPeriodInMs = systemFlush
}

func (v *Backend) addSchemaTables() {
	def := func(name, comment, ddl string, rows func(*Backend, *schema.Table, []*schema.Keyspace) *rowBuilder) {
		var t *schema.Table
		v.define("system_schema", comment, ddl, schemaParams, func(ctx context.Context, cat *schema.Catalog) ([][][]byte, error) {
			b := &rowBuilder{t: t}
			if rows != nil {
				b = rows(v, t, v.allKeyspaces(cat))
			}
			v.relayedSchemaRows(ctx, b) // Cassandra's own rows for relayed keyspaces (relayed.go)
			return b.sorted()
		}, true)
		t = v.tables["system_schema"][name].meta
	}
	def("keyspaces", "keyspace definitions", `CREATE TABLE keyspaces (
		keyspace_name text PRIMARY KEY, durable_writes boolean, replication frozen<map<text, text>>)`,
		keyspaceRows)
	def("tables", "table definitions", `CREATE TABLE tables (
		keyspace_name text, table_name text, allow_auto_snapshot boolean, bloom_filter_fp_chance double,
		caching frozen<map<text, text>>, comment text, compaction frozen<map<text, text>>,
		compression frozen<map<text, text>>, memtable text, crc_check_chance double,
		dclocal_read_repair_chance double, default_time_to_live int, extensions frozen<map<text, blob>>,
		flags frozen<set<text>>, gc_grace_seconds int, incremental_backups boolean, id uuid,
		max_index_interval int, memtable_flush_period_in_ms int, min_index_interval int,
		read_repair_chance double, speculative_retry text, additional_write_policy text, cdc boolean,
		read_repair text, PRIMARY KEY ((keyspace_name), table_name))`,
		tableRows)
	def("columns", "column definitions", `CREATE TABLE columns (
		keyspace_name text, table_name text, column_name text, clustering_order text,
		column_name_bytes blob, kind text, position int, type text,
		PRIMARY KEY ((keyspace_name), table_name, column_name))`,
		columnRows)
	def("column_masks", "column dynamic data masks", `CREATE TABLE column_masks (
		keyspace_name text, table_name text, column_name text, function_keyspace text,
		function_name text, function_argument_types frozen<list<text>>,
		function_argument_values frozen<list<text>>, function_argument_nulls frozen<list<boolean>>,
		PRIMARY KEY ((keyspace_name), table_name, column_name))`, nil)
	def("dropped_columns", "dropped column registry", `CREATE TABLE dropped_columns (
		keyspace_name text, table_name text, column_name text, dropped_time timestamp, kind text,
		type text, PRIMARY KEY ((keyspace_name), table_name, column_name))`,
		droppedRows)
	def("triggers", "trigger definitions", `CREATE TABLE triggers (
		keyspace_name text, table_name text, trigger_name text, options frozen<map<text, text>>,
		PRIMARY KEY ((keyspace_name), table_name, trigger_name))`, nil)
	def("views", "view definitions", `CREATE TABLE views (
		keyspace_name text, view_name text, base_table_id uuid, base_table_name text,
		where_clause text, allow_auto_snapshot boolean, bloom_filter_fp_chance double,
		caching frozen<map<text, text>>, comment text, compaction frozen<map<text, text>>,
		compression frozen<map<text, text>>, memtable text, crc_check_chance double,
		dclocal_read_repair_chance double, default_time_to_live int, extensions frozen<map<text, blob>>,
		gc_grace_seconds int, incremental_backups boolean, id uuid, include_all_columns boolean,
		max_index_interval int, memtable_flush_period_in_ms int, min_index_interval int,
		read_repair_chance double, speculative_retry text, additional_write_policy text, cdc boolean,
		read_repair text, PRIMARY KEY ((keyspace_name), view_name))`, viewRows)
	def("types", "user defined type definitions", `CREATE TABLE types (
		keyspace_name text, type_name text, field_names frozen<list<text>>,
		field_types frozen<list<text>>, PRIMARY KEY ((keyspace_name), type_name))`, typeRows)
	def("functions", "user defined function definitions", `CREATE TABLE functions (
		keyspace_name text, function_name text, argument_types frozen<list<text>>,
		argument_names frozen<list<text>>, body text, language text, return_type text,
		called_on_null_input boolean, PRIMARY KEY ((keyspace_name), function_name, argument_types))`, functionRows)
	def("aggregates", "user defined aggregate definitions", `CREATE TABLE aggregates (
		keyspace_name text, aggregate_name text, argument_types frozen<list<text>>,
		final_func text, initcond text, return_type text, state_func text, state_type text,
		PRIMARY KEY ((keyspace_name), aggregate_name, argument_types))`, aggregateRows)
	def("indexes", "secondary index definitions", `CREATE TABLE indexes (
		keyspace_name text, table_name text, index_name text, kind text, options frozen<map<text, text>>,
		PRIMARY KEY ((keyspace_name), table_name, index_name))`, indexRows)

	// Virtual keyspaces are described in system_virtual_schema, never in
	// system_schema; dohyo has none, so these tables are empty.
	vdef := func(comment, ddl string) {
		v.define("system_virtual_schema", comment, ddl, nil,
			func(context.Context, *schema.Catalog) ([][][]byte, error) { return nil, nil }, true)
	}
	vdef("virtual keyspace definitions", `CREATE TABLE keyspaces (keyspace_name text PRIMARY KEY)`)
	vdef("virtual table definitions", `CREATE TABLE tables (keyspace_name text, comment text,
		table_name text, PRIMARY KEY ((keyspace_name), table_name))`)
	vdef("virtual column definitions", `CREATE TABLE columns (keyspace_name text, table_name text,
		column_name text, clustering_order text, column_name_bytes blob, kind text, position int,
		type text, PRIMARY KEY ((keyspace_name), table_name, column_name))`)
	delete(v.system, "system_virtual_schema")
}

// allKeyspaces lists the user keyspaces and dohyo's system keyspaces
// (those with tables in system_schema's sense: system and system_schema).
func (v *Backend) allKeyspaces(cat *schema.Catalog) []*schema.Keyspace {
	var out []*schema.Keyspace
	for _, name := range cat.KeyspaceNames() {
		if _, sys := v.system[name]; !sys {
			out = append(out, cat.Keyspaces[name])
		}
	}
	for _, ks := range v.system {
		out = append(out, ks)
	}
	return out
}

func keyspaceRows(_ *Backend, t *schema.Table, kss []*schema.Keyspace) *rowBuilder {
	b := &rowBuilder{t: t}
	for _, ks := range kss {
		b.add(map[string]any{
			"keyspace_name":  ks.Name,
			"durable_writes": ks.DurableWrites,
			"replication":    ks.Replication,
		})
	}
	return b
}

func eachTable(kss []*schema.Keyspace, fn func(*schema.Table)) {
	for _, ks := range kss {
		for _, name := range ks.TableNames() {
			fn(ks.Tables[name])
		}
	}
}

func tableRows(_ *Backend, t *schema.Table, kss []*schema.Keyspace) *rowBuilder {
	b := &rowBuilder{t: t}
	eachTable(kss, func(tb *schema.Table) {
		if tb.IsView() {
			return // in system_schema.views (system_schema_view.go)
		}
		flags := []string{"compound"}
		if tb.Counter || tb.IsCounter() {
			flags = append(flags, "counter")
		}
		row := paramsRow(tb)
		row["table_name"], row["flags"] = tb.Name, flags
		b.add(row)
	})
	return b
}

// paramsRow is the part of a system_schema.tables or views row that
// describes the table's options.
func paramsRow(tb *schema.Table) map[string]any {
	p := &tb.Params
	row := map[string]any{
		"keyspace_name":               tb.Keyspace,
		"bloom_filter_fp_chance":      p.BloomFilterFPChance,
		"caching":                     nonNil(p.Caching),
		"comment":                     p.Comment,
		"compaction":                  nonNil(p.Compaction),
		"compression":                 nonNil(p.Compression),
		"crc_check_chance":            p.CRCCheckChance,
		"dclocal_read_repair_chance":  0.0, // no longer used, kept for drivers
		"default_time_to_live":        int32(p.DefaultTimeToLive),
		"extensions":                  extensions(p.Extensions),
		"gc_grace_seconds":            int32(p.GCGraceSeconds),
		"id":                          tb.ID,
		"max_index_interval":          int32(p.MaxIndexInterval),
		"memtable_flush_period_in_ms": int32(p.MemtableFlushPeriodInMs),
		"min_index_interval":          int32(p.MinIndexInterval),
		"read_repair_chance":          0.0,
		"speculative_retry":           p.SpeculativeRetry,
		"additional_write_policy":     p.AdditionalWritePolicy,
		"read_repair":                 p.ReadRepair,
	}
	// As Cassandra, write these only when they differ from the defaults
	// (older readers do not know the columns).
	if p.Memtable != "" && p.Memtable != "default" {
		row["memtable"] = p.Memtable
	}
	if !p.AllowAutoSnapshot {
		row["allow_auto_snapshot"] = false
	}
	if !p.IncrementalBackups {
		row["incremental_backups"] = false
	}
	if p.CDC {
		row["cdc"] = true
	}
	if _, err := cql.ParseUUID(tb.ID); err != nil {
		row["id"] = nameUUID(tb.Keyspace + tb.Name)
	}
	return row
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// extensions turns the catalog's 0x-hex blob texts into bytes.
func extensions(m map[string]string) map[string][]byte {
	out := make(map[string][]byte, len(m))
	for k, v := range m {
		b, err := hex.DecodeString(strings.TrimPrefix(strings.TrimPrefix(v, "0x"), "0X"))
		if err != nil {
			b = []byte(v)
		}
		out[k] = b
	}
	return out
}

func columnRows(_ *Backend, t *schema.Table, kss []*schema.Keyspace) *rowBuilder {
	b := &rowBuilder{t: t}
	eachTable(kss, func(tb *schema.Table) {
		for _, c := range tb.Columns {
			order := "none"
			if c.Kind == schema.Clustering {
				order = "asc"
				if c.Desc {
					order = "desc"
				}
			}
			pos := int32(-1)
			if c.Kind == schema.PartitionKey || c.Kind == schema.Clustering {
				pos = int32(c.Position)
			}
			b.add(map[string]any{
				"keyspace_name":     tb.Keyspace,
				"table_name":        tb.Name,
				"column_name":       c.Name,
				"clustering_order":  order,
				"column_name_bytes": []byte(c.Name),
				"kind":              lower(c.Kind.String()),
				"position":          pos,
				"type":              schema.TypeString(c.Type),
			})
		}
	})
	return b
}

func droppedRows(_ *Backend, t *schema.Table, kss []*schema.Keyspace) *rowBuilder {
	b := &rowBuilder{t: t}
	eachTable(kss, func(tb *schema.Table) {
		for _, d := range tb.Dropped {
			b.add(map[string]any{
				"keyspace_name": tb.Keyspace,
				"table_name":    tb.Name,
				"column_name":   d.Name,
				"dropped_time":  time.UnixMicro(d.DroppedAt).UTC(),
				"kind":          lower(d.Kind.String()),
				"type":          schema.TypeString(d.Type),
			})
		}
	})
	return b
}

func indexRows(_ *Backend, t *schema.Table, kss []*schema.Keyspace) *rowBuilder {
	b := &rowBuilder{t: t}
	eachTable(kss, func(tb *schema.Table) {
		for _, ix := range tb.Indexes {
			b.add(map[string]any{
				"keyspace_name": tb.Keyspace,
				"table_name":    tb.Name,
				"index_name":    ix.Name,
				"kind":          ix.Kind,
				"options":       nonNil(ix.Options),
			})
		}
	})
	return b
}

func typeRows(_ *Backend, t *schema.Table, kss []*schema.Keyspace) *rowBuilder {
	b := &rowBuilder{t: t}
	for _, ks := range kss {
		for _, name := range ks.TypeNames() {
			u := ks.Types[name]
			types := make([]string, len(u.FieldTypes))
			for i, ft := range u.FieldTypes {
				types[i] = schema.TypeString(ft)
			}
			b.add(map[string]any{
				"keyspace_name": ks.Name,
				"type_name":     u.Name,
				"field_names":   u.FieldNames,
				"field_types":   types,
			})
		}
	}
	return b
}
