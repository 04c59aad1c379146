package cqlserver

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"sync"

	"golang.org/x/crypto/bcrypt"
)

// PasswordAuthenticatorClass is the class name of Cassandra's built-in
// password authenticator; drivers answer it with SASL PLAIN credentials
// (gocql's PasswordAuthenticator, the Python driver's PlainTextAuthProvider).
const PasswordAuthenticatorClass = "org.apache.cassandra.auth.PasswordAuthenticator"

// PasswordAuthenticator authenticates clients with SASL PLAIN against
// bcrypt password hashes, as Cassandra's PasswordAuthenticator does.
type PasswordAuthenticator struct {
	users map[string][]byte // user name -> bcrypt hash
	dummy []byte            // compared for unknown users: equal timing

	// verified remembers, per user, a keyed hash (HMAC with a random
	// per-process key) of the last password that matched, so that a
	// driver opening many connections pays bcrypt's cost once instead of
	// per connection.
	key      [32]byte
	mu       sync.Mutex
	verified map[string][sha256.Size]byte
}

var _ Authenticator = (*PasswordAuthenticator)(nil)

// NewPasswordAuthenticator checks every hash and returns an authenticator
// for users (name -> bcrypt hash, as printed by `dohyo config
// hash-password` or htpasswd -B).
func NewPasswordAuthenticator(users map[string]string) (*PasswordAuthenticator, error) {
	if len(users) == 0 {
		return nil, errors.New("password authenticator: no users")
	}
	a := &PasswordAuthenticator{users: make(map[string][]byte, len(users)), verified: map[string][sha256.Size]byte{}}
	cost := bcrypt.MinCost
	for name, hash := range users {
		if name == "" {
			return nil, errors.New("password authenticator: empty user name")
		}
		c, err := bcrypt.Cost([]byte(hash))
		if err != nil {
			return nil, fmt.Errorf("password authenticator: user %s: not a bcrypt hash: %w", name, err)
		}
		cost = max(cost, c)
		a.users[name] = []byte(hash)
	}
	// The dummy hash has the highest cost in use, so probing for user
	// names by timing learns nothing.
	dummy, err := bcrypt.GenerateFromPassword([]byte("dohyo-no-such-user"), cost)
	if err != nil {
		return nil, fmt.Errorf("password authenticator: %w", err)
	}
	a.dummy = dummy
	rand.Read(a.key[:])
	return a, nil
}

// Class implements Authenticator.
func (a *PasswordAuthenticator) Class() string { return PasswordAuthenticatorClass }

// NewSASL implements Authenticator.
func (a *PasswordAuthenticator) NewSASL(net.Addr) SASL { return plainExchange{a} }

// plainExchange is one SASL PLAIN exchange: a single client token, no
// challenge.
type plainExchange struct{ a *PasswordAuthenticator }

// Evaluate implements SASL.
func (p plainExchange) Evaluate(_ context.Context, token []byte) ([]byte, bool, error) {
	user, pass, err := decodePlain(token)
	if err != nil {
		return nil, false, err
	}
	if !p.a.check(user, pass) {
		return nil, false, fmt.Errorf("Provided username %s and/or password are incorrect", user)
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

func (a *PasswordAuthenticator) check(user, pass string) bool {
	hash, ok := a.users[user]
	mac := hmac.New(sha256.New, a.key[:])
	mac.Write([]byte(pass))
	var sum [sha256.Size]byte
	mac.Sum(sum[:0])
	if ok {
		a.mu.Lock()
		prev, seen := a.verified[user]
		a.mu.Unlock()
		if seen && subtle.ConstantTimeCompare(prev[:], sum[:]) == 1 {
			return true
		}
	} else {
		hash = a.dummy
	}
	if bcrypt.CompareHashAndPassword(hash, []byte(pass)) != nil || !ok {
		return false
	}
	a.mu.Lock()
	a.verified[user] = sum
	a.mu.Unlock()
	return true
}
