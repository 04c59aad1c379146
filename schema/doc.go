// Package schema is the catalog: keyspaces, tables, columns, CQL types and
// primary keys. It applies DDL with Cassandra's validation messages, versions
// the catalog on every change, and renders tables back to CREATE statements.
package schema
