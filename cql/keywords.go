package cql

import "strings"

// reservedWords are Cassandra's reserved keywords (ReservedKeywords in
// Cassandra 4/5): they cannot be used as unquoted identifiers.
var reservedWords = setOf(
	"add", "allow", "alter", "and", "apply", "asc", "authorize", "batch", "begin",
	"by", "columnfamily", "create", "default", "delete", "desc", "describe", "drop",
	"entries", "execute", "from", "full", "grant", "if", "in", "index", "infinity",
	"insert", "into", "is", "keyspace", "limit", "materialized", "mbean", "mbeans",
	"modify", "nan", "norecursive", "not", "null", "of", "on", "or", "order",
	"primary", "rename", "replace", "revoke", "schema", "select", "set", "table",
	"to", "token", "truncate", "unlogged", "unset", "update", "use", "using", "view",
	"where", "with",
)

// unreservedWords are the other words with a meaning somewhere in CQL. They
// may be used as identifiers; Fingerprint upper-cases them like keywords.
var unreservedWords = setOf(
	// native types
	"ascii", "bigint", "blob", "boolean", "counter", "date", "decimal", "double",
	"duration", "float", "inet", "int", "smallint", "text", "time", "timestamp",
	"timeuuid", "tinyint", "uuid", "varchar", "varint",
	// type constructors
	"frozen", "list", "map", "tuple",
	// statements and clauses
	"aggregate", "all", "as", "cast", "clustering", "compact", "contains", "count",
	"custom", "distinct", "exists", "filtering", "function", "functions", "group",
	"json", "key", "keys", "keyspaces", "like", "logged", "partition", "per",
	"permission", "permissions", "role", "roles", "static", "storage", "trigger",
	"ttl", "type", "user", "users", "values", "writetime", "maxwritetime",
)

// IsReserved reports whether name (lower-case) is a reserved CQL keyword that
// must be double-quoted to be used as an identifier. true and false are
// included: they always lex as boolean literals.
func IsReserved(name string) bool {
	return reservedWords[name] || name == "true" || name == "false"
}

// literalWord maps the words that are literals rather than identifiers.
func literalWord(lower string) (LitKind, string, bool) {
	switch lower {
	case "true", "false":
		return LitBool, lower, true
	case "null":
		return LitNull, "null", true
	case "nan":
		return LitFloat, "NaN", true
	case "infinity":
		return LitFloat, "Infinity", true
	}
	return 0, "", false
}

// literalWordFold is literalWord for a word in any case, without allocating.
func literalWordFold(word string) (LitKind, string, bool) {
	if len(word) < 3 || len(word) > 8 {
		return 0, "", false
	}
	for _, w := range [...]string{"true", "false", "null", "nan", "infinity"} {
		if strings.EqualFold(word, w) {
			return literalWord(w)
		}
	}
	return 0, "", false
}

// maxKeywordLen bounds lowerWord's stack buffer; no keyword is longer.
const maxKeywordLen = 16

// isKeyword reports whether word (any case) is a CQL keyword, reserved or
// not, without allocating.
func isKeyword(word string) bool {
	if len(word) > maxKeywordLen {
		return false
	}
	var buf [maxKeywordLen]byte
	for i := 0; i < len(word); i++ {
		buf[i] = lowerByte(word[i])
	}
	k := buf[:len(word)]
	return reservedWords[string(k)] || unreservedWords[string(k)]
}

// lowerIdent lower-cases an unquoted identifier (ASCII only by construction).
func lowerIdent(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				b[j] = lowerByte(b[j])
			}
			return string(b)
		}
	}
	return s
}

func lowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func upperByte(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
