package cql

// DescribeKind is what a DESCRIBE statement asks for.
type DescribeKind uint8

// The forms of DESCRIBE (Cassandra's DescribeStatement).
const (
	DescribeCluster    DescribeKind = iota + 1 // DESCRIBE CLUSTER
	DescribeKeyspaces                          // DESCRIBE KEYSPACES
	DescribeTables                             // DESCRIBE TABLES (COLUMNFAMILIES)
	DescribeTypes                              // DESCRIBE TYPES
	DescribeFunctions                          // DESCRIBE FUNCTIONS
	DescribeAggregates                         // DESCRIBE AGGREGATES
	DescribeSchema                             // DESCRIBE SCHEMA
	DescribeFullSchema                         // DESCRIBE FULL SCHEMA
	DescribeKeyspace                           // DESCRIBE [ONLY] KEYSPACE [ks]
	DescribeTable                              // DESCRIBE TABLE [ks.]t
	DescribeType                               // DESCRIBE TYPE [ks.]t
	DescribeFunction                           // DESCRIBE FUNCTION [ks.]f
	DescribeAggregate                          // DESCRIBE AGGREGATE [ks.]a
	DescribeIndex                              // DESCRIBE INDEX [ks.]i
	DescribeView                               // DESCRIBE MATERIALIZED VIEW [ks.]v
	DescribeName                               // DESCRIBE name | ks.name: a keyspace, else a table
)

// Describe is a DESCRIBE (DESC) statement. dohyo answers it from its
// catalog (proxy/systemks), through the request pipeline like any
// statement that reads the schema tables.
type Describe struct {
	Kind DescribeKind
	// Keyspace and Name name the element; Keyspace "" means the session's
	// (for DescribeKeyspace, Name is "" and Keyspace the keyspace named,
	// "" for the session's).
	Keyspace, Name string
	// Only is DESCRIBE ONLY KEYSPACE (the keyspace without its elements).
	Only bool
	// WithInternals is WITH INTERNALS (accepted; dohyo keeps no internals).
	WithInternals bool
}

func (*Describe) statement() {}

// listings are the one-word DESCRIBE forms.
var describeListings = map[string]DescribeKind{
	"cluster": DescribeCluster, "keyspaces": DescribeKeyspaces, "tables": DescribeTables,
	"columnfamilies": DescribeTables, "types": DescribeTypes, "functions": DescribeFunctions,
	"aggregates": DescribeAggregates, "schema": DescribeSchema,
}

// describeElements are the DESCRIBE forms that name one element.
var describeElements = map[string]DescribeKind{
	"table": DescribeTable, "columnfamily": DescribeTable, "type": DescribeType,
	"function": DescribeFunction, "aggregate": DescribeAggregate, "index": DescribeIndex,
}

// describe parses DESCRIBE / DESC (the current token).
func (p *parser) describe() Statement {
	p.next()
	d := &Describe{}
	t := p.tok()
	switch {
	case t.kind == tIdent && p.isDescribeListing(t):
		d.Kind = describeListings[lowerIdent(p.text(t))]
		p.next()
	case p.isKw("full"):
		p.next()
		p.expectKw("schema")
		d.Kind = DescribeFullSchema
	case p.isKw("only") || p.isKw("keyspace"):
		d.Only = p.acceptKw("only")
		p.expectKw("keyspace")
		d.Kind = DescribeKeyspace
		if p.isIdentTok(p.tok()) && !p.isKw("with") {
			d.Keyspace = p.ident()
		}
	case p.isKw("materialized"):
		p.next()
		p.expectKw("view")
		d.Kind = DescribeView
		d.Keyspace, d.Name = p.qualifiedName()
	case t.kind == tIdent && describeElements[lowerIdent(p.text(t))] != 0 && p.isIdentTok(p.peek(1)):
		d.Kind = describeElements[lowerIdent(p.text(t))]
		p.next()
		d.Keyspace, d.Name = p.qualifiedName()
	default:
		d.Kind = DescribeName
		d.Keyspace, d.Name = p.qualifiedName()
	}
	if p.acceptKw("with") {
		p.expectKw("internals")
		d.WithInternals = true
	}
	return d
}

// isDescribeListing tells whether t is a one-word form: unquoted, and the
// statement ends after it (DESCRIBE "tables" and DESCRIBE tables.t name
// tables).
func (p *parser) isDescribeListing(t *token) bool {
	if describeListings[lowerIdent(p.text(t))] == 0 {
		return false
	}
	next := p.peek(1)
	return next.kind == tEOF || next.kind == tSemi || p.isWord(next, "with")
}
