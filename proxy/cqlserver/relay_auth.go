package cqlserver

import (
	"context"
	"errors"
	"net"
)

// RelayAuthenticator authenticates clients against the relayed Cassandra
// cluster itself (auth pass-through): a client's SASL PLAIN credentials are
// accepted when Cassandra accepts them on a backend connection, which then
// serves that client's relayed requests. Use it when Cassandra runs
// PasswordAuthenticator and dohyo has no users of its own.
type RelayAuthenticator struct{ Relay *Relay }

var _ Authenticator = RelayAuthenticator{}

// Class implements Authenticator.
func (RelayAuthenticator) Class() string { return PasswordAuthenticatorClass }

// NewSASL implements Authenticator.
func (a RelayAuthenticator) NewSASL(net.Addr) SASL { return relayExchange{a.Relay} }

type relayExchange struct{ rl *Relay }

// Evaluate implements SASL: one PLAIN token, checked by Cassandra.
func (x relayExchange) Evaluate(ctx context.Context, token []byte) ([]byte, bool, error) {
	user, pass, err := decodePlain(token)
	if err != nil {
		return nil, false, err
	}
	if err := x.rl.Authenticate(ctx, user, pass); err != nil {
		return nil, false, err
	}
	return nil, true, nil
}

// Authenticate checks credentials by opening (or reusing) a connection to
// a node with them.
func (rl *Relay) Authenticate(ctx context.Context, user, pass string) error {
	creds := &credentials{user: user, password: pass}
	var errs []error
	for _, node := range rl.pickNodes() {
		_, err := rl.conn(ctx, poolKey{node: node, version: 4, creds: creds.key()}, creds)
		if err == nil {
			return nil
		}
		if be := asCQLError(err); be != nil && be.Message != "" && isAuthFailure(be.Code) {
			return errors.New(be.Message) // Cassandra's own words
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
