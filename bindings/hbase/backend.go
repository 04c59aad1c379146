package hbase

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/engine"
	"github.com/dohyo/dohyo/schema"
)

// Backend is the HBase backend: the wide-column CQL engine (package engine) on a Store.
type Backend struct {
	eng   *engine.Engine
	store *Store
	cfg   Config
}

var (
	_ bindings.Backend       = (*Backend)(nil)
	_ bindings.Preparer      = (*Backend)(nil)
	_ bindings.CatalogSource = (*Backend)(nil)
	_ bindings.Pinger        = (*Backend)(nil)
)

// Open connects to HBase, creates the catalog table if needed and loads the
// catalog. ctx bounds the connection: with HBase unreachable Open fails when
// it ends (or after Config.OpTimeout) with an Unavailable error.
func Open(ctx context.Context, cfg Config) (*Backend, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	st, err := OpenStore(ctx, StoreOptions{
		ZooKeeper:  cfg.ZooKeeper,
		ZKRoot:     cfg.ZKRoot,
		Catalog:    cfg.Catalog,
		OpTimeout:  cfg.OpTimeout,
		DDLTimeout: cfg.DDLTimeout,
		Logger:     cfg.Logger,
	})
	if err != nil {
		return nil, err
	}
	eopts := cfg.Engine
	eopts.Salt = cfg.Salt
	eopts.TableOptions = maps.Clone(cfg.Engine.TableOptions)
	if eopts.TableOptions == nil {
		eopts.TableOptions = map[string]string{}
	}
	maps.Copy(eopts.TableOptions, cfg.Table.toMap())
	if eopts.Logger == nil {
		eopts.Logger = cfg.Logger
	}
	// An HBase table drop (disable + delete) takes ~0.5 s: DROP TABLE and
	// DROP KEYSPACE answer after the catalog commit, which makes the
	// tables invisible to every instance at once (a re-created table has a
	// new id, hence a new HBase table), and the HBase tables are removed
	// in the background.
	eopts.DropInBackground = true
	eng, err := engine.New(ctx, st, eopts)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("hbase: open engine: %w", err), st.Close())
	}
	return &Backend{eng: eng, store: st, cfg: cfg}, nil
}

// OpenURL opens a backend described by a URL (see ParseURL).
func OpenURL(ctx context.Context, rawURL string) (*Backend, error) {
	cfg, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	return Open(ctx, cfg)
}

// Engine returns the CQL engine (tests and benchmarks).
func (b *Backend) Engine() *engine.Engine { return b.eng }

// Store returns the KV store under the engine.
func (b *Backend) Store() *Store { return b.store }

// Config returns the configuration the backend runs with (defaults filled).
func (b *Backend) Config() Config { return b.cfg }

// Execute runs one statement.
func (b *Backend) Execute(ctx context.Context, req *bindings.Request) (*bindings.Result, error) {
	return b.eng.Execute(ctx, req)
}

// Batch runs a batch.
func (b *Backend) Batch(ctx context.Context, req *bindings.BatchRequest) (*bindings.Result, error) {
	return b.eng.Batch(ctx, req)
}

// Prepare describes a statement.
func (b *Backend) Prepare(ctx context.Context, keyspace, query string) (*bindings.Prepared, error) {
	return b.eng.Prepare(ctx, keyspace, query)
}

// Catalog returns the engine's schema snapshot.
func (b *Backend) Catalog(ctx context.Context) (*schema.Catalog, error) {
	return b.eng.Catalog(ctx)
}

// OnSchemaChange registers fn for the schema changes that other dohyo
// instances sharing this HBase commit (see engine.Engine.OnSchemaChange).
func (b *Backend) OnSchemaChange(fn func(*bindings.SchemaChange)) { b.eng.OnSchemaChange(fn) }

// Ping reports whether the engine is open and HBase answers a read of the
// catalog table within the op timeout (readiness).
func (b *Backend) Ping(ctx context.Context) error {
	if err := b.eng.Ping(ctx); err != nil {
		return err
	}
	return b.store.Ping(ctx)
}

// Close closes the engine, which closes the store under it.
// WaitDrops waits for the background drops of the HBase tables (and
// their coordination cells) of tables dropped so far.
func (b *Backend) WaitDrops() { b.eng.WaitDrops() }

func (b *Backend) Close() error {
	return b.eng.Close()
}
