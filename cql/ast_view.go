package cql

// Materialized view statements (Cassandra 5.0's CREATE/ALTER/DROP
// MATERIALIZED VIEW).

// CreateView is CREATE MATERIALIZED VIEW ... AS SELECT ... FROM base WHERE
// ... PRIMARY KEY (...) [WITH ...].
type CreateView struct {
	Keyspace, Name       string
	IfNotExists          bool
	BaseKeyspace, Base   string
	Star                 bool     // SELECT *
	Columns              []string // selected columns (nil with Star)
	Aliased              bool     // a selector had an alias
	NonColumn            bool     // a selector was not a plain column
	Where                []Relation
	WhereText            []string // each relation as Cassandra prints it in where_clause
	PartitionKey         []string
	Clustering           []string
	ClusteringOrder      []ClusteringOrder
	CompactStorage       bool
	Options              []Option
	PrimaryKeyDeclared   bool
	HasMarkers, HasToken bool
}

// AlterView is ALTER MATERIALIZED VIEW [IF EXISTS] v WITH options.
type AlterView struct {
	Keyspace, Name string
	IfExists       bool
	Options        []Option
}

// DropView is DROP MATERIALIZED VIEW [IF EXISTS] v.
type DropView struct {
	Keyspace, Name string
	IfExists       bool
}

func (*CreateView) statement() {}
func (*AlterView) statement()  {}
func (*DropView) statement()   {}
