package cql

// This file is the typed AST produced by Parse. Identifiers are stored
// normalised: unquoted identifiers lower-cased, quoted ones exactly as written
// (without quotes). A Keyspace of "" means "the session's current keyspace".

// Statement is any parsed CQL statement.
type Statement interface{ statement() }

// Term is a value position in a statement: a literal, a bind marker, a
// collection/tuple literal, a function call or a typed cast.
type Term interface{ term() }

// Parsed is the result of parsing one statement.
type Parsed struct {
	Stmt Statement
	// Markers lists every bind marker in order of appearance (for BATCH, across
	// all child statements). Marker.Index is its position in this slice.
	Markers []*BindMarker
	// Text is the statement's source text (without a trailing semicolon).
	Text string
}

// ---- terms ----

// LitKind classifies a literal.
type LitKind int

// Literal kinds. Integer and Float keep their source text (sign included).
const (
	LitString   LitKind = iota // 'text' or $$text$$; Text is the unescaped value
	LitInteger                 // -12
	LitFloat                   // 1.5e3 (also NaN, Infinity, -Infinity)
	LitBool                    // true / false (Text is "true"/"false")
	LitUUID                    // 123e4567-e89b-12d3-a456-426614174000
	LitBlob                    // 0xCAFE; Text keeps the "0x" prefix
	LitDuration                // 1h30m, P1DT2H, ...
	LitNull                    // null
)

// Literal is a constant written in the statement.
type Literal struct {
	Kind LitKind
	Text string
}

// BindMarker is `?` (Name == "") or `:name`.
type BindMarker struct {
	Index int
	Name  string
}

// CollectionKind tells list, set and map literals apart.
type CollectionKind int

// Collection literal kinds. An empty `{}` parses as CollMap; the executor
// treats it as an empty set or map depending on the column type.
const (
	CollList CollectionKind = iota
	CollSet
	CollMap
)

// CollectionLit is [a, b], {a, b} or {k: v, ...}. For maps Keys and Values are
// parallel; for lists and sets Values holds the elements.
type CollectionLit struct {
	Kind   CollectionKind
	Keys   []Term
	Values []Term
}

// TupleLit is (a, b, ...). Also used for multi-column relation values.
type TupleLit struct{ Elems []Term }

// UDTLit is {field: value, ...} when the keys are identifiers. The parser
// cannot tell it from a map literal with unquoted keys, so it produces UDTLit
// only when every key is an identifier; the executor converts as needed.
type UDTLit struct {
	Fields []string
	Values []Term
}

// FuncCall is a function call in a term position: now(), uuid(),
// toTimestamp(now()), currentTimestamp(), ...
type FuncCall struct {
	Name string // lower-cased
	Args []Term
}

// Cast is (type) term, e.g. (int)?.
type Cast struct {
	Type *Type
	Term Term
}

func (*Literal) term()       {}
func (*BindMarker) term()    {}
func (*CollectionLit) term() {}
func (*TupleLit) term()      {}
func (*UDTLit) term()        {}
func (*FuncCall) term()      {}
func (*Cast) term()          {}

// ---- DDL ----

// Option is one `WITH name = value` table or keyspace option. Value is a
// Literal, a map CollectionLit, etc., kept as data.
type Option struct {
	Name  string
	Value Term
}

// CreateKeyspace is CREATE KEYSPACE.
type CreateKeyspace struct {
	Name          string
	IfNotExists   bool
	Replication   map[string]string // includes "class"
	DurableWrites *bool
	Options       []Option // all WITH options, replication included, as written
}

// AlterKeyspace is ALTER KEYSPACE.
type AlterKeyspace struct {
	Name          string
	IfExists      bool
	Replication   map[string]string // nil when not altered
	DurableWrites *bool
	Options       []Option
}

// DropKeyspace is DROP KEYSPACE.
type DropKeyspace struct {
	Name     string
	IfExists bool
}

// ColumnDef is one column in CREATE TABLE or ALTER TABLE ADD.
type ColumnDef struct {
	Name   string
	Type   *Type
	Static bool
}

// ClusteringOrder is one entry of WITH CLUSTERING ORDER BY (...).
type ClusteringOrder struct {
	Column string
	Desc   bool
}

// CreateTable is CREATE TABLE.
type CreateTable struct {
	Keyspace, Name  string
	IfNotExists     bool
	Columns         []ColumnDef // in declaration order
	PartitionKey    []string
	Clustering      []string
	ClusteringOrder []ClusteringOrder
	CompactStorage  bool
	Options         []Option // every other WITH option, as data
	// PrimaryKeys counts PRIMARY KEY declarations; schema validation
	// requires exactly one (Cassandra reports 0 or 2+ as Invalid).
	PrimaryKeys int
}

// AlterTableOp is the kind of ALTER TABLE.
type AlterTableOp int

// ALTER TABLE operations.
const (
	AlterAdd AlterTableOp = iota
	AlterDrop
	AlterRename
	AlterWith
	AlterType // ALTER col TYPE t (rejected by Cassandra 4+, parsed for a clear error)
)

// AlterTable is ALTER TABLE.
type AlterTable struct {
	Keyspace, Name string
	IfExists       bool
	Op             AlterTableOp
	IfColumnExists bool              // ADD IF NOT EXISTS / DROP IF EXISTS
	Add            []ColumnDef       // AlterAdd
	Drop           []string          // AlterDrop
	Rename         map[string]string // AlterRename: old -> new
	RenameOrder    []string          // AlterRename: old names in source order
	Options        []Option          // AlterWith
	Column         string            // AlterType
	NewType        *Type             // AlterType
}

// DropTable is DROP TABLE.
type DropTable struct {
	Keyspace, Name string
	IfExists       bool
}

// Truncate is TRUNCATE [TABLE].
type Truncate struct{ Keyspace, Name string }

// Use is USE keyspace.
type Use struct{ Keyspace string }

// Unsupported is a statement the parser recognised but dohyo does not
// execute (CREATE INDEX, CREATE TYPE, CREATE FUNCTION, GRANT, ...). What names
// it, e.g. "CREATE INDEX". Executors answer it with a clear Invalid error.
type Unsupported struct{ What string }

// ---- DML ----

// Using holds USING TTL / TIMESTAMP; nil terms are absent.
type Using struct {
	TTL       Term
	Timestamp Term
}

// Insert is INSERT INTO ... VALUES or INSERT INTO ... JSON.
type Insert struct {
	Keyspace, Table string
	Columns         []string
	Values          []Term
	JSON            Term // INSERT ... JSON '...' (Columns/Values empty)
	DefaultUnset    bool // JSON ... DEFAULT UNSET
	IfNotExists     bool
	Using           Using
}

// AssignOp is the form of one SET assignment.
type AssignOp int

// Assignment forms.
const (
	AssignSet        AssignOp = iota // c = v
	AssignAdd                        // c = c + v (also counters: c = c + 1)
	AssignPrepend                    // c = v + c (lists)
	AssignRemove                     // c = c - v
	AssignElement                    // c[k] = v
	AssignAddTo                      // c += v
	AssignRemoveFrom                 // c -= v
	AssignField                      // c.field = v (UDT)
)

// Assignment is one item of UPDATE ... SET.
type Assignment struct {
	Column string
	Op     AssignOp
	Key    Term   // AssignElement: the map key or list index
	Field  string // AssignField
	Value  Term
}

// RelOp is a comparison operator in WHERE or IF.
type RelOp int

// Relation operators.
const (
	OpEq RelOp = iota
	OpLt
	OpLte
	OpGt
	OpGte
	OpNeq
	OpIn
	OpContains
	OpContainsKey
	OpLike
	OpIsNotNull
)

// String returns the operator's CQL spelling.
func (o RelOp) String() string {
	return [...]string{"=", "<", "<=", ">", ">=", "!=", "IN", "CONTAINS", "CONTAINS KEY", "LIKE", "IS NOT NULL"}[o]
}

// Relation is one WHERE restriction. Columns has one name, or several for a
// multi-column relation `(c1, c2) > (1, 2)`. Token marks `token(a, b) > ?`.
// For IN, In holds the listed values, or a single Term (a bind marker for the
// whole list) in Value with In nil. Key is set for `m[key] = v`.
type Relation struct {
	Columns []string
	Token   bool
	Op      RelOp
	Value   Term
	In      []Term
	Key     Term
}

// Condition is one IF condition: `col op value`, `col[key] op value`,
// or `col IN (...)`.
type Condition struct {
	Column string
	Key    Term
	Field  string
	Op     RelOp
	Value  Term
	In     []Term
}

// Update is UPDATE.
type Update struct {
	Keyspace, Table string
	Using           Using
	Set             []Assignment
	Where           []Relation
	IfExists        bool
	If              []Condition
}

// DeleteTarget is one column (or element `m[k]`, or UDT field) named between
// DELETE and FROM.
type DeleteTarget struct {
	Column string
	Key    Term
	Field  string
}

// Delete is DELETE.
type Delete struct {
	Keyspace, Table string
	Targets         []DeleteTarget // empty: delete whole rows
	Using           Using          // only TIMESTAMP is legal
	Where           []Relation
	IfExists        bool
	If              []Condition
}

// SelectorKind tells the forms of a selected expression apart.
type SelectorKind int

// Selector kinds.
const (
	SelColumn    SelectorKind = iota // col
	SelCountStar                     // COUNT(*) or COUNT(1)
	SelWritetime                     // WRITETIME(col)
	SelTTL                           // TTL(col)
	SelCall                          // fn(args...) — other functions
	SelTerm                          // a constant term
	SelCast                          // CAST(x AS type)
	SelElement                       // col[key] or col.field (Key or Field set)
	SelOp                            // Args[0] Op Args[1]: + - * / %
	SelNeg                           // -Args[0]
)

// Selector is one expression in the SELECT clause.
type Selector struct {
	Kind   SelectorKind
	Column string      // SelColumn, SelWritetime, SelTTL
	Func   string      // SelCall (lower-cased)
	Args   []*Selector // SelCall, SelCast (one arg)
	Term   Term        // SelTerm
	Type   *Type       // SelCast
	Key    Term        // SelElement: the map key / set element
	Field  string      // SelElement: the UDT field
	Alias  string      // AS alias, "" when absent
	Op     byte        // SelOp: '+', '-', '*', '/' or '%'
	// Paren reports a selector written in parentheses, which Cassandra
	// keeps in the result column's name ("(a + 1) * 2").
	Paren bool
}

// Ordering is one ORDER BY item.
type Ordering struct {
	Column string
	Desc   bool
	// ANN is the query vector of ORDER BY column ANN OF term (nil for an
	// ordinary ordering).
	ANN Term
}

// Select is SELECT.
type Select struct {
	Keyspace, Table   string
	JSON              bool
	Distinct          bool
	Star              bool
	Selectors         []*Selector // empty when Star
	Where             []Relation
	GroupBy           []string
	OrderBy           []Ordering
	PerPartitionLimit Term
	Limit             Term
	AllowFiltering    bool
}

// BatchType is LOGGED (default), UNLOGGED or COUNTER.
type BatchType int

// Batch types, numbered as in the native protocol.
const (
	BatchLogged BatchType = iota
	BatchUnlogged
	BatchCounter
)

// Batch is BEGIN ... BATCH ... APPLY BATCH. Statements are *Insert, *Update or
// *Delete.
type Batch struct {
	Type       BatchType
	Using      Using
	Statements []Statement
}

func (*CreateKeyspace) statement() {}
func (*AlterKeyspace) statement()  {}
func (*DropKeyspace) statement()   {}
func (*CreateTable) statement()    {}
func (*AlterTable) statement()     {}
func (*DropTable) statement()      {}
func (*Truncate) statement()       {}
func (*Use) statement()            {}
func (*Unsupported) statement()    {}
func (*Insert) statement()         {}
func (*Update) statement()         {}
func (*Delete) statement()         {}
func (*Select) statement()         {}
func (*Batch) statement()          {}
