package embedded

import "github.com/dohyo/dohyo/bindings"

// The embedded backend's optional capabilities (bindings/capabilities.go).
var (
	_ bindings.SystemNamer       = (*Backend)(nil)
	_ bindings.ServerDescriber   = (*Backend)(nil)
	_ bindings.MetaStoreProvider = (*Backend)(nil)
)

// MetaStore returns the Pebble store dohyo's roles live in.
func (b *Backend) MetaStore() bindings.MetaStore { return b.store }
