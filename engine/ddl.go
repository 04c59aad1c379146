package engine

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"maps"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/engine/kv"
	"github.com/dohyo/dohyo/schema"
)

// execDDL applies a schema statement: the schema package validates it and
// returns a new catalog; the engine creates or drops KV tables, commits the
// catalog with a compare-and-set on the store's schema version and swaps
// its state. When another engine sharing the store committed first, the
// engine reloads the schema and applies the statement again against it
// (bounded), so no change is lost and of two conflicting statements one
// fails as Cassandra would (e.g. AlreadyExists). DDL is serialised within
// the engine by ddlMu.
func (e *Engine) execDDL(ctx context.Context, ks string, stmt cql.Statement) (*bindings.Result, error) {
	var picked []*bindings.SchemaChange // committed elsewhere, reported once unlocked
	defer func() { e.notify(picked) }()
	e.ddlMu.Lock()
	defer e.ddlMu.Unlock()
	reload := func() error {
		ch, err := e.reloadLocked(ctx)
		picked = append(picked, ch...)
		return err
	}
	if e.shared {
		// Start from the newest schema: a cheap version read.
		if v, err := e.meta.SchemaVersion(ctx); err != nil {
			return nil, fmt.Errorf("read schema version: %w", err)
		} else if v != e.st.Load().version {
			if err := reload(); err != nil {
				return nil, err
			}
		}
	}
	if tr, ok := stmt.(*cql.Truncate); ok {
		ti, err := e.st.Load().lookupTable(ks, tr.Keyspace, tr.Name)
		if err != nil {
			return nil, err
		}
		if err := e.truncateViews(ctx, ti); err != nil {
			return nil, err
		}
		// Indexes first: a write between the two leaves a stale entry, never
		// a row its index misses.
		for _, ii := range ti.indexes {
			if err := e.kv.TruncateTable(ctx, ii.spec); err != nil {
				return nil, fmt.Errorf("truncate index %s: %w", ii.ix.Name, err)
			}
		}
		if err := e.kv.TruncateTable(ctx, ti.spec); err != nil {
			return nil, fmt.Errorf("truncate %s: %w", ti, err)
		}
		return &bindings.Result{Kind: bindings.ResultVoid}, nil
	}
	a, err := e.newDDLAttempts()
	if err != nil {
		return nil, err
	}
	defer e.dropUnused(ctx, a)
	for attempt := 1; ; attempt++ {
		res, committed, err := e.tryDDL(ctx, ks, stmt, a)
		if err == nil && committed {
			if err := e.backfillIndexes(ctx, a.added); err != nil {
				return nil, err
			}
			if err := e.buildViews(ctx, a.views); err != nil {
				return nil, err
			}
		}
		if err != nil || committed {
			return res, err
		}
		if attempt == maxDDLAttempts {
			return nil, bindings.Errorf(bindings.CodeServerError,
				"schema change not applied: the schema kept changing concurrently (%d attempts); retry", attempt)
		}
		e.log.Debug("widecolumn: schema changed concurrently; retrying DDL", "attempt", attempt)
		if err := reload(); err != nil {
			return nil, err
		}
	}
}

// ddlAttempts is what the attempts of one DDL statement share: the random
// bytes the schema package draws table ids from, replayed on every attempt
// so a retried CREATE TABLE gets the same id and reuses the storage the
// lost attempt created, and that storage.
type ddlAttempts struct {
	seed []byte
	made map[string]*kv.TableSpec // by table or index id; nil once a commit's outcome is unknown
	// added are the indexes the committed statement created (to backfill).
	added []*indexInfo
	// views are the views it created (to build, view_build.go).
	views []*viewInfo
}

func (e *Engine) newDDLAttempts() (*ddlAttempts, error) {
	src := e.opts.Schema.Rand
	if src == nil {
		src = rand.Reader
	}
	a := &ddlAttempts{seed: make([]byte, 256), made: map[string]*kv.TableSpec{}}
	if _, err := io.ReadFull(src, a.seed); err != nil {
		return nil, fmt.Errorf("schema random source: %w", err)
	}
	return a, nil
}

// schemaOptions are the engine's schema options drawing from a's seed.
func (a *ddlAttempts) schemaOptions(o schema.Options) schema.Options {
	o.Rand = io.MultiReader(bytes.NewReader(a.seed), rand.Reader)
	return o
}

// dropUnused drops the storage the attempts created that the loaded
// schema does not name (a statement that failed in the end).
func (e *Engine) dropUnused(ctx context.Context, a *ddlAttempts) {
	st := e.st.Load()
	ids := tablesByID(st)
	var unused []*kv.TableSpec
	for id, spec := range a.made {
		if ids[id] == nil {
			unused = append(unused, spec)
		}
	}
	e.dropTables(ctx, unused)
}

// tryDDL applies stmt to the loaded schema and commits it. committed is
// false (with a nil error) when another engine committed first.
func (e *Engine) tryDDL(ctx context.Context, ks string, stmt cql.Statement, a *ddlAttempts) (_ *bindings.Result, committed bool, _ error) {
	old := e.st.Load()
	base := old.cat.WithOptions(a.schemaOptions(e.opts.Schema))
	cat, change, err := base.Apply(stmt, ks)
	if err != nil {
		return nil, false, err
	}
	if change == nil || cat == base {
		// IF [NOT] EXISTS that changed nothing: Cassandra answers Void.
		return &bindings.Result{Kind: bindings.ResultVoid}, true, nil
	}
	cat = cat.WithOptions(e.opts.Schema)
	salts := maps.Clone(old.salts)
	st, err := e.newState(cat, salts)
	if err != nil {
		return nil, false, err
	}
	oldIDs, newIDs := tablesByID(old), tablesByID(st)
	for id, spec := range newIDs {
		if oldIDs[id] == nil {
			if err := e.kv.CreateTable(ctx, spec); err != nil {
				return nil, false, fmt.Errorf("create table %s.%s: %w", spec.Keyspace, spec.Name, err)
			}
			a.made[id] = spec
		}
	}
	for id := range salts {
		if newIDs[id] == nil {
			delete(salts, id)
		}
	}
	ok, err := e.commitSchema(ctx, old.version, cat, salts)
	if err != nil {
		// The commit may have been applied: keep the new tables (the
		// poll loads the schema that names them, if it is committed).
		a.made = nil
		return nil, false, err
	}
	if !ok {
		return nil, false, nil
	}
	st.version = old.version + 1
	e.storeState(st)
	a.added = newIndexes(old, st)
	a.views = newViews(old, st)
	var dropped []*kv.TableSpec
	for id, spec := range oldIDs {
		if newIDs[id] == nil {
			dropped = append(dropped, spec)
		}
	}
	e.dropTables(ctx, dropped)
	main := schemaChange(change)
	return &bindings.Result{Kind: bindings.ResultSchemaChange, Change: main, Events: statementEvents(old.cat, st.cat, main)}, true, nil
}

func schemaChange(ch *schema.Change) *bindings.SchemaChange {
	return &bindings.SchemaChange{
		Type:     bindings.ChangeType(ch.Type),
		Target:   bindings.ChangeTarget(ch.Target),
		Keyspace: ch.Keyspace,
		Object:   ch.Table,
		Args:     udfChangeArgs(ch),
	}
}

// tablesByID lists the KV tables of a state (tables and their indexes) by id.
func tablesByID(st *state) map[string]*kv.TableSpec {
	out := make(map[string]*kv.TableSpec, len(st.tables))
	for _, ti := range st.tables {
		out[ti.t.ID] = ti.spec
		for _, ii := range ti.indexes {
			out[ii.ix.ID] = ii.spec
		}
	}
	return out
}

// dropTables removes the storage of tables no committed catalog names. A
// failure leaves unreachable data behind: reported, not returned. With
// Options.DropInBackground the drops run on background workers and
// dropTables returns at once.
func (e *Engine) dropTables(ctx context.Context, tables []*kv.TableSpec) {
	if e.opts.DropInBackground && len(tables) > 0 && e.dropInBackground(tables) {
		return
	}
	for _, spec := range tables {
		if err := e.kv.DropTable(ctx, spec); err != nil {
			e.log.Warn("widecolumn: drop table storage", "table", spec.Keyspace+"."+spec.Name, "err", err)
		}
	}
}

// dropTimeout bounds one background table drop.
const dropTimeout = 5 * time.Minute

// dropInBackground queues the drops on the engine's workers; false when the
// engine is closing (the caller then drops synchronously).
func (e *Engine) dropInBackground(tables []*kv.TableSpec) bool {
	e.dropMu.Lock()
	defer e.dropMu.Unlock()
	if e.closed.Load() {
		return false
	}
	if e.dropSlot == nil {
		n := e.opts.DropWorkers
		if n <= 0 {
			n = 4
		}
		e.dropSlot = make(chan struct{}, n)
	}
	for _, spec := range tables {
		e.dropWG.Add(1)
		go func(spec *kv.TableSpec) {
			defer e.dropWG.Done()
			e.dropSlot <- struct{}{}
			defer func() { <-e.dropSlot }()
			ctx, cancel := context.WithTimeout(context.Background(), dropTimeout)
			defer cancel()
			start := e.clock()
			if err := e.kv.DropTable(ctx, spec); err != nil {
				e.log.Warn("widecolumn: background drop of table storage", "table", spec.Keyspace+"."+spec.Name, "err", err)
				return
			}
			e.log.Debug("widecolumn: dropped table storage", "table", spec.Keyspace+"."+spec.Name, "took", e.clock().Sub(start))
		}(spec)
	}
	return true
}

// WaitDrops waits until the background table drops queued so far are done
// (tests and orderly shutdown).
func (e *Engine) WaitDrops() { e.dropWG.Wait() }
