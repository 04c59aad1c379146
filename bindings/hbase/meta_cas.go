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
	if err := s.check(ctx); err != nil {
		return false, err
	}
	octx, cancel := opCtx(ctx, s.opTO)
	defer cancel()
	if value == nil {
		value = []byte{}
	}
	p, err := hrpc.NewPut(octx, []byte(metaTable), metaRowKey(s.catalog, key),
		map[string]map[string][]byte{family: {metaQualifier: value}})
	if err != nil {
		return false, err
	}
	ok, err := s.client.CheckAndPut(p, family, metaQualifier, old)
	if err != nil {
		return false, s.wrapErr(ctx, "compare-and-set meta", err)
	}
	return ok, nil
}
