package cql

// This file holds the AST of user-defined function and aggregate DDL.

// FuncArg is one parameter of a user-defined function.
type FuncArg struct {
	Name string
	Type *Type
}

// CreateFunction is CREATE [OR REPLACE] FUNCTION [IF NOT EXISTS] [ks.]name
// (arg type, ...) (CALLED | RETURNS NULL) ON NULL INPUT RETURNS type
// LANGUAGE lang AS body.
type CreateFunction struct {
	Keyspace, Name string
	OrReplace      bool
	IfNotExists    bool
	Args           []FuncArg
	CalledOnNull   bool
	Returns        *Type
	Language       string // lower-cased
	Body           string // the string literal's content
}

// DropFunction is DROP FUNCTION [IF EXISTS] [ks.]name [(type, ...)].
type DropFunction struct {
	Keyspace, Name string
	IfExists       bool
	HasArgs        bool // an argument type list was given (possibly empty)
	ArgTypes       []*Type
}

// CreateAggregate is CREATE [OR REPLACE] AGGREGATE [IF NOT EXISTS]
// [ks.]name (type, ...) SFUNC f STYPE t [FINALFUNC g] [INITCOND term].
type CreateAggregate struct {
	Keyspace, Name string
	OrReplace      bool
	IfNotExists    bool
	ArgTypes       []*Type
	StateFunc      string
	StateType      *Type
	FinalFunc      string // "" when absent
	InitCond       Term   // nil when absent
}

// DropAggregate is DROP AGGREGATE [IF EXISTS] [ks.]name [(type, ...)].
type DropAggregate struct {
	Keyspace, Name string
	IfExists       bool
	HasArgs        bool
	ArgTypes       []*Type
}

func (*CreateFunction) statement()  {}
func (*DropFunction) statement()    {}
func (*CreateAggregate) statement() {}
func (*DropAggregate) statement()   {}
