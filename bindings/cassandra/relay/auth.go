package relay

import (
	"context"
	"errors"
)

// Authenticate checks credentials by opening (or reusing) a connection to
// a node with them.
func (rl *Relay) Authenticate(ctx context.Context, user, pass string) error {
	creds := &Credentials{User: user, Password: pass}
	var errs []error
	for _, node := range rl.pickNodes(nil) {
		_, err := rl.conn(ctx, poolKey{node: node, version: 4, creds: credsKey(creds)}, creds)
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
