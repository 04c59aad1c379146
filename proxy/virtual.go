package proxy

import (
	"maps"

	"github.com/dohyo/dohyo/bindings"
)

// VirtualBackendName is the backend name under which AddVirtual registers
// backends served inside dohyo itself.
const VirtualBackendName = "dohyo-virtual"

// AddVirtual routes keyspace to b, a backend served inside dohyo (the CQL
// server's system keyspaces: system, system_schema, ...). Every virtual
// keyspace shares one backend name, so b must be the same value on every
// call. It must be called before the coordinator serves requests: routes
// are read without locks.
func (c *Coordinator) AddVirtual(keyspace string, b bindings.Backend) {
	backends := maps.Clone(c.backends) // never mutate the caller's Config map
	backends[VirtualBackendName] = b
	c.backends = backends
	c.routes[keyspace] = VirtualBackendName
}
