package kvfault

import (
	"context"
	"slices"

	"github.com/dohyo/dohyo/engine/kv"
)

// Wrap returns a KV that asks in before every call to inner and fails the
// call, without making it, when in returns an error (a failed scan step
// ends the iteration with that error). The result has the optional
// capabilities inner has (kv.CondKV and kv.SharedSchema by type; the
// boolean ones by value), so the engine treats it as it would inner.
func Wrap(inner kv.KV, in Injector) kv.KV {
	b := &base{inner: inner, in: in}
	cond, hasCond := inner.(kv.CondKV)
	shared, hasShared := inner.(kv.SharedSchema)
	switch {
	case hasCond && hasShared:
		return &condShared{base: b, condPart: condPart{b, cond}, sharedPart: sharedPart{b, shared}}
	case hasCond:
		return &condOnly{base: b, condPart: condPart{b, cond}}
	case hasShared:
		return &sharedOnly{base: b, sharedPart: sharedPart{b, shared}}
	}
	return b
}

type condShared struct {
	*base
	condPart
	sharedPart
}

type condOnly struct {
	*base
	condPart
}

type sharedOnly struct {
	*base
	sharedPart
}

var (
	_ kv.KV           = (*base)(nil)
	_ kv.AtomicKV     = (*base)(nil)
	_ kv.CopyingKV    = (*base)(nil)
	_ kv.SettlingKV   = (*base)(nil)
	_ kv.CondKV       = (*condOnly)(nil)
	_ kv.SharedSchema = (*sharedOnly)(nil)
	_ kv.CondKV       = (*condShared)(nil)
	_ kv.SharedSchema = (*condShared)(nil)
)

// base forwards the KV interface and the boolean capabilities.
type base struct {
	inner kv.KV
	in    Injector
}

// Unwrap returns the wrapped store (for capabilities the engine does not
// use, found by callers that look through wrappers).
func (b *base) Unwrap() any { return b.inner }

func (b *base) CreateTable(ctx context.Context, t *kv.TableSpec) error {
	if err := check(b.in, Call{Op: OpCreateTable, Table: tableName(t)}); err != nil {
		return err
	}
	return b.inner.CreateTable(ctx, t)
}

func (b *base) DropTable(ctx context.Context, t *kv.TableSpec) error {
	if err := check(b.in, Call{Op: OpDropTable, Table: tableName(t)}); err != nil {
		return err
	}
	return b.inner.DropTable(ctx, t)
}

func (b *base) TruncateTable(ctx context.Context, t *kv.TableSpec) error {
	if err := check(b.in, Call{Op: OpTruncateTable, Table: tableName(t)}); err != nil {
		return err
	}
	return b.inner.TruncateTable(ctx, t)
}

func (b *base) Apply(ctx context.Context, muts []kv.Mutation) error {
	c := Call{Op: OpApply}
	for _, m := range muts {
		if name := tableName(m.Table); !slices.Contains(c.Tables, name) {
			c.Tables = append(c.Tables, name)
		}
	}
	if len(c.Tables) > 0 {
		c.Table = c.Tables[0]
	}
	if err := check(b.in, c); err != nil {
		return err
	}
	return b.inner.Apply(ctx, muts)
}

func (b *base) Get(ctx context.Context, t *kv.TableSpec, keys [][]byte) ([]kv.Row, error) {
	if err := check(b.in, Call{Op: OpGet, Table: tableName(t)}); err != nil {
		return nil, err
	}
	return b.inner.Get(ctx, t, keys)
}

func (b *base) Scan(ctx context.Context, t *kv.TableSpec, r kv.ScanRange) (kv.RowIterator, error) {
	name := tableName(t)
	if err := check(b.in, Call{Op: OpScan, Table: name}); err != nil {
		return nil, err
	}
	it, err := b.inner.Scan(ctx, t, r)
	if err != nil {
		return nil, err
	}
	return &iter{inner: it, in: b.in, table: name}, nil
}

func (b *base) GetMeta(ctx context.Context, key string) ([]byte, error) {
	if err := check(b.in, Call{Op: OpGetMeta}); err != nil {
		return nil, err
	}
	return b.inner.GetMeta(ctx, key)
}

func (b *base) PutMeta(ctx context.Context, key string, value []byte) error {
	if err := check(b.in, Call{Op: OpPutMeta}); err != nil {
		return err
	}
	return b.inner.PutMeta(ctx, key, value)
}

func (b *base) Close() error { return b.inner.Close() }

func (b *base) AppliesAtomically() bool {
	a, ok := b.inner.(kv.AtomicKV)
	return ok && a.AppliesAtomically()
}

func (b *base) CopiesArguments() bool {
	c, ok := b.inner.(kv.CopyingKV)
	return ok && c.CopiesArguments()
}

func (b *base) SettlesOnSuccess() bool {
	s, ok := b.inner.(kv.SettlingKV)
	return ok && s.SettlesOnSuccess()
}

// iter fails a scan step when the injector says so; the inner iterator is
// still closed by Close.
type iter struct {
	inner kv.RowIterator
	in    Injector
	table string
	err   error
}

func (it *iter) Next(ctx context.Context) (kv.Row, bool) {
	if it.err != nil {
		return kv.Row{}, false
	}
	if err := check(it.in, Call{Op: OpNext, Table: it.table}); err != nil {
		it.err = err
		return kv.Row{}, false
	}
	return it.inner.Next(ctx)
}

func (it *iter) Err() error {
	if it.err != nil {
		return it.err
	}
	return it.inner.Err()
}

func (it *iter) Close() error { return it.inner.Close() }

type condPart struct {
	b     *base
	inner kv.CondKV
}

func (c condPart) CellGet(ctx context.Context, key []byte) ([]byte, error) {
	if err := check(c.b.in, Call{Op: OpCellGet}); err != nil {
		return nil, err
	}
	return c.inner.CellGet(ctx, key)
}

func (c condPart) CellSwap(ctx context.Context, key, expected, value []byte) (bool, error) {
	if err := check(c.b.in, Call{Op: OpCellSwap}); err != nil {
		return false, err
	}
	return c.inner.CellSwap(ctx, key, expected, value)
}

type sharedPart struct {
	b     *base
	inner kv.SharedSchema
}

func (s sharedPart) SchemaVersion(ctx context.Context) (int64, error) {
	if err := check(s.b.in, Call{Op: OpSchema}); err != nil {
		return 0, err
	}
	return s.inner.SchemaVersion(ctx)
}

func (s sharedPart) ReadSchema(ctx context.Context) (kv.SchemaMeta, error) {
	if err := check(s.b.in, Call{Op: OpSchema}); err != nil {
		return kv.SchemaMeta{}, err
	}
	return s.inner.ReadSchema(ctx)
}

func (s sharedPart) CommitSchema(ctx context.Context, prev int64, m kv.SchemaMeta) (bool, error) {
	if err := check(s.b.in, Call{Op: OpSchema}); err != nil {
		return false, err
	}
	return s.inner.CommitSchema(ctx, prev, m)
}

// EngineDefaults forwards the store's engine settings (zero without any).
func (b *base) EngineDefaults() kv.Defaults {
	if d, ok := b.inner.(kv.Defaulter); ok {
		return d.EngineDefaults()
	}
	return kv.Defaults{}
}
