package hbase

import (
	"context"

	"github.com/tsuna/gohbase/hrpc"
)

// CompareAndSetMeta writes value under an engine metadata key only if the
// key still holds old (nil old: only if it is absent), with one CheckAndPut,
// so instances sharing this HBase never overwrite each other's changes
// (auth.CASStore: dohyo's roles). It reports whether the value was written.
func (s *Store) CompareAndSetMeta(ctx context.Context, key string, old, value []byte) (bool, error) {
	if value == nil {
		value = []byte{}
	}
	return s.checkAndPut(ctx, metaTable, metaRowKey(s.catalog, key),
		map[string][]byte{metaQualifier: value}, metaQualifier, old, "compare-and-set meta")
}

// checkAndPut writes cells into one row of table only if the row's cell
// qualifier holds expected (nil or empty: only if it is absent), with one
// CheckAndPut: the region server compares and writes under the row lock.
// It reports whether the cells were written; what names the operation in
// errors. Every conditional write of the store (metadata, the shared
// schema, coordination cells) goes through it.
func (s *Store) checkAndPut(ctx context.Context, table string, row []byte, cells map[string][]byte, qualifier string, expected []byte, what string) (bool, error) {
	if err := s.check(ctx); err != nil {
		return false, err
	}
	octx, cancel := opCtx(ctx, s.opTO)
	defer cancel()
	p, err := hrpc.NewPut(octx, []byte(table), row, map[string]map[string][]byte{family: cells})
	if err != nil {
		return false, err
	}
	if expected == nil {
		expected = []byte{}
	}
	ok, err := s.client.CheckAndPut(p, family, qualifier, expected)
	if err != nil {
		return false, s.wrapErr(ctx, what, err)
	}
	return ok, nil
}
