package schema

import (
	"sort"
	"strings"

	"github.com/dohyo/dohyo/cql"
)

// Reindex sorts t.Columns into canonical order and rebuilds PartitionKey and
// Clustering from each column's Kind and Position. Code that builds a Table
// by hand (schema discovery, tests) calls it before publishing the table.
//
// The canonical order is Cassandra's SELECT * order: partition key columns by
// position, clustering columns by position, static columns by name, then
// regular columns by name.
func (t *Table) Reindex() {
	rank := func(c *Column) int {
		switch c.Kind {
		case PartitionKey:
			return 0
		case Clustering:
			return 1
		case Static:
			return 2
		}
		return 3
	}
	sort.SliceStable(t.Columns, func(i, j int) bool {
		a, b := t.Columns[i], t.Columns[j]
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra < rb
		}
		if a.Kind == PartitionKey || a.Kind == Clustering {
			return a.Position < b.Position
		}
		return a.Name < b.Name
	})
	t.PartitionKey, t.Clustering = nil, nil
	for _, c := range t.Columns {
		switch c.Kind {
		case PartitionKey:
			t.PartitionKey = append(t.PartitionKey, c)
		case Clustering:
			t.Clustering = append(t.Clustering, c)
		}
	}
}

// PartitionKeyTypes returns the partition key column types in order.
func (t *Table) PartitionKeyTypes() []*cql.Type { return columnTypes(t.PartitionKey) }

// ClusteringTypes returns the clustering column types in order.
func (t *Table) ClusteringTypes() []*cql.Type { return columnTypes(t.Clustering) }

func columnTypes(cols []*Column) []*cql.Type {
	out := make([]*cql.Type, len(cols))
	for i, c := range cols {
		out[i] = c.Type
	}
	return out
}

// Regular returns the regular (non-key, non-static) columns by name.
func (t *Table) Regular() []*Column { return t.ofKind(Regular) }

// Static returns the static columns by name.
func (t *Table) Static() []*Column { return t.ofKind(Static) }

func (t *Table) ofKind(k ColumnKind) []*Column {
	var out []*Column
	for _, c := range t.Columns {
		if c.Kind == k {
			out = append(out, c)
		}
	}
	return out
}

// HasStatic reports whether the table has static columns.
func (t *Table) HasStatic() bool { return len(t.Static()) > 0 }

// IsCounter reports whether the table is a counter table: created with
// counter columns (it stays one when they are dropped) or, for tables built
// by hand, having any.
func (t *Table) IsCounter() bool {
	if t.Counter {
		return true
	}
	for _, c := range t.Columns {
		if c.Type != nil && c.Type.Kind == cql.KindCounter {
			return true
		}
	}
	return false
}

// DefaultTTL returns default_time_to_live in seconds (0 = none).
func (t *Table) DefaultTTL() int { return t.Params.DefaultTimeToLive }

// GCGraceSeconds returns gc_grace_seconds.
func (t *Table) GCGraceSeconds() int { return t.Params.GCGraceSeconds }

// Merge unions the keyspaces of several catalogs (one per backend). On a
// name clash the later catalog wins. The version is a hash of the inputs'
// versions, so it changes exactly when one of them does. Nil inputs are
// skipped; the result shares keyspaces with the inputs.
func Merge(cats ...*Catalog) *Catalog {
	out := New()
	var versions []string
	for _, c := range cats {
		if c == nil {
			continue
		}
		if out.opts == nil {
			out.opts = c.opts
		}
		versions = append(versions, c.Version)
		for name, ks := range c.Keyspaces {
			out.Keyspaces[name] = ks
		}
	}
	out.Version = hashUUID([]byte(strings.Join(versions, "\n")))
	return out
}
