package cql

// IsReserved reports whether name is a reserved CQL keyword that must be
// quoted when used as an identifier. (Stub until the lexer lands.)
func IsReserved(name string) bool { return false }
