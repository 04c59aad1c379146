package schema

import (
	"sort"

	"github.com/dohyo/dohyo/cql"
)

// A Catalog is an immutable snapshot of keyspaces and tables. DDL never
// mutates a Catalog: Apply returns a new one with a new Version, so readers
// can hold a snapshot without locks (owners swap it with atomic.Pointer).
type Catalog struct {
	// Version changes on every applied DDL (a time-based UUID string, as
	// Cassandra's schema version).
	Version   string
	Keyspaces map[string]*Keyspace

	opts *Options // how Apply validates and versions; nil means defaults
}

// Keyspace is one keyspace.
type Keyspace struct {
	Name          string
	Replication   map[string]string // "class" plus its options, full class name
	DurableWrites bool
	Tables        map[string]*Table
	Types         map[string]*UserType // user-defined types by name
	Functions     []*Function          // user-defined functions, by name then argument types
	Aggregates    []*Aggregate         // user-defined aggregates, likewise
}

// ColumnKind is a column's role, spelled as in system_schema.columns.
type ColumnKind int

// Column kinds.
const (
	PartitionKey ColumnKind = iota
	Clustering
	Regular
	Static
)

// String returns "partition_key", "clustering", "regular" or "static".
func (k ColumnKind) String() string {
	return [...]string{"partition_key", "clustering", "regular", "static"}[k]
}

// Column is one table column.
type Column struct {
	Name     string
	Type     *cql.Type
	Kind     ColumnKind
	Position int  // index within the partition key or clustering key; -1 otherwise
	Desc     bool // clustering order DESC
}

// Table is one table.
type Table struct {
	Keyspace string
	Name     string
	ID       string // UUID, new for every CREATE
	// Columns in Cassandra's canonical order: partition key columns by
	// position, clustering columns by position, then static and regular
	// columns sorted by name (statics first: SELECT * order). Reindex
	// restores it for hand-built tables.
	Columns      []*Column
	PartitionKey []*Column
	Clustering   []*Column
	// Options holds WITH options as CQL source text of their values
	// (e.g. "comment" -> "'hi'", "compaction" -> "{'class': '...'}").
	// Apply fills it with every effective option, defaults included.
	Options map[string]string
	// Params holds the same options typed (defaults plus overrides).
	Params TableParams
	// Counter is set when the table was created with counter columns; as in
	// Cassandra it stays set after those columns are dropped.
	Counter bool
	// Dropped lists dropped columns by name: data written before DroppedAt
	// must be ignored if a column of that name is added again.
	Dropped map[string]*DroppedColumn
	// Indexes are the table's secondary indexes, sorted by name.
	Indexes []*Index
	// View is set when the table is a materialized view (view.go).
	View *View
}

// DroppedColumn records an ALTER TABLE DROP.
type DroppedColumn struct {
	Name      string
	Type      *cql.Type
	Kind      ColumnKind // Regular or Static
	DroppedAt int64      // microseconds since the Unix epoch
}

// Column returns the named column or nil.
func (t *Table) Column(name string) *Column {
	for _, c := range t.Columns {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Keyspace returns the named keyspace or nil.
func (c *Catalog) Keyspace(name string) *Keyspace {
	if c == nil {
		return nil
	}
	return c.Keyspaces[name]
}

// Table returns the named table or nil.
func (c *Catalog) Table(keyspace, name string) *Table {
	ks := c.Keyspace(keyspace)
	if ks == nil {
		return nil
	}
	return ks.Tables[name]
}

// KeyspaceNames returns keyspace names sorted.
func (c *Catalog) KeyspaceNames() []string {
	if c == nil {
		return nil
	}
	names := make([]string, 0, len(c.Keyspaces))
	for n := range c.Keyspaces {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// TableNames returns the keyspace's table names sorted.
func (k *Keyspace) TableNames() []string {
	names := make([]string, 0, len(k.Tables))
	for n := range k.Tables {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
