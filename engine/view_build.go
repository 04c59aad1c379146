package engine

import (
	"bytes"
	"context"
	"fmt"

	"github.com/dohyo/dohyo/engine/kv"
)

// truncateViews refuses TRUNCATE of a view and empties the views of a
// base table being truncated (before the base, as for indexes).
func (e *Engine) truncateViews(ctx context.Context, ti *tableInfo) error {
	if ti.t.IsView() {
		return invalidf("Cannot TRUNCATE materialized view directly; must truncate base table instead")
	}
	for _, vi := range e.st.Load().views[ti.t.ID] {
		if err := e.kv.TruncateTable(ctx, vi.vt.spec); err != nil {
			return fmt.Errorf("truncate view %s: %w", vi.vt, err)
		}
	}
	return nil
}

// newViews lists the views of next that old does not have.
func newViews(old, next *state) []*viewInfo {
	var out []*viewInfo
	for _, vs := range next.views {
		for _, vi := range vs {
			if old.byID[vi.vt.t.ID] == nil {
				out = append(out, vi)
			}
		}
	}
	return out
}

// buildViews writes the view rows of the base rows present when the views
// were created. It runs synchronously in CREATE MATERIALIZED VIEW, one
// base partition at a time, each held as a write holds it (so a write to
// the partition meanwhile is ordered before or after its build); its cost
// grows with the base table. Writes after the schema swap maintain the
// view themselves; on a shared store the build first waits for the other
// engines to load the new schema, as an index backfill does.
func (e *Engine) buildViews(ctx context.Context, views []*viewInfo) error {
	if len(views) == 0 {
		return nil
	}
	if err := e.awaitSchemaPolls(ctx); err != nil {
		return err
	}
	for _, vi := range views {
		if err := e.buildView(ctx, vi); err != nil {
			return fmt.Errorf("build materialized view %s: %w", vi.vt.t.Name, err)
		}
	}
	return nil
}

func (e *Engine) buildView(ctx context.Context, vi *viewInfo) error {
	base := vi.base
	it, err := e.kv.Scan(ctx, base.spec, kv.ScanRange{Limit: 1024})
	if err != nil {
		return err
	}
	defer it.Close()
	var last []byte
	for {
		row, ok := it.Next(ctx)
		if !ok {
			break
		}
		prefix, err := base.codec.PartitionPrefix(row.Key)
		if err != nil {
			return err
		}
		if last != nil && bytes.Equal(prefix, last) {
			continue
		}
		last = append(last[:0], prefix...)
		pk, _, err := base.codec.DecodeRowKey(row.Key)
		if err != nil {
			return err
		}
		hkey, err := base.codec.PartitionKey(pk)
		if err != nil {
			return err
		}
		if err := e.buildPartition(ctx, vi, hkey); err != nil {
			return err
		}
	}
	return it.Err()
}

// buildPartition writes the view rows of one base partition, held.
func (e *Engine) buildPartition(ctx context.Context, vi *viewInfo, hkey []byte) error {
	gs, err := e.lockParts(ctx, []partRef{{ti: vi.base, key: hkey}})
	if err != nil {
		return err
	}
	rows, err := e.scanPartition(ctx, vi.base, hkey)
	if err != nil {
		gs.abort(ctx)
		return err
	}
	now := e.nowSeconds()
	after, err := decodePart(vi.base, hkey, rows, now)
	if err != nil {
		gs.abort(ctx)
		return err
	}
	muts, err := vi.updates(ctx, e, partState{}, after, gs.timestamp(), now)
	if err != nil {
		gs.abort(ctx)
		return err
	}
	return gs.commit(ctx, muts)
}

// writeUnheld applies plans that hold no partition, unless one of their
// tables has views in the current schema (then done is false and the
// caller holds the partitions). The check and the apply run under idxMu,
// which a schema swap takes exclusively: an unheld write either applies
// before CREATE MATERIALIZED VIEW's swap, so the build's scan sees it, or
// sees the view and is maintained.
func (e *Engine) writeUnheld(ctx context.Context, plans []*modPlan, xs []*execCtx, bc *batchCheck) (done bool, err error) {
	e.idxMu.RLock()
	defer e.idxMu.RUnlock()
	st := e.st.Load()
	for _, p := range plans {
		if st.hasViews(p.ti) {
			return false, nil
		}
	}
	mb, err := e.collectPlans(ctx, plans, xs, bc)
	if err != nil {
		return true, err
	}
	if len(mb.muts) > 0 {
		err = e.applyLocked(ctx, mb.muts)
	}
	e.putMutBuilder(mb, err)
	if err != nil {
		return true, fmt.Errorf("write: %w", err)
	}
	return true, nil
}
