package cqlserver

import (
	"context"
	"net"

	"github.com/dohyo/dohyo/bindings"
)

// RelayAuthenticator authenticates clients against the relayed Cassandra
// cluster itself (auth pass-through): a client's SASL PLAIN credentials are
// accepted when Cassandra accepts them on a backend connection, which then
// serves that client's relayed requests. Use it when Cassandra runs
// PasswordAuthenticator and dohyo has no users of its own. Relay is the
// relayer's bindings.PlainAuthenticator capability.
type RelayAuthenticator struct{ Relay bindings.PlainAuthenticator }

var _ Authenticator = RelayAuthenticator{}

// Class implements Authenticator.
func (RelayAuthenticator) Class() string { return PasswordAuthenticatorClass }

// NewSASL implements Authenticator.
func (a RelayAuthenticator) NewSASL(net.Addr) SASL { return relayExchange{a.Relay} }

type relayExchange struct{ rl bindings.PlainAuthenticator }

// Evaluate implements SASL: one PLAIN token, checked by Cassandra.
func (x relayExchange) Evaluate(ctx context.Context, token []byte) ([]byte, bool, error) {
	user, pass, err := decodePlain(token)
	if err != nil {
		return nil, false, err
	}
	if err := x.rl.AuthenticatePlain(ctx, user, pass); err != nil {
		return nil, false, err
	}
	return nil, true, nil
}
