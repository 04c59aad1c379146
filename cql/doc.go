// Package cql is dohyo's CQL front end: a hand-written lexer and
// recursive-descent parser producing a typed AST, the CQL type system, literal
// and value codecs (CQL-serialized bytes), and statement fingerprints used by
// capture and reports. It imports only the standard library.
package cql
