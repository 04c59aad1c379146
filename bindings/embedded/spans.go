package embedded

import (
	"context"
	"strconv"

	"github.com/dohyo/dohyo/engine/kv"
	"github.com/dohyo/dohyo/telemetry"
)

// Spans of the store's operations (children of the coordinator's backend
// span). Untraced requests pay one ctx lookup per operation.

// DBSystem is db.system of the embedded backend's spans.
const DBSystem = "pebble"

// DBSystem names the store for span attributes.
func (s *Store) DBSystem() string { return DBSystem }

// kvOp names a store operation and its span (constants: building the span
// name per operation was an allocation per request).
type kvOp struct{ op, span string }

var (
	opGet   = kvOp{"get", "pebble get"}
	opApply = kvOp{"apply", "pebble apply"}
	opScan  = kvOp{"scan", "pebble scan"}
)

func kvSpan(ctx context.Context, op kvOp, t *kv.TableSpec) telemetry.Span {
	_, sp := telemetry.Start(ctx, op.span)
	if sp.Exporting() {
		st := telemetry.Statement{System: DBSystem, Operation: op.op}
		if t != nil {
			st.Namespace, st.Collection = t.Keyspace, t.Name
		}
		sp.SetStatement(st)
	}
	return sp
}

// Get reads whole rows from one consistent view of the table.
func (s *Store) Get(ctx context.Context, t *kv.TableSpec, keys [][]byte) ([]kv.Row, error) {
	sp := kvSpan(ctx, opGet, t)
	if !sp.Recording() {
		return s.get(ctx, t, keys)
	}
	rows, err := s.get(ctx, t, keys)
	sp.EndRows("Pebble", kv.FoundRows(rows), err)
	return rows, err
}

// Apply writes all mutations in one atomic Pebble batch. Each cell is a
// blind Merge; the merge operator keeps the winning version.
func (s *Store) Apply(ctx context.Context, muts []kv.Mutation) error {
	var t *kv.TableSpec
	if len(muts) > 0 {
		t = muts[0].Table
	}
	sp := kvSpan(ctx, opApply, t)
	if !sp.Recording() {
		return s.apply(ctx, muts)
	}
	err := s.apply(ctx, muts)
	sp.EndMutations(len(muts), err, "Applied "+strconv.Itoa(len(muts))+" row mutations in one Pebble batch")
	return err
}

// AppliesAtomically reports that Apply is one atomic batch
// (kv.AtomicKV).
func (s *Store) AppliesAtomically() bool { return true }

var _ kv.AtomicKV = (*Store)(nil)

// Scan returns an iterator over rows in [r.Start, r.Stop). It reads one
// consistent view of the table (a Pebble iterator is point-in-time) and
// holds Pebble resources until Close. r.Limit is only a hint and never
// truncates the scan. Its span lasts until Close.
func (s *Store) Scan(ctx context.Context, t *kv.TableSpec, r kv.ScanRange) (kv.RowIterator, error) {
	sp := kvSpan(ctx, opScan, t)
	it, err := s.scan(ctx, t, r)
	if err != nil {
		sp.EndRows("Pebble", 0, err)
		return nil, err
	}
	it.span = sp
	return it, nil
}

// CopiesArguments reports that no call keeps what it was given once it
// returns: Apply copies mutations into a Pebble batch, reads and scans are
// done with their keys when they return or close (kv.CopyingKV).
func (s *Store) CopiesArguments() bool { return true }

var _ kv.CopyingKV = (*Store)(nil)
