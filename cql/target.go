package cql

// StmtKind is what a statement does, one value per statement form: the
// statement kind every layer asks (span operation names, the mirror's
// write/read/schema classes, routing's keyspace), from one switch.
type StmtKind uint8

// Statement kinds. StmtNone is a statement dohyo does not classify (a
// role or permission statement, BATCH, an unsupported one).
const (
	StmtNone StmtKind = iota
	StmtSelect
	StmtInsert
	StmtUpdate
	StmtDelete
	StmtBatch
	StmtUse
	StmtDescribe
	StmtTruncate
	StmtCreateKeyspace
	StmtAlterKeyspace
	StmtDropKeyspace
	StmtCreateTable
	StmtAlterTable
	StmtDropTable
	StmtCreateView
	StmtAlterView
	StmtDropView
	StmtCreateIndex
	StmtDropIndex
	StmtCreateType
	StmtAlterType
	StmtDropType
	StmtCreateFunction
	StmtDropFunction
	StmtCreateAggregate
	StmtDropAggregate
	StmtAuth // role and permission statements
)

var stmtKindNames = [...]string{"", "SELECT", "INSERT", "UPDATE", "DELETE", "BATCH", "USE", "DESCRIBE", "TRUNCATE",
	"CREATE KEYSPACE", "ALTER KEYSPACE", "DROP KEYSPACE", "CREATE TABLE", "ALTER TABLE", "DROP TABLE",
	"CREATE MATERIALIZED VIEW", "ALTER MATERIALIZED VIEW", "DROP MATERIALIZED VIEW", "CREATE INDEX", "DROP INDEX",
	"CREATE TYPE", "ALTER TYPE", "DROP TYPE", "CREATE FUNCTION", "DROP FUNCTION", "CREATE AGGREGATE",
	"DROP AGGREGATE", "AUTH"}

// String is the statement's operation as CQL spells it ("CREATE TABLE").
func (k StmtKind) String() string {
	if int(k) < len(stmtKindNames) {
		return stmtKindNames[k]
	}
	return ""
}

// Class groups kinds by what they do to data.
type Class uint8

// Statement classes.
const (
	ClassOther  Class = iota // BATCH (see its children), USE, roles, unsupported
	ClassRead                // SELECT, DESCRIBE
	ClassWrite               // INSERT, UPDATE, DELETE
	ClassSchema              // DDL and TRUNCATE (applied, mirrored and replayed as schema)
)

// Class is the kind's class.
func (k StmtKind) Class() Class {
	switch {
	case k == StmtSelect || k == StmtDescribe:
		return ClassRead
	case k == StmtInsert || k == StmtUpdate || k == StmtDelete:
		return ClassWrite
	case k >= StmtTruncate && k <= StmtDropAggregate:
		return ClassSchema
	}
	return ClassOther
}

// Target is what a statement is and names, as written: its kind, the
// keyspace ("" for the session's; for CREATE/ALTER/DROP KEYSPACE and USE
// the keyspace itself) and the table it addresses ("" when it addresses
// none: keyspace, type, function and index drops).
type Target struct {
	Kind     StmtKind
	Keyspace string
	Table    string
}

// Target returns the parsed statement's target (TargetOf).
func (p *Parsed) Target() Target { return TargetOf(p.Stmt) }

// TargetOf returns a statement's target: the one switch over statement
// types that the layers above share.
func TargetOf(stmt Statement) Target {
	switch s := stmt.(type) {
	case *Select:
		return Target{StmtSelect, s.Keyspace, s.Table}
	case *Insert:
		return Target{StmtInsert, s.Keyspace, s.Table}
	case *Update:
		return Target{StmtUpdate, s.Keyspace, s.Table}
	case *Delete:
		return Target{StmtDelete, s.Keyspace, s.Table}
	case *Batch:
		return Target{Kind: StmtBatch}
	case *Use:
		return Target{Kind: StmtUse, Keyspace: s.Keyspace}
	case *Describe:
		// DESCRIBE reads the schema: the keyspace whose tables hold it
		// (dohyo's virtual system keyspaces answer it).
		return Target{Kind: StmtDescribe, Keyspace: "system_schema"}
	case *Truncate:
		return Target{StmtTruncate, s.Keyspace, s.Name}
	case *CreateKeyspace:
		return Target{Kind: StmtCreateKeyspace, Keyspace: s.Name}
	case *AlterKeyspace:
		return Target{Kind: StmtAlterKeyspace, Keyspace: s.Name}
	case *DropKeyspace:
		return Target{Kind: StmtDropKeyspace, Keyspace: s.Name}
	case *CreateTable:
		return Target{StmtCreateTable, s.Keyspace, s.Name}
	case *AlterTable:
		return Target{StmtAlterTable, s.Keyspace, s.Name}
	case *DropTable:
		return Target{StmtDropTable, s.Keyspace, s.Name}
	case *CreateView:
		return Target{StmtCreateView, s.Keyspace, s.Name}
	case *AlterView:
		return Target{StmtAlterView, s.Keyspace, s.Name}
	case *DropView:
		return Target{StmtDropView, s.Keyspace, s.Name}
	case *CreateIndex:
		return Target{StmtCreateIndex, s.Keyspace, s.Table}
	case *DropIndex:
		return Target{Kind: StmtDropIndex, Keyspace: s.Keyspace}
	case *CreateType:
		return Target{Kind: StmtCreateType, Keyspace: s.Keyspace}
	case *AlterUserType:
		return Target{Kind: StmtAlterType, Keyspace: s.Keyspace}
	case *DropType:
		return Target{Kind: StmtDropType, Keyspace: s.Keyspace}
	case *CreateFunction:
		return Target{Kind: StmtCreateFunction, Keyspace: s.Keyspace}
	case *DropFunction:
		return Target{Kind: StmtDropFunction, Keyspace: s.Keyspace}
	case *CreateAggregate:
		return Target{Kind: StmtCreateAggregate, Keyspace: s.Keyspace}
	case *DropAggregate:
		return Target{Kind: StmtDropAggregate, Keyspace: s.Keyspace}
	}
	if IsAuthStatement(stmt) {
		return Target{Kind: StmtAuth}
	}
	return Target{}
}

// KeyspaceOf returns the keyspace stmt names: the keyspace itself for
// CREATE/ALTER/DROP KEYSPACE and USE, else the qualifier of the table,
// view, index, type, function or aggregate it addresses ("" when it has
// none, i.e. the session's keyspace). ok is false for statements that
// address no keyspace of their own: BATCH (its children do), roles,
// permissions, and statements the parser does not support.
func KeyspaceOf(stmt Statement) (ks string, ok bool) {
	t := TargetOf(stmt)
	switch t.Kind {
	case StmtNone, StmtBatch, StmtAuth:
		return "", false
	}
	return t.Keyspace, true
}
