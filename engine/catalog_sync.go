package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/engine/kv"
	"github.com/dohyo/dohyo/schema"
)

// The catalog is shared by every engine over one store (a tier of dohyo
// instances over one HBase): DDL commits it with a compare-and-set on a
// version the store keeps, and every engine reloads it when that version
// moves (a cheap poll, and at once when a statement names a keyspace or
// table the engine does not know).

// defaultSchemaPoll is how often an engine on a shared store checks the
// committed schema version.
const defaultSchemaPoll = 250 * time.Millisecond

// maxDDLAttempts bounds the compare-and-set retries of one DDL statement.
const maxDDLAttempts = 16

// localSchema is SharedSchema for a store that one process owns: the
// version lives in memory and the engine's DDL lock makes every commit win.
type localSchema struct {
	kv      kv.KV
	mu      sync.Mutex
	version int64
}

func (l *localSchema) SchemaVersion(context.Context) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.version, nil
}

func (l *localSchema) ReadSchema(ctx context.Context) (kv.SchemaMeta, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cat, err := l.kv.GetMeta(ctx, metaCatalog)
	if err != nil {
		return kv.SchemaMeta{}, err
	}
	salts, err := l.kv.GetMeta(ctx, metaSalts)
	if err != nil {
		return kv.SchemaMeta{}, err
	}
	return kv.SchemaMeta{Version: l.version, Catalog: cat, Salts: salts}, nil
}

func (l *localSchema) CommitSchema(ctx context.Context, prev int64, m kv.SchemaMeta) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if prev != l.version {
		return false, nil
	}
	// Salts first: a table id with a salt but no catalog entry is harmless.
	if err := l.kv.PutMeta(ctx, metaSalts, m.Salts); err != nil {
		return false, fmt.Errorf("persist salts: %w", err)
	}
	if err := l.kv.PutMeta(ctx, metaCatalog, m.Catalog); err != nil {
		return false, fmt.Errorf("persist catalog: %w", err)
	}
	l.version++
	return true, nil
}

// loadState reads the committed schema into a new state.
func (e *Engine) loadState(ctx context.Context) (*state, error) {
	m, err := e.meta.ReadSchema(ctx)
	if err != nil {
		return nil, fmt.Errorf("widecolumn: load catalog: %w", err)
	}
	cat := schema.NewWithOptions(e.opts.Schema)
	if m.Catalog != nil {
		loaded, err := schema.UnmarshalCatalog(m.Catalog)
		if err != nil {
			return nil, fmt.Errorf("widecolumn: decode catalog: %w", err)
		}
		cat = loaded.WithOptions(e.opts.Schema)
	}
	salts := map[string]int{}
	if m.Salts != nil {
		if err := json.Unmarshal(m.Salts, &salts); err != nil {
			return nil, fmt.Errorf("widecolumn: decode salts: %w", err)
		}
	}
	st, err := e.newState(cat, salts)
	if err != nil {
		return nil, err
	}
	st.version = m.Version
	return st, nil
}

// commitSchema encodes cat and salts and commits them over version prev.
func (e *Engine) commitSchema(ctx context.Context, prev int64, cat *schema.Catalog, salts map[string]int) (bool, error) {
	raw, err := json.Marshal(cat)
	if err != nil {
		return false, fmt.Errorf("encode catalog: %w", err)
	}
	sraw, err := json.Marshal(salts)
	if err != nil {
		return false, fmt.Errorf("encode salts: %w", err)
	}
	ok, err := e.meta.CommitSchema(ctx, prev, kv.SchemaMeta{Version: prev + 1, Catalog: raw, Salts: sraw})
	if err != nil {
		return false, fmt.Errorf("persist catalog: %w", err)
	}
	return ok, nil
}

// SchemaVersion returns the committed schema version this engine has
// loaded (it grows by one with every DDL committed by any engine).
func (e *Engine) SchemaVersion() int64 { return e.st.Load().version }

// OnSchemaChange registers fn to be called with every schema change the
// engine picks up from other engines sharing its store (its own DDL is
// reported in the statement's result instead).
func (e *Engine) OnSchemaChange(fn func(*bindings.SchemaChange)) {
	e.listenMu.Lock()
	e.listeners = append(e.listeners, fn)
	e.listenMu.Unlock()
}

// Refresh reloads the catalog when another engine has committed a newer
// one; it reports whether the loaded schema changed.
func (e *Engine) Refresh(ctx context.Context) (bool, error) {
	v, err := e.meta.SchemaVersion(ctx)
	if err != nil {
		return false, fmt.Errorf("widecolumn: read schema version: %w", err)
	}
	before := e.st.Load().version
	if v == before {
		return false, nil
	}
	e.ddlMu.Lock()
	changes, err := e.reloadLocked(ctx)
	e.ddlMu.Unlock()
	e.notify(changes)
	return e.st.Load().version != before, err
}

// reloadLocked loads the committed schema and swaps it in (ddlMu held). It
// returns the changes found, for notify once ddlMu is released.
func (e *Engine) reloadLocked(ctx context.Context) ([]*bindings.SchemaChange, error) {
	old := e.st.Load()
	st, err := e.loadState(ctx)
	if err != nil {
		return nil, err
	}
	if st.version == old.version {
		return nil, nil
	}
	e.storeState(st)
	changes := diffCatalogs(old.cat, st.cat)
	e.log.Info("widecolumn: loaded schema committed elsewhere", "version", st.version, "changes", len(changes))
	return changes, nil
}

// notify calls the OnSchemaChange listeners with each change.
func (e *Engine) notify(changes []*bindings.SchemaChange) {
	if len(changes) == 0 {
		return
	}
	e.listenMu.Lock()
	fns := e.listeners
	e.listenMu.Unlock()
	for _, ch := range changes {
		for _, fn := range fns {
			fn(ch)
		}
	}
}

// retryFresh runs op; when it fails with an invalid-request error (an
// unknown keyspace or table among them) and the store's schema has moved
// on, it reloads the schema and runs op once more.
func retryFresh[T any](ctx context.Context, e *Engine, op func() (T, error)) (T, error) {
	before := e.st.Load().version
	v, err := op()
	if err == nil || !e.shared {
		return v, err
	}
	if be := (*bindings.Error)(nil); !errors.As(err, &be) || be.Code != bindings.CodeInvalid {
		return v, err
	}
	if _, rerr := e.Refresh(ctx); rerr != nil || e.st.Load().version == before {
		return v, err
	}
	return op()
}

// pollSchema refreshes the schema every interval until stop closes.
func (e *Engine) pollSchema(interval time.Duration, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	failing := false
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*interval+5*time.Second)
		_, err := e.Refresh(ctx)
		cancel()
		switch {
		case err != nil && !failing:
			e.log.Warn("widecolumn: schema refresh failing", "err", err)
			failing = true
		case err == nil && failing:
			e.log.Info("widecolumn: schema refresh recovered")
			failing = false
		}
	}
}

// diffCatalogs lists the schema changes from old to cur, keyspaces before
// their tables on creation and after them on drop.
func diffCatalogs(old, cur *schema.Catalog) []*bindings.SchemaChange {
	var out []*bindings.SchemaChange
	add := func(typ bindings.ChangeType, target bindings.ChangeTarget, ks, obj string) {
		out = append(out, &bindings.SchemaChange{Type: typ, Target: target, Keyspace: ks, Object: obj})
	}
	for _, name := range cur.KeyspaceNames() {
		ks, was := cur.Keyspaces[name], old.Keyspace(name)
		switch {
		case was == nil:
			add(bindings.Created, bindings.TargetKeyspace, name, "")
		case was.CreateStatement() != ks.CreateStatement():
			add(bindings.Updated, bindings.TargetKeyspace, name, "")
		}
		for _, tn := range ks.TableNames() {
			t := ks.Tables[tn]
			var prev *schema.Table
			if was != nil {
				prev = was.Tables[tn]
			}
			switch {
			case prev == nil || prev.ID != t.ID:
				if prev != nil {
					add(bindings.Dropped, bindings.TargetTable, name, tn)
				}
				add(bindings.Created, bindings.TargetTable, name, tn)
			case prev.CreateStatement() != t.CreateStatement() || indexSignature(prev) != indexSignature(t):
				add(bindings.Updated, bindings.TargetTable, name, tn)
			}
		}
		for _, tn := range ks.TypeNames() {
			var prev *schema.UserType
			if was != nil {
				prev = was.Types[tn]
			}
			switch {
			case prev == nil:
				add(bindings.Created, bindings.TargetType, name, tn)
			case schema.DescribeType(prev) != schema.DescribeType(ks.Types[tn]):
				add(bindings.Updated, bindings.TargetType, name, tn)
			}
		}
	}
	out = append(out, diffUDFs(old, cur)...)
	for _, name := range old.KeyspaceNames() {
		was, ks := old.Keyspaces[name], cur.Keyspace(name)
		for _, tn := range was.TableNames() {
			if ks == nil || ks.Tables[tn] == nil {
				add(bindings.Dropped, bindings.TargetTable, name, tn)
			}
		}
		for _, tn := range was.TypeNames() {
			if ks == nil || ks.Types[tn] == nil {
				add(bindings.Dropped, bindings.TargetType, name, tn)
			}
		}
		if ks == nil {
			add(bindings.Dropped, bindings.TargetKeyspace, name, "")
		}
	}
	return out
}

// indexSignature names a table's indexes (an index created or dropped
// elsewhere is an UPDATED TABLE change, as Cassandra reports it).
func indexSignature(t *schema.Table) string {
	var b strings.Builder
	for _, ix := range t.Indexes {
		b.WriteString(ix.ID)
		b.WriteByte(',')
	}
	return b.String()
}
