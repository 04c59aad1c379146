package embedded

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/engine"
	"github.com/dohyo/dohyo/schema"
)

// Config configures an embedded backend. The zero value is an in-memory
// store with default tuning.
type Config struct {
	// Dir is the data directory; "" keeps everything in memory.
	Dir string
	// CacheSize is Pebble's block cache in bytes (0: 64 MiB).
	CacheSize int64
	// MemTableSize is one Pebble memtable in bytes (0: 16 MiB).
	MemTableSize uint64
	// Sync fsyncs the WAL on every write (see StoreOptions for durability).
	Sync bool
	// Format is the layout of a new store (see StoreOptions.Format).
	Format Format
	// Engine configures the CQL engine (salt buckets, clock, caches). A nil
	// Engine.Logger is replaced by Logger.
	Engine engine.Options
	// Logger receives operational messages; nil discards them.
	Logger *slog.Logger
}

// Backend is the embedded backend: the wide-column engine on a Pebble store,
// plus a fault-injection hook for tests.
type Backend struct {
	eng   executor
	wc    *engine.Engine // eng, when opened by Open
	store *Store
	cfg   Config // as opened (DescribeServer)

	faultMu sync.Mutex                  // serialises InjectFault and removals
	faults  atomic.Pointer[[]*faultRef] // nil when no fault is installed
}

// executor is what Backend delegates to: the wide-column engine, or a fake in
// fault-injection tests.
type executor interface {
	bindings.Backend
	bindings.Preparer
	bindings.CatalogSource
	bindings.Pinger
}

var (
	_ executor = (*engine.Engine)(nil)

	_ bindings.Backend       = (*Backend)(nil)
	_ bindings.Preparer      = (*Backend)(nil)
	_ bindings.CatalogSource = (*Backend)(nil)
	_ bindings.Pinger        = (*Backend)(nil)
)

// Open opens the store and the engine on it.
func Open(ctx context.Context, cfg Config) (*Backend, error) {
	st, err := OpenStore(StoreOptions{
		Dir:          cfg.Dir,
		CacheSize:    cfg.CacheSize,
		MemTableSize: cfg.MemTableSize,
		Sync:         cfg.Sync,
		Logger:       cfg.Logger,
		Format:       cfg.Format,
	})
	if err != nil {
		return nil, err
	}
	eopts := cfg.Engine
	if eopts.Logger == nil {
		eopts.Logger = cfg.Logger
	}
	eng, err := engine.New(ctx, st, eopts)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("embedded: %w", err), st.Close())
	}
	return &Backend{eng: eng, wc: eng, store: st, cfg: cfg}, nil
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
func (b *Backend) Engine() *engine.Engine { return b.wc }

// Store returns the KV store under the engine.
func (b *Backend) Store() *Store { return b.store }

// Execute runs one statement.
func (b *Backend) Execute(ctx context.Context, req *bindings.Request) (*bindings.Result, error) {
	if fs := b.faults.Load(); fs != nil {
		return b.executeFaulty(ctx, *fs, req)
	}
	return b.eng.Execute(ctx, req)
}

// Batch runs a batch.
func (b *Backend) Batch(ctx context.Context, req *bindings.BatchRequest) (*bindings.Result, error) {
	if fs := b.faults.Load(); fs != nil {
		return b.batchFaulty(ctx, *fs, req)
	}
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

// Ping reports whether the backend is open.
func (b *Backend) Ping(ctx context.Context) error {
	return b.eng.Ping(ctx)
}

// Close closes the engine, which closes the store under it.
func (b *Backend) Close() error {
	return b.eng.Close()
}
