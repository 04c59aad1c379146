package schema

import (
	"sort"
	"strconv"
	"strings"

	"github.com/dohyo/dohyo/cql"
)

// tableOptionOrder is the order of WITH options in Cassandra 5.0's DESCRIBE
// output (alphabetical, except memtable, which follows compression).
var tableOptionOrder = []string{
	"additional_write_policy", "allow_auto_snapshot", "bloom_filter_fp_chance", "caching", "cdc",
	"comment", "compaction", "compression", "memtable", "crc_check_chance", "default_time_to_live",
	"extensions", "gc_grace_seconds", "incremental_backups", "max_index_interval",
	"memtable_flush_period_in_ms", "min_index_interval", "read_repair", "speculative_retry",
}

// OptionsCQL returns every option's value as CQL source text, keyed by
// option name, spelled as DESCRIBE prints it.
func (t *TableParams) OptionsCQL() map[string]string {
	return map[string]string{
		"additional_write_policy":     quoteString(t.AdditionalWritePolicy),
		"allow_auto_snapshot":         strconv.FormatBool(t.AllowAutoSnapshot),
		"bloom_filter_fp_chance":      cql.JavaFloatString(t.BloomFilterFPChance, 64),
		"caching":                     cqlMap(t.Caching),
		"cdc":                         strconv.FormatBool(t.CDC),
		"comment":                     quoteString(t.Comment),
		"compaction":                  cqlMap(t.Compaction),
		"compression":                 cqlMap(t.Compression),
		"memtable":                    quoteString(t.Memtable),
		"crc_check_chance":            cql.JavaFloatString(t.CRCCheckChance, 64),
		"default_time_to_live":        strconv.Itoa(t.DefaultTimeToLive),
		"extensions":                  cqlRawMap(t.Extensions),
		"gc_grace_seconds":            strconv.Itoa(t.GCGraceSeconds),
		"incremental_backups":         strconv.FormatBool(t.IncrementalBackups),
		"max_index_interval":          strconv.Itoa(t.MaxIndexInterval),
		"memtable_flush_period_in_ms": strconv.Itoa(t.MemtableFlushPeriodInMs),
		"min_index_interval":          strconv.Itoa(t.MinIndexInterval),
		"read_repair":                 quoteString(t.ReadRepair),
		"speculative_retry":           quoteString(t.SpeculativeRetry),
	}
}

// quoteString renders a CQL string literal.
func quoteString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// cqlMap renders a string map as a CQL map literal with sorted keys.
func cqlMap(m map[string]string) string {
	keys := sortedKeys(m)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = quoteString(k) + ": " + quoteString(m[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// cqlRawMap renders a map whose values are already CQL (blob literals).
func cqlRawMap(m map[string]string) string {
	keys := sortedKeys(m)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = quoteString(k) + ": " + m[k]
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// CreateStatement renders the table as Cassandra 5.0's DESCRIBE TABLE does.
func (t *Table) CreateStatement() string {
	var b strings.Builder
	b.WriteString("CREATE TABLE ")
	b.WriteString(cql.QuoteIdent(t.Keyspace) + "." + cql.QuoteIdent(t.Name))
	b.WriteString(" (\n")
	single := len(t.PartitionKey) == 1 && len(t.Clustering) == 0
	cols := t.createOrder()
	for i, c := range cols {
		b.WriteString("    ")
		b.WriteString(cql.QuoteIdent(c.Name) + " " + TypeString(c.Type))
		if c.Kind == Static {
			b.WriteString(" static")
		}
		if single && c.Kind == PartitionKey {
			b.WriteString(" PRIMARY KEY")
		}
		if !single || i < len(cols)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	if !single {
		b.WriteString("    PRIMARY KEY (")
		if len(t.PartitionKey) > 1 {
			b.WriteString("(" + joinNames(t.PartitionKey) + ")")
		} else if len(t.PartitionKey) == 1 {
			b.WriteString(cql.QuoteIdent(t.PartitionKey[0].Name))
		}
		if len(t.Clustering) > 0 {
			b.WriteString(", " + joinNames(t.Clustering))
		}
		b.WriteString(")\n")
	}
	b.WriteString(") WITH ")
	writeOptions(&b, t, "")
	return b.String()
}

// writeOptions writes what follows WITH in a table's or view's CREATE
// statement: the clustering order, then the options in Cassandra's order
// (but skip, an option the statement must not show), and the closing ";".
func writeOptions(b *strings.Builder, t *Table, skip string) {
	if len(t.Clustering) > 0 {
		parts := make([]string, len(t.Clustering))
		for i, c := range t.Clustering {
			order := " ASC"
			if c.Desc {
				order = " DESC"
			}
			parts[i] = cql.QuoteIdent(c.Name) + order
		}
		b.WriteString("CLUSTERING ORDER BY (" + strings.Join(parts, ", ") + ")\n    AND ")
	}
	opts := t.Options
	if opts == nil {
		opts = t.Params.OptionsCQL()
	}
	first := true
	for _, name := range tableOptionOrder {
		v, ok := opts[name]
		if !ok || name == skip {
			continue
		}
		if !first {
			b.WriteString("\n    AND ")
		}
		first = false
		b.WriteString(name + " = " + v)
	}
	b.WriteString(";")
}

// createOrder is the column order of DESCRIBE: partition key, clustering,
// then static and regular columns, each group with single-cell columns
// before non-frozen collections, by name within a group.
func (t *Table) createOrder() []*Column {
	cols := append(append([]*Column(nil), t.PartitionKey...), t.Clustering...)
	for _, kind := range []ColumnKind{Static, Regular} {
		var simple, complex []*Column
		for _, c := range t.Columns {
			if c.Kind != kind {
				continue
			}
			if c.Type != nil && c.Type.MultiCell() {
				complex = append(complex, c)
			} else {
				simple = append(simple, c)
			}
		}
		cols = append(append(cols, simple...), complex...)
	}
	return cols
}

func joinNames(cols []*Column) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = cql.QuoteIdent(c.Name)
	}
	return strings.Join(parts, ", ")
}

// CreateStatement renders the keyspace as Cassandra 5.0's DESCRIBE KEYSPACE
// does (without its tables).
func (k *Keyspace) CreateStatement() string {
	class := k.Replication["class"]
	if short, ok := strings.CutPrefix(class, locatorPackage); ok && !strings.Contains(short, ".") {
		class = short
	}
	var b strings.Builder
	b.WriteString("CREATE KEYSPACE " + cql.QuoteIdent(k.Name) + " WITH replication = {'class': " + quoteString(class))
	opts := make([]string, 0, len(k.Replication))
	for key := range k.Replication {
		if key != "class" {
			opts = append(opts, key)
		}
	}
	for _, key := range javaHashOrder(opts) {
		b.WriteString(", " + quoteString(key) + ": " + quoteString(k.Replication[key]))
	}
	b.WriteString("}  AND durable_writes = " + strconv.FormatBool(k.DurableWrites) + ";")
	return b.String()
}

// javaHashOrder orders keys as a small java.util.HashMap iterates them, which
// is the order Cassandra prints replication options in. Keys sharing a
// bucket are ordered by name (Cassandra's order there depends on history).
func javaHashOrder(keys []string) []string {
	// The options map was copied from the statement's map, "class" included.
	capacity := tableSizeFor(int(float32(len(keys)+1)/0.75 + 1))
	for len(keys) > capacity*3/4 {
		capacity *= 2
	}
	out := append([]string(nil), keys...)
	bucket := func(s string) int { return int(javaHash(s)) & (capacity - 1) }
	sort.Slice(out, func(i, j int) bool {
		bi, bj := bucket(out[i]), bucket(out[j])
		if bi != bj {
			return bi < bj
		}
		return out[i] < out[j]
	})
	return out
}

// javaHash is String.hashCode spread as HashMap.hash does.
func javaHash(s string) uint32 {
	var h int32
	for _, r := range s {
		if r >= 0x10000 { // surrogate pair, as Java's UTF-16 strings
			r -= 0x10000
			h = 31*h + int32(0xD800+(r>>10))
			h = 31*h + int32(0xDC00+(r&0x3FF))
			continue
		}
		h = 31*h + int32(r)
	}
	u := uint32(h)
	return u ^ u>>16
}

func tableSizeFor(n int) int {
	c := 1
	for c < n {
		c <<= 1
	}
	return c
}
