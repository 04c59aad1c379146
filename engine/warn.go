package engine

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"
)

// Client warnings. Cassandra 5.0 answers some statements with warnings
// (the protocol's WARNING flag, v4 and later); the engine returns the same
// texts in bindings.Result.Warnings: aggregation queries over several
// partitions (SelectStatement), large, multi-partition and gc-grace-less
// batches (BatchStatement), and the creation of a materialized view.

// Thresholds are Cassandra's batch guardrails, cassandra.yaml's
// batch_size_warn_threshold, batch_size_fail_threshold and
// unlogged_batch_across_partitions_warn_threshold. A negative value turns
// the check off.
type Thresholds struct {
	// BatchSizeWarn: a batch over several partitions whose data is larger
	// than this many bytes (Cassandra's PartitionUpdate.dataSize) is
	// answered with a warning.
	BatchSizeWarn int64
	// BatchSizeFail: such a batch larger than this is refused ("Batch too
	// large") and nothing of it is written.
	BatchSizeFail int64
	// UnloggedBatchPartitions: an unlogged or counter batch over more
	// partitions than this is answered with a warning.
	UnloggedBatchPartitions int
}

// Cassandra 5.0's defaults.
const (
	DefaultBatchSizeWarn           = 5 << 10
	DefaultBatchSizeFail           = 50 << 10
	DefaultUnloggedBatchPartitions = 10
)

// DefaultThresholds returns Cassandra 5.0's default thresholds.
func DefaultThresholds() Thresholds {
	return Thresholds{
		BatchSizeWarn:           DefaultBatchSizeWarn,
		BatchSizeFail:           DefaultBatchSizeFail,
		UnloggedBatchPartitions: DefaultUnloggedBatchPartitions,
	}
}

// The warnings' texts, as Cassandra 5.0 words them.
const (
	warnAggregateNoKey = "Aggregation query used without partition key"
	warnAggregateIN    = "Aggregation query used on multiple partition keys (IN restriction)"
	warnView           = "Materialized views are experimental and are not recommended for production use."
	errBatchTooLarge   = "Batch too large"
)

// aggregateWarnings are the warnings Cassandra's SelectStatement gives an
// aggregation (aggregates or GROUP BY) that reads several partitions: no
// restriction of the partition key (token restrictions count as one), or
// IN on it.
func (p *selectPlan) aggregateWarnings() []string {
	switch {
	case !p.sel.aggregate && !p.grouped:
		return nil
	case !p.w.hasPK() && len(p.w.token) == 0:
		return []string{warnAggregateNoKey}
	case p.keyIsInRelation():
		return []string{warnAggregateIN}
	}
	return nil
}

func warnBatchSize(tables []string, size, threshold int64) string {
	return fmt.Sprintf("Batch for %s is of size %d, exceeding specified threshold of %d by %d.",
		javaSetString(tables), size, threshold, size-threshold)
}

func warnUnloggedBatch(partitions int, tables []string) string {
	return fmt.Sprintf("Unlogged batch covering %d partitions detected against table%s %s. "+
		"You should use a logged batch for atomicity, or asynchronous writes for performance.",
		partitions, plural(len(tables)), javaSetString(tables))
}

func warnLoggedBatchGCGrace(tables []string) string {
	return fmt.Sprintf("Executing a LOGGED BATCH on table%s %s, configured with a gc_grace_seconds of 0. "+
		"The gc_grace_seconds is used to TTL batchlog entries, so setting gc_grace_seconds too low on "+
		"tables involved in an atomic batch might cause batchlog entries to expire before being replayed.",
		plural(len(tables)), javaSetString(tables))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// warnName is a table as Cassandra's TableMetadata.toString spells it in
// warnings: keyspace.table, each quoted when it needs to be.
func (ti *tableInfo) warnName() string {
	return quoteIfNeeded(ti.t.Keyspace) + "." + quoteIfNeeded(ti.t.Name)
}

// quoteIfNeeded quotes an identifier as Cassandra's
// ColumnIdentifier.maybeQuote does: unquoted when it is lower case
// letters, digits and underscores starting with a letter.
func quoteIfNeeded(s string) string {
	plain := s != ""
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z':
		case (r >= '0' && r <= '9' || r == '_') && i > 0:
		default:
			plain = false
		}
	}
	if plain {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// javaSetString formats distinct strings, given in insertion order, as
// Java's HashSet<String>.toString does ("[a, b]"): in the set's iteration
// order, which is by hash bucket. Cassandra builds its warnings from such
// sets, so the order of the table names is Java's.
func javaSetString(items []string) string {
	return "[" + strings.Join(javaHashSetOrder(items), ", ") + "]"
}

// javaHashSetOrder returns distinct strings, given in insertion order, in
// the iteration order of a java.util.HashSet built by adding them in that
// order: buckets of (h ^ h>>>16) & (capacity-1), capacity 16 doubling
// past a 0.75 load, insertion order within a bucket. (Buckets long enough
// to become trees, 8 entries in a table of 64 or more, are not modelled.)
func javaHashSetOrder(items []string) []string {
	capacity := 16
	for len(items) > capacity*3/4 {
		capacity *= 2
	}
	type entry struct {
		s      string
		bucket int
	}
	es := make([]entry, len(items))
	for i, s := range items {
		h := javaStringHash(s)
		es[i] = entry{s, int((h ^ (h >> 16)) & uint32(capacity-1))}
	}
	slices.SortStableFunc(es, func(a, b entry) int { return a.bucket - b.bucket })
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.s
	}
	return out
}

// javaStringHash is Java's String.hashCode: s[0]*31^(n-1) + ... + s[n-1]
// over UTF-16 code units, wrapping.
func javaStringHash(s string) uint32 {
	var h uint32
	for _, r := range s {
		if r >= 0x10000 {
			r1, r2 := utf16.EncodeRune(r)
			h = 31*h + uint32(r1)
			h = 31*h + uint32(r2)
			continue
		}
		h = 31*h + uint32(r)
	}
	return h
}

// appendDistinct appends s to list unless it is there already.
func appendDistinct(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
