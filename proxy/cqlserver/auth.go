package cqlserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/dohyo/dohyo/auth"
	"github.com/dohyo/dohyo/bindings"
)

// PasswordAuthenticatorClass is the class name of Cassandra's built-in
// password authenticator; drivers answer it with SASL PLAIN credentials
// (gocql's PasswordAuthenticator, the Python driver's PlainTextAuthProvider).
const PasswordAuthenticatorClass = "org.apache.cassandra.auth.PasswordAuthenticator"

// PasswordAuthenticator authenticates clients with SASL PLAIN against
// roles' bcrypt password hashes (an auth.Authenticator: dohyo's roles), as
// Cassandra's PasswordAuthenticator does.
type PasswordAuthenticator struct{ a auth.Authenticator }

var _ Authenticator = (*PasswordAuthenticator)(nil)

// NewPasswordAuthenticator checks every hash and returns an authenticator
// for users (name -> bcrypt hash, as printed by `dohyo config
// hash-password` or htpasswd -B), all of them login superusers.
func NewPasswordAuthenticator(users map[string]string) (*PasswordAuthenticator, error) {
	if len(users) == 0 {
		return nil, errors.New("password authenticator: no users")
	}
	m, err := auth.New(auth.Config{Bootstrap: users})
	if err != nil {
		return nil, fmt.Errorf("password authenticator: %w", err)
	}
	return NewRoleAuthenticator(m), nil
}

// NewRoleAuthenticator returns a SASL PLAIN authenticator checking
// credentials with a (the roles of an auth.Manager).
func NewRoleAuthenticator(a auth.Authenticator) *PasswordAuthenticator {
	return &PasswordAuthenticator{a: a}
}

// Class implements Authenticator.
func (a *PasswordAuthenticator) Class() string { return PasswordAuthenticatorClass }

// NewSASL implements Authenticator.
func (a *PasswordAuthenticator) NewSASL(net.Addr) SASL { return plainExchange{a} }

// plainExchange is one SASL PLAIN exchange: a single client token, no
// challenge.
type plainExchange struct{ a *PasswordAuthenticator }

// Evaluate implements SASL.
func (p plainExchange) Evaluate(ctx context.Context, token []byte) ([]byte, bool, error) {
	user, pass, err := decodePlain(token)
	if err != nil {
		return nil, false, err
	}
	if _, err := p.a.a.Authenticate(ctx, user, pass); err != nil {
		return nil, false, errors.New(bindings.AsError(err).Message)
	}
	return nil, true, nil
}

// decodePlain splits a SASL PLAIN token (RFC 4616):
// [authzid] NUL authcid NUL passwd. Drivers send an empty authzid.
func decodePlain(token []byte) (user, pass string, err error) {
	parts := bytes.Split(token, []byte{0})
	switch len(parts) {
	case 3:
		user, pass = string(parts[1]), string(parts[2])
	case 2:
		user, pass = string(parts[0]), string(parts[1])
	default:
		return "", "", errors.New("Invalid SASL PLAIN token: expected [authzid] NUL username NUL password")
	}
	if user == "" {
		return "", "", errors.New("Authentication ID must not be null")
	}
	if pass == "" {
		return "", "", errors.New("Password must not be null")
	}
	return user, pass, nil
}

// CheckPassword tells whether password is user's and user may log in,
// with the same cost and timing as a SASL PLAIN exchange (for HTTP's
// token endpoint).
func (a *PasswordAuthenticator) CheckPassword(user, password string) bool {
	if user == "" || password == "" {
		return false
	}
	_, err := a.a.Authenticate(context.Background(), user, password)
	return err == nil
}
