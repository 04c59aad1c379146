package hbase

import (
	"context"

	"github.com/dohyo/dohyo/bindings"
)

// The HBase backend's optional capabilities (bindings/capabilities.go).
var (
	_ bindings.SystemNamer       = (*Backend)(nil)
	_ bindings.ServerVersioner   = (*Backend)(nil)
	_ bindings.ServerDescriber   = (*Backend)(nil)
	_ bindings.SchemaWatcher     = (*Backend)(nil)
	_ bindings.MetaStoreProvider = (*Backend)(nil)
	_ bindings.TierProvider      = (*Backend)(nil)
)

// metaCAS is auth.CASStore's extra method: roles kept in HBase are
// compare-and-set, so instances sharing them never lose a change.
type metaCAS interface {
	bindings.MetaStore
	CompareAndSetMeta(ctx context.Context, key string, old, value []byte) (bool, error)
}

var _ metaCAS = (*Store)(nil)

// MetaStore returns the store dohyo's roles live in: the HBase catalog,
// shared by every instance of the tier.
func (b *Backend) MetaStore() bindings.MetaStore { return b.store }

// TierRegistry returns the tier's member rows in the shared catalog.
func (b *Backend) TierRegistry() bindings.TierRegistry { return b.store }
