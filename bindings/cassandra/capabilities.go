package cassandra

import "github.com/dohyo/dohyo/bindings"

// The Cassandra backend's optional capabilities (bindings/capabilities.go).
var (
	_ bindings.ServerVersioner    = (*Backend)(nil)
	_ bindings.ServerDescriber    = (*Backend)(nil)
	_ bindings.Relayable          = (*Backend)(nil)
	_ bindings.CatalogInvalidator = (*Backend)(nil)
)

// RelayTarget is the cluster dohyo's CQL server relays this backend's
// keyspaces to (DESIGN D2), with the relay settings of the backend URL.
func (b *Backend) RelayTarget() bindings.RelayTarget {
	return bindings.RelayTarget{
		Hosts:           b.Addrs(),
		ConnsPerNode:    b.cfg.RelayConns,
		ConnectTimeout:  b.cfg.ConnectTimeout,
		Heartbeat:       b.cfg.Heartbeat,
		SuspectAfter:    b.cfg.SuspectAfter,
		SchemaAgreement: b.cfg.SchemaAgreement,
		User:            b.cfg.User,
		Password:        b.cfg.Password,
	}
}
