// Package schema is the catalog: keyspaces, tables, columns, CQL types and
// primary keys. It applies DDL with Cassandra's validation messages, versions
// the catalog on every change, and renders tables back to CREATE statements.
//
// A Catalog is immutable. Catalog.Apply validates one CREATE/ALTER/DROP
// KEYSPACE or TABLE statement as Cassandra 5.0 does and returns a new
// catalog that shares every untouched keyspace and table with the old one,
// plus the Change to announce (nil when nothing changed). Rejections are
// *Error values carrying Cassandra's message and an error class.
//
// Materialized views (view.go) are tables with Table.View set: CREATE,
// ALTER and DROP MATERIALIZED VIEW are validated as Cassandra's
// CreateViewStatement does, and table statements on views or on the base
// tables of views are refused or propagated as Cassandra does.
//
// Catalogs persist as versioned JSON (MarshalJSON, UnmarshalCatalog) and
// are combined across backends with Merge.
package schema
