package hbase

import (
	"strings"
	"sync"

	"github.com/dohyo/dohyo/engine/kv"
)

// HBase naming. Namespaces allow [A-Za-z0-9_]; table qualifiers also allow
// '-' and '.' (not first). CQL keyspace and table names are \w+ in practice,
// but quoted names may hold anything, so every name is mapped.
//
// The mapping need not be injective: a table's HBase name ends with its
// TableSpec.ID, which is unique per table incarnation, so two CQL names that
// map alike still get distinct tables. The readable parts are for operators
// looking at the HBase shell.
const (
	// metaNamespace holds dohyo's own tables (the catalog).
	metaNamespace = "dohyo"
	// metaTable is the catalog table, qualified.
	metaTable = metaNamespace + ":catalog"
	// family is the one column family of every table.
	family = "d"
	// metaQualifier is the column holding a meta value.
	metaQualifier = "v"
	// maxNamePart bounds the readable part of a name (Cassandra's own limit
	// on keyspace and table names).
	maxNamePart = 48
)

// reservedNamespaces are HBase's own namespaces and dohyo's: a keyspace with
// one of these names gets a suffix.
var reservedNamespaces = []string{"hbase", "default", metaNamespace}

// namespaceName maps a CQL keyspace to an HBase namespace.
func namespaceName(keyspace string) string {
	ns := sanitize(keyspace)
	for _, r := range reservedNamespaces {
		if strings.EqualFold(ns, r) {
			return ns + "_ks"
		}
	}
	return ns
}

// tableName returns the fully qualified HBase table of a spec:
// "<namespace>:t_<name>_<id>".
func tableName(t *kv.TableSpec) string {
	return namespaceName(t.Keyspace) + ":t_" + sanitize(t.Name) + "_" + sanitizeID(t.ID)
}

// splitTableName splits "ns:qualifier" (a name without ':' is in the
// default namespace).
func splitTableName(fq string) (ns, qualifier string) {
	if i := strings.IndexByte(fq, ':'); i >= 0 {
		return fq[:i], fq[i+1:]
	}
	return "default", fq
}

// sanitize keeps [A-Za-z0-9_], replaces anything else with '_', bounds the
// length and never returns "".
func sanitize(s string) string {
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < maxNamePart; i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_':
			b.WriteByte(c)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

// sanitizeID maps a table ID (a UUID) into a qualifier suffix. IDs are
// short; unlike names they are not truncated, since they carry uniqueness.
func sanitizeID(id string) string {
	var b strings.Builder
	b.Grow(len(id)) // one allocation for the usual ID (a UUID) on every read and write
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-' && b.Len() > 0:
			b.WriteByte(c)
		default:
			// Keep distinct IDs distinct: hex-escape anything else
			// (including '_', the escape's own first byte).
			b.WriteString("_x")
			b.WriteByte("0123456789abcdef"[c>>4])
			b.WriteByte("0123456789abcdef"[c&15])
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

// metaRowKey is the catalog table row of a meta key for one catalog.
func metaRowKey(catalog, key string) []byte {
	return []byte(catalog + "/" + key)
}

// tableNames remembers the HBase name of each table a Store has read or
// written (by keyspace, name and ID, which tableName depends on alone), so
// that a point request does not rebuild it: a name and its bytes are two to
// four allocations otherwise. The bytes are shared by every request of the
// table and must not be written to (gohbase only reads them). At most
// maxTableNames names are kept; past that the map starts again.
type tableNames struct {
	mu sync.RWMutex
	m  map[tableNameKey]tableNameEntry
}

type tableNameKey struct{ keyspace, name, id string }

type tableNameEntry struct {
	fq    string
	bytes []byte
}

const maxTableNames = 4096

// of returns tableName(t) and its bytes.
func (n *tableNames) of(t *kv.TableSpec) (string, []byte) {
	k := tableNameKey{t.Keyspace, t.Name, t.ID}
	n.mu.RLock()
	e, ok := n.m[k]
	n.mu.RUnlock()
	if ok {
		return e.fq, e.bytes
	}
	fq := tableName(t)
	e = tableNameEntry{fq: fq, bytes: []byte(fq)}
	n.mu.Lock()
	if n.m == nil || len(n.m) >= maxTableNames {
		n.m = make(map[tableNameKey]tableNameEntry)
	}
	n.m[k] = e
	n.mu.Unlock()
	return e.fq, e.bytes
}
