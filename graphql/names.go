package graphql

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dohyo/dohyo/schema"
)

// CQL names become GraphQL names as in Stargate v2's CQL-first API: names
// are kept as they are when they are valid GraphQL; any other character
// (and a leading digit or "__") is hex-escaped as x<hex>_ ; an 'x' that
// would read as the start of an escape is escaped itself. Table names that
// clash with the generated types (Query, Mutation, scalars...) get fixed
// replacements, and table names with a reserved prefix or suffix (Entry...,
// ...Input, ...Result...) are escaped on that part.

// identKind is what a name designates; the rules differ slightly.
type identKind int

const (
	identTable identKind = iota
	identUDT
	identColumn
)

// reservedTableNames are table names that would clash with generated types.
var reservedTableNames = map[string]string{
	"Mutation":            "Mutatiox6e_",
	"MutationConsistency": "MutationConsistencx79_",
	"MutationOptions":     "MutationOptionx73_",
	"Query":               "Querx79_",
	"QueryConsistency":    "QueryConsistencx79_",
	"QueryOptions":        "QueryOptionx73_",
	"SerialConsistency":   "SerialConsistencx79_",
	"Boolean":             "Booleax6e_",
	"Float":               "Floax74_",
	"Int":                 "Inx74_",
	"String":              "Strinx67_",
	"Uuid":                "Uuix64_",
	"TimeUuid":            "TimeUuix64_",
	"Inet":                "Inex74_",
	"Date":                "Datx65_",
	"Duration":            "Duratiox6e_",
	"BigInt":              "BigInx74_",
	"Counter":             "Countex72_",
	"Ascii":               "Ascix69_",
	"Decimal":             "Decimax6c_",
	"Varint":              "Varinx74_",
	"Float32":             "Float3x32_", // Stargate keeps "Float32", which clashes with the scalar
	"Blob":                "Blox62_",
	"SmallInt":            "SmallInx74_",
	"TinyInt":             "TinyInx74_",
	"Timestamp":           "Timestamx70_",
	"Time":                "Timx65_",
	"conversionWarnings":  "conversionWarningx73_",
}

// reservedPrefixes and reservedSuffixes are checked in this order; the
// first match is escaped by changing its last character.
var (
	reservedPrefixes = [][2]string{{"Entry", "Entrx79_"}, {"Tuple", "Tuplx65_"}}
	reservedSuffixes = [][2]string{
		{"Input", "Inpux74_"}, {"Result", "Resulx74_"}, {"Order", "Ordex72_"}, {"Udt", "Udx74_"},
	}
)

// toGraphQLName converts a CQL identifier to its GraphQL name.
func toGraphQLName(cqlName string, kind identKind) string {
	if kind == identTable {
		if n, ok := reservedTableNames[cqlName]; ok {
			return n
		}
	}
	name := cqlName
	if needsHexEscape(name) {
		name = hexEscape(name)
	}
	switch kind {
	case identTable:
		name = escapePrefix(name)
		name = escapeSuffix(name)
	case identUDT:
		name = escapePrefix(name) + "Udt"
	}
	return name
}

func escapePrefix(s string) string {
	for _, p := range reservedPrefixes {
		if strings.HasPrefix(s, p[0]) {
			return p[1] + s[len(p[0]):]
		}
	}
	return s
}

func escapeSuffix(s string) string {
	for _, p := range reservedSuffixes {
		if strings.HasSuffix(s, p[0]) {
			return s[:len(s)-len(p[0])] + p[1]
		}
	}
	return s
}

func isGraphQLNameChar(r rune) bool {
	return r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_'
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

// escapeLen returns the length of the hex escape "x<hex>_" starting at
// s[i] (which must be 'x'), or -1 when there is none there.
func escapeLen(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		c := s[j]
		if c == '_' {
			if j == i+1 {
				return -1
			}
			return j - i + 1
		}
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return -1
		}
	}
	return -1
}

// mustEscape reports whether rune r at byte offset i must be hex-escaped.
// Characters outside the BMP count as one code point (Java escapes the code
// point, not its surrogates).
func mustEscape(s string, i int, r rune) bool {
	return !isGraphQLNameChar(r) || (r == 'x' && escapeLen(s, i) > 0)
}

func needsHexEscape(s string) bool {
	if s == "" {
		return false
	}
	first, _ := utf8.DecodeRuneInString(s)
	if strings.HasPrefix(s, "__") || isDigit(first) {
		return true
	}
	for i, r := range s {
		if mustEscape(s, i, r) {
			return true
		}
	}
	return false
}

func hexEscape(s string) string {
	var sb strings.Builder
	i := 0
	if strings.HasPrefix(s, "__") {
		sb.WriteString("x5f__")
		i = 2
	} else if first, n := utf8.DecodeRuneInString(s); isDigit(first) {
		writeHexEscape(&sb, first)
		i = n
	}
	for j, r := range s[i:] {
		if mustEscape(s, i+j, r) {
			writeHexEscape(&sb, r)
		} else {
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

func writeHexEscape(sb *strings.Builder, r rune) {
	sb.WriteByte('x')
	sb.WriteString(strconv.FormatInt(int64(r), 16))
	sb.WriteByte('_')
}

// toCQLName reverses toGraphQLName's hex escapes (for names typed by users).
func toCQLName(graphqlName string, kind identKind) string {
	if kind == identUDT {
		graphqlName = strings.TrimSuffix(graphqlName, "Udt")
	}
	var sb strings.Builder
	for i := 0; i < len(graphqlName); {
		if graphqlName[i] == 'x' {
			if l := escapeLen(graphqlName, i); l > 0 {
				cp, err := strconv.ParseInt(graphqlName[i+1:i+l-1], 16, 32)
				if err == nil {
					sb.WriteRune(rune(cp))
					i += l
					continue
				}
			}
		}
		sb.WriteByte(graphqlName[i])
		i++
	}
	return sb.String()
}

// nameMapping holds the GraphQL names of one keyspace's tables and columns,
// both ways, and the warnings produced while converting them.
type nameMapping struct {
	tables   map[string]string // CQL table -> GraphQL name
	columns  map[string]map[string]string
	cqlCols  map[string]map[string]string // table -> GraphQL column -> CQL column
	warnings []string
}

func newNameMapping(ks *schema.Keyspace) *nameMapping {
	m := &nameMapping{
		tables:  map[string]string{},
		columns: map[string]map[string]string{},
		cqlCols: map[string]map[string]string{},
	}
	byGraphQL := map[string]string{}
	for _, tname := range ks.TableNames() {
		gname := toGraphQLName(tname, identTable)
		if clash, ok := byGraphQL[gname]; ok {
			m.warnings = append(m.warnings, fmt.Sprintf(
				"Couldn't convert table %s because its GraphQL name %s would collide with table %s",
				tname, gname, clash))
			continue
		}
		if gname != tname {
			m.warnings = append(m.warnings, fmt.Sprintf("Table %s mapped as %s", tname, gname))
		}
		byGraphQL[gname] = tname
		m.tables[tname] = gname
		m.buildColumns(ks.Tables[tname])
	}
	return m
}

// buildColumns maps a table's columns in Stargate's order: partition key,
// clustering, regular, static.
func (m *nameMapping) buildColumns(t *schema.Table) {
	fwd, back := map[string]string{}, map[string]string{}
	for _, c := range stargateColumnOrder(t) {
		gname := toGraphQLName(c.Name, identColumn)
		if clash, ok := back[gname]; ok {
			m.warnings = append(m.warnings, fmt.Sprintf(
				"Could not convert column %s in table/UDT %s because its GraphQL name %s would collide with column %s",
				c.Name, t.Name, gname, clash))
			continue
		}
		if gname != c.Name {
			m.warnings = append(m.warnings, fmt.Sprintf("Column %s in table/UDT %s mapped as %s", c.Name, t.Name, gname))
		}
		fwd[c.Name], back[gname] = gname, c.Name
	}
	m.columns[t.Name], m.cqlCols[t.Name] = fwd, back
}

// stargateColumnOrder lists a table's columns as Stargate does: partition
// key, clustering, regular and then static columns.
func stargateColumnOrder(t *schema.Table) []*schema.Column {
	out := make([]*schema.Column, 0, len(t.Columns))
	out = append(out, t.PartitionKey...)
	out = append(out, t.Clustering...)
	out = append(out, t.Regular()...)
	out = append(out, t.Static()...)
	return out
}

// table returns the GraphQL name of a table ("" when it was skipped).
func (m *nameMapping) table(t string) string { return m.tables[t] }

// column returns the GraphQL name of a column ("" when it was skipped).
func (m *nameMapping) column(table, col string) string { return m.columns[table][col] }

// cqlColumn returns the CQL column of a GraphQL field name.
func (m *nameMapping) cqlColumn(table, field string) (string, bool) {
	c, ok := m.cqlCols[table][field]
	return c, ok
}
