package cql

// KeyspaceOf returns the keyspace stmt names: the keyspace itself for
// CREATE/ALTER/DROP KEYSPACE and USE, else the qualifier of the table,
// view, index, type, function or aggregate it addresses ("" when it has
// none, i.e. the session's keyspace). ok is false for statements that
// address no keyspace of their own: BATCH (its children do), roles,
// permissions, and statements the parser does not support.
func KeyspaceOf(stmt Statement) (ks string, ok bool) {
	switch s := stmt.(type) {
	case *CreateKeyspace:
		return s.Name, true
	case *AlterKeyspace:
		return s.Name, true
	case *DropKeyspace:
		return s.Name, true
	case *Use:
		return s.Keyspace, true
	case *Describe:
		// DESCRIBE reads the schema: the keyspace whose tables hold it
		// (dohyo's virtual system keyspaces answer it).
		return "system_schema", true
	case *Select:
		return s.Keyspace, true
	case *Insert:
		return s.Keyspace, true
	case *Update:
		return s.Keyspace, true
	case *Delete:
		return s.Keyspace, true
	case *Truncate:
		return s.Keyspace, true
	case *CreateTable:
		return s.Keyspace, true
	case *AlterTable:
		return s.Keyspace, true
	case *DropTable:
		return s.Keyspace, true
	case *CreateView:
		return s.Keyspace, true
	case *AlterView:
		return s.Keyspace, true
	case *DropView:
		return s.Keyspace, true
	case *CreateIndex:
		return s.Keyspace, true
	case *DropIndex:
		return s.Keyspace, true
	case *CreateType:
		return s.Keyspace, true
	case *AlterUserType:
		return s.Keyspace, true
	case *DropType:
		return s.Keyspace, true
	case *CreateFunction:
		return s.Keyspace, true
	case *DropFunction:
		return s.Keyspace, true
	case *CreateAggregate:
		return s.Keyspace, true
	case *DropAggregate:
		return s.Keyspace, true
	}
	return "", false
}
