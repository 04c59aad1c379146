package cql

import (
	"strings"
	"unicode"
)

// IsDescribe reports whether a query text is a DESCRIBE statement (which
// dohyo parses no further: the system keyspaces answer it). It is on
// every QUERY's path, so it looks at the first word only.
func IsDescribe(q string) bool {
	q = strings.TrimLeftFunc(q, unicode.IsSpace)
	if len(q) < 4 || !strings.EqualFold(q[:4], "desc") {
		return false
	}
	end := strings.IndexFunc(q, func(r rune) bool { return unicode.IsSpace(r) || r == ';' })
	if end < 0 {
		end = len(q)
	}
	w := strings.ToLower(q[:end])
	return w == "desc" || w == "describe"
}
