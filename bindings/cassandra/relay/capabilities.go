package relay

import (
	"context"

	"github.com/dohyo/dohyo/bindings"
)

// The relay's bindings capabilities: the CQL server finds them by type
// assertion on its bindings.FrameRelayer.
var (
	_ bindings.FrameRelayer       = (*Relay)(nil)
	_ bindings.PreparedFinder     = (*Relay)(nil)
	_ bindings.PlainAuthenticator = (*Relay)(nil)
	_ bindings.AuthRequirer       = (*Relay)(nil)
	_ bindings.TraceEventSource   = (*Relay)(nil)
	_ bindings.SchemaRowSource    = (*Relay)(nil)
)

// PreparedStatement implements bindings.PreparedFinder.
func (rl *Relay) PreparedStatement(id []byte) (bindings.RelayPrepared, bool) {
	rp, ok := rl.Prepared(id)
	if !ok {
		return bindings.RelayPrepared{}, false
	}
	return bindings.RelayPrepared{Query: rp.Query, Keyspace: rp.Keyspace, Group: rp.group}, true
}

// AuthenticatePlain implements bindings.PlainAuthenticator (Authenticate).
func (rl *Relay) AuthenticatePlain(ctx context.Context, user, password string) error {
	return rl.Authenticate(ctx, user, password)
}
