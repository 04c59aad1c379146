package cql

// This file holds the AST of user-defined type DDL (CREATE/ALTER/DROP TYPE).

// FieldDef is one field of a user-defined type.
type FieldDef struct {
	Name string
	Type *Type
}

// CreateType is CREATE TYPE [IF NOT EXISTS] [ks.]name (field type, ...).
type CreateType struct {
	Keyspace, Name string
	IfNotExists    bool
	Fields         []FieldDef
}

// AlterTypeOp is the kind of an ALTER TYPE.
type AlterTypeOp int

// ALTER TYPE operations.
const (
	AlterTypeAdd    AlterTypeOp = iota // ADD [IF NOT EXISTS] field type
	AlterTypeRename                    // RENAME [IF EXISTS] f TO g [AND ...]
	AlterTypeAlter                     // ALTER field TYPE t (refused by Cassandra 5.0)
)

// AlterUserType is ALTER TYPE [IF EXISTS] [ks.]name ...
type AlterUserType struct {
	Keyspace, Name string
	IfExists       bool
	Op             AlterTypeOp
	IfFieldExists  bool     // ADD IF NOT EXISTS / RENAME IF EXISTS
	Add            FieldDef // AlterTypeAdd
	RenameFrom     []string // AlterTypeRename, in statement order
	RenameTo       []string
}

// DropType is DROP TYPE [IF EXISTS] [ks.]name.
type DropType struct {
	Keyspace, Name string
	IfExists       bool
}

func (*CreateType) statement()    {}
func (*AlterUserType) statement() {}
func (*DropType) statement()      {}
