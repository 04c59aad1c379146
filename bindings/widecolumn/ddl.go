package widecolumn

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// execDDL applies a schema statement: the schema package validates it and
// returns a new catalog; the engine creates or drops KV tables, persists
// the catalog and swaps its state. DDL is serialised by ddlMu.
func (e *Engine) execDDL(ctx context.Context, ks string, stmt cql.Statement) (*bindings.Result, error) {
	e.ddlMu.Lock()
	defer e.ddlMu.Unlock()
	old := e.st.Load()

	if tr, ok := stmt.(*cql.Truncate); ok {
		ti, err := old.lookupTable(ks, tr.Keyspace, tr.Name)
		if err != nil {
			return nil, err
		}
		if err := e.kv.TruncateTable(ctx, ti.spec); err != nil {
			return nil, fmt.Errorf("truncate %s: %w", ti, err)
		}
		return &bindings.Result{Kind: bindings.ResultVoid}, nil
	}

	cat, change, err := old.cat.Apply(stmt, ks)
	if err != nil {
		return nil, err
	}
	if change == nil || cat == old.cat {
		// IF [NOT] EXISTS that changed nothing: Cassandra answers Void.
		return &bindings.Result{Kind: bindings.ResultVoid}, nil
	}
	salts := maps.Clone(old.salts)
	st, err := e.newState(cat, salts)
	if err != nil {
		return nil, err
	}
	oldIDs := map[string]*tableInfo{}
	for _, ti := range old.tables {
		oldIDs[ti.t.ID] = ti
	}
	newIDs := map[string]*tableInfo{}
	for _, ti := range st.tables {
		newIDs[ti.t.ID] = ti
	}
	for id, ti := range newIDs {
		if oldIDs[id] == nil {
			if err := e.kv.CreateTable(ctx, ti.spec); err != nil {
				return nil, fmt.Errorf("create table %s: %w", ti, err)
			}
		}
	}
	for id := range salts {
		if newIDs[id] == nil {
			delete(salts, id)
		}
	}
	if err := e.persist(ctx, cat, salts); err != nil {
		return nil, err
	}
	e.st.Store(st)
	for id, ti := range oldIDs {
		if newIDs[id] == nil {
			if err := e.kv.DropTable(ctx, ti.spec); err != nil {
				// The catalog no longer names the table; its data is
				// unreachable. Report, but the DDL itself succeeded.
				e.log.Warn("widecolumn: drop table storage", "table", ti.String(), "err", err)
			}
		}
	}
	return &bindings.Result{Kind: bindings.ResultSchemaChange, Change: &bindings.SchemaChange{
		Type:     bindings.ChangeType(change.Type),
		Target:   bindings.ChangeTarget(change.Target),
		Keyspace: change.Keyspace,
		Object:   change.Table,
	}}, nil
}

func (e *Engine) persist(ctx context.Context, cat any, salts map[string]int) error {
	raw, err := json.Marshal(cat)
	if err != nil {
		return fmt.Errorf("encode catalog: %w", err)
	}
	sraw, err := json.Marshal(salts)
	if err != nil {
		return fmt.Errorf("encode salts: %w", err)
	}
	// Salts first: a table id with a salt but no catalog entry is harmless.
	if err := e.kv.PutMeta(ctx, metaSalts, sraw); err != nil {
		return fmt.Errorf("persist salts: %w", err)
	}
	if err := e.kv.PutMeta(ctx, metaCatalog, raw); err != nil {
		return fmt.Errorf("persist catalog: %w", err)
	}
	return nil
}
