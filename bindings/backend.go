package bindings

import (
	"context"

	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

// Backend executes CQL against one storage system. Implementations are safe
// for concurrent use. Every binding asserts `var _ bindings.Backend = (*X)(nil)`.
type Backend interface {
	// Execute runs one statement (QUERY or EXECUTE of a prepared statement).
	Execute(ctx context.Context, req *Request) (*Result, error)
	// Batch runs a BATCH message (or a parsed BEGIN BATCH statement).
	Batch(ctx context.Context, req *BatchRequest) (*Result, error)
	// Close releases connections and files.
	Close() error
}

// Preparer is implemented by backends that can describe a statement's bind
// variables and result columns without running it (PREPARE).
type Preparer interface {
	Prepare(ctx context.Context, keyspace, query string) (*Prepared, error)
}

// CatalogSource is implemented by backends that own schema: it returns a
// snapshot of the keyspaces they hold. The snapshot must not be mutated.
type CatalogSource interface {
	Catalog(ctx context.Context) (*schema.Catalog, error)
}

// Pinger is implemented by backends that can report reachability (readiness).
type Pinger interface {
	Ping(ctx context.Context) error
}

// Consistency is a CQL consistency level, numbered as in the native protocol.
type Consistency uint16

// Consistency levels.
const (
	Any         Consistency = 0x0000
	One         Consistency = 0x0001
	Two         Consistency = 0x0002
	Three       Consistency = 0x0003
	Quorum      Consistency = 0x0004
	All         Consistency = 0x0005
	LocalQuorum Consistency = 0x0006
	EachQuorum  Consistency = 0x0007
	Serial      Consistency = 0x0008
	LocalSerial Consistency = 0x0009
	LocalOne    Consistency = 0x000A
)

var consistencyNames = map[Consistency]string{
	Any: "ANY", One: "ONE", Two: "TWO", Three: "THREE", Quorum: "QUORUM", All: "ALL",
	LocalQuorum: "LOCAL_QUORUM", EachQuorum: "EACH_QUORUM", Serial: "SERIAL",
	LocalSerial: "LOCAL_SERIAL", LocalOne: "LOCAL_ONE",
}

// String returns the level's CQL name.
func (c Consistency) String() string {
	if n, ok := consistencyNames[c]; ok {
		return n
	}
	return "UNKNOWN"
}

// ParseConsistency maps a CQL name (case-insensitive) to a level.
func ParseConsistency(s string) (Consistency, bool) {
	for c, n := range consistencyNames {
		if equalFold(n, s) {
			return c, true
		}
	}
	return 0, false
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'a' <= x && x <= 'z' {
			x -= 'a' - 'A'
		}
		if 'a' <= y && y <= 'z' {
			y -= 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// Value is one bound value in CQL-serialized form (native protocol encoding).
type Value struct {
	Bytes []byte // nil means null
	Unset bool   // protocol v4+ "unset": leave the target untouched
}

// Request is one statement to execute.
type Request struct {
	Keyspace string      // the session's current keyspace, "" if none
	Query    string      // CQL text
	Parsed   *cql.Parsed // optional: set when the caller already parsed Query
	Values   []Value     // bound values by position
	Names    []string    // when non-nil, Values[i] binds the marker named Names[i]
	// Handle is the Prepared.Handle of the prepared statement this request
	// executes (EXECUTE), nil for a QUERY. See Prepared.Handle.
	Handle any

	Consistency       Consistency
	SerialConsistency Consistency
	PageSize          int32  // <= 0: no paging
	PagingState       []byte // opaque, from a previous Result
	Timestamp         int64  // client-supplied write time in µs
	HasTimestamp      bool
	// SkipMetadata asks for rows without column metadata (the caller has it).
	SkipMetadata bool
}

// BatchEntry is one child statement of a batch.
type BatchEntry struct {
	Query  string
	Parsed *cql.Parsed
	// Handle is the Prepared.Handle of a prepared child, nil otherwise.
	Handle any
	Values []Value
	Names  []string
}

// BatchRequest is a BATCH.
type BatchRequest struct {
	Keyspace          string
	Type              cql.BatchType
	Entries           []BatchEntry
	Consistency       Consistency
	SerialConsistency Consistency
	Timestamp         int64
	HasTimestamp      bool
}

// ColumnSpec describes one bind variable or result column.
type ColumnSpec struct {
	Keyspace, Table, Name string
	Type                  *cql.Type
}

// Prepared describes a prepared statement.
type Prepared struct {
	Bind      []ColumnSpec // one per bind marker, in marker order
	PKIndexes []uint16     // bind positions of the partition key components
	Result    []ColumnSpec // result columns (SELECT only; nil otherwise)
	Keyspace  string       // keyspace the statement resolved to
	Table     string
	// Handle is the preparing backend's own form of the statement (its
	// plan), opaque to everyone else, or nil. The caller keeps it with the
	// prepared statement and passes it back with every execution
	// (Request.Handle, BatchEntry.Handle). A backend uses a handle only
	// when it is its own and still valid for the request (else it plans
	// from the text, as for a QUERY); backends without handles ignore it.
	Handle any
}

// ResultKind is the kind of a RESULT message.
type ResultKind int

// Result kinds.
const (
	ResultVoid ResultKind = iota
	ResultRows
	ResultSetKeyspace
	ResultSchemaChange
)

// ChangeType and ChangeTarget describe a schema change as in the protocol.
type (
	ChangeType   string
	ChangeTarget string
)

// Schema change types and targets, spelled as in the native protocol.
const (
	Created ChangeType = "CREATED"
	Updated ChangeType = "UPDATED"
	Dropped ChangeType = "DROPPED"

	TargetKeyspace ChangeTarget = "KEYSPACE"
	TargetTable    ChangeTarget = "TABLE"
	TargetType     ChangeTarget = "TYPE"
	TargetFunction ChangeTarget = "FUNCTION"
	TargetAggr     ChangeTarget = "AGGREGATE"
)

// SchemaChange is the outcome of a DDL statement.
type SchemaChange struct {
	Type     ChangeType
	Target   ChangeTarget
	Keyspace string
	Object   string   // table or type name; "" for keyspaces
	Args     []string // FUNCTION and AGGREGATE targets: argument types (CQL text)
}

// Result is the outcome of a statement.
type Result struct {
	Kind        ResultKind
	Columns     []ColumnSpec // ResultRows; for LWT the first is "[applied]"
	Rows        [][][]byte   // ResultRows: CQL-serialized cells, nil = null
	PagingState []byte       // non-nil when more pages exist
	Keyspace    string       // ResultSetKeyspace
	Change      *SchemaChange
	// Events are the SCHEMA_CHANGE events the statement pushes when it
	// changed more than the object Change names (Change among them): the
	// views that follow an altered base table, the tables of a dropped
	// keyspace. nil: Change alone.
	Events   []*SchemaChange
	Warnings []string
}
