package kv

import "context"

// KV is the seam between the CQL engine and an ordered key-value store
// (Pebble for the embedded backend, HBase for the hbase binding).
//
// The store holds tables; a table holds rows ordered bytewise by row key; a
// row holds cells keyed by qualifier. For each (row, qualifier) the store keeps
// the winning cell: the one with the highest Timestamp, ties broken by
// Resolve (stores that cannot do this natively, like HBase on equal
// timestamps, document the difference). Cell values are opaque to the store:
// the engine encodes liveness, TTL and data in them (see cell.go).
//
// Row keys produced by the engine are prefix-free (no row key is a prefix of
// another), so a store may concatenate row key and qualifier.
type KV interface {
	// CreateTable makes storage for a table. Creating an existing table is
	// not an error.
	CreateTable(ctx context.Context, t *TableSpec) error
	// DropTable removes a table and all its data.
	DropTable(ctx context.Context, t *TableSpec) error
	// TruncateTable removes all rows of a table and keeps it.
	TruncateTable(ctx context.Context, t *TableSpec) error

	// Apply writes mutations. All mutations of one call that touch the same
	// row are applied atomically; stores that can, apply the whole call
	// atomically (the embedded store does).
	Apply(ctx context.Context, muts []Mutation) error
	// Get reads whole rows. The result has one entry per key, in order;
	// a missing row has no cells.
	Get(ctx context.Context, t *TableSpec, keys [][]byte) ([]Row, error)
	// Scan iterates rows in [Start, Stop) (nil Stop: to the end of the
	// table), forward or in reverse.
	Scan(ctx context.Context, t *TableSpec, r ScanRange) (RowIterator, error)

	// GetMeta and PutMeta keep small engine metadata (the persisted catalog)
	// outside user tables. A missing key reads as nil, nil.
	GetMeta(ctx context.Context, key string) ([]byte, error)
	PutMeta(ctx context.Context, key string, value []byte) error

	Close() error
}

// TableSpec names a table in the store and carries its physical options.
type TableSpec struct {
	Keyspace string
	Name     string
	// ID is unique per table incarnation (a re-created table gets a new one),
	// so stores may key data by ID rather than by name.
	ID string
	// Options are store-specific physical settings (HBase: regions,
	// compression, data block encoding), taken from the backend URL.
	Options map[string]string
	// SplitKeys are row-key boundaries for pre-splitting (salt buckets or
	// token ranges); stores that do not split ignore them.
	SplitKeys [][]byte
}

// Cell is one (qualifier, timestamp, value) in a row.
type Cell struct {
	Qualifier []byte
	Timestamp int64 // CQL write time, µs since the epoch
	Value     []byte
}

// Mutation writes cells into one row of one table.
type Mutation struct {
	Table *TableSpec
	Row   []byte
	Cells []Cell
}

// Row is a row key with its winning cells, ordered by qualifier.
type Row struct {
	Key   []byte
	Cells []Cell
}

// ScanRange selects rows of a scan.
type ScanRange struct {
	Start   []byte // inclusive; nil: from the first row
	Stop    []byte // exclusive; nil: to the last row
	Reverse bool
	// Limit is a hint for how many rows the caller expects to read (0: no
	// hint); stores use it to size their fetches.
	Limit int
}

// RowIterator yields rows of a scan. Next returns false at the end or on
// error; Err reports the error. Close must always be called.
type RowIterator interface {
	Next(ctx context.Context) (Row, bool)
	Err() error
	Close() error
}

// FoundRows counts the rows of a Get that exist (have cells).
func FoundRows(rows []Row) int {
	n := 0
	for _, r := range rows {
		if len(r.Cells) > 0 {
			n++
		}
	}
	return n
}

// AtomicKV is implemented by stores whose Apply applies the whole call
// atomically (the embedded store: one Pebble batch). The engine then writes
// index entries in the same call as the rows they point to.
type AtomicKV interface {
	AppliesAtomically() bool
}

// CopyingKV is implemented by stores whose calls keep no reference to the
// memory they were given (mutations, keys, scan bounds) once they return,
// whatever they return (the embedded store: Apply copies mutations into a
// Pebble batch, and reads finish with the call). The engine then reuses
// execution contexts and mutation builders, whose memory keys and
// mutations point into, for later statements (recycle.go).
type CopyingKV interface {
	CopiesArguments() bool
}

// SettlingKV is implemented by stores that keep no reference to the memory
// a call was given once the call has returned without error, but may after
// one that failed (HBase: a call returns nil only after the server answered
// its RPCs, while a call cut short by its context can leave an RPC queued in
// the client, still pointing at its keys). The engine then recycles as for
// a CopyingKV, after successful statements only.
type SettlingKV interface {
	SettlesOnSuccess() bool
}

// CondKV is implemented by stores that can change a small coordination cell
// atomically. The engine finds it by type assertion and uses it to
// serialise LWT, counter updates and read-before-write list operations on a
// partition across every process sharing the store (see coord.go); stores
// without it get in-process locks only, which is right for one process.
//
// Coordination cells live outside user tables, keyed by opaque byte
// strings; a cell value is never empty.
type CondKV interface {
	// CellGet reads a coordination cell; a missing cell reads as nil, nil.
	CellGet(ctx context.Context, key []byte) ([]byte, error)
	// CellSwap writes value into the cell if it currently holds expected
	// (nil: the cell is missing), atomically, and reports whether it did.
	// An error leaves the outcome unknown.
	CellSwap(ctx context.Context, key, expected, value []byte) (bool, error)
}

// CoordTablePrefix is the prefix of the coordination cell keys of the
// partitions of the table with the given ID (TableSpec.ID): a store drops
// the cells under it with the table.
func CoordTablePrefix(tableID string) []byte {
	k := make([]byte, 0, len(tableID)+1+32)
	k = append(k, tableID...)
	return append(k, 0)
}

// Defaults are engine settings a store's configuration carries (its URL:
// hbase://zk?salt=16&compression=GZ). The engine applies them where its
// own options leave a setting unset.
type Defaults struct {
	// Salt is the salt buckets of new tables (0: unsalted).
	Salt int
	// TableOptions are physical options for CreateTable (the engine's own
	// TableOptions win on the same key).
	TableOptions map[string]string
	// DropInBackground asks the engine to answer DROP once the catalog
	// commit hid the tables and remove their storage in the background
	// (stores whose table drops are slow, as HBase's).
	DropInBackground bool
}

// Defaulter is implemented by stores whose configuration carries engine
// settings (Defaults).
type Defaulter interface {
	EngineDefaults() Defaults
}
