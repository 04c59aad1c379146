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
// call. Calls are made at set-up, one at a time; each replaces the route
// table whole, so requests (and relays already watching schema events)
// read either the old table or the new one, without locks.
func (c *Coordinator) AddVirtual(keyspace string, b bindings.Backend) {
	old := c.table()
	backends, routes := maps.Clone(old.backends), maps.Clone(old.routes) // copy on write
	backends[VirtualBackendName] = b
	routes[keyspace] = VirtualBackendName
	c.tbl.Store(newRouteTable(backends, routes))
}
