package graphql

import (
	"context"
	"errors"
	"fmt"

	"github.com/dohyo/dohyo/auth"
	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/httpsec"
)

// Authorizer decides whether an authenticated identity may use a
// permission on a resource; a non-nil error refuses (its text is shown to
// the client). Identity is the user name the HTTP token was issued to
// ("" when authentication is off). *auth.Manager is one: GraphQL asks
// dohyo's roles exactly as CQL statements do.
type Authorizer interface {
	Authorize(ctx context.Context, identity string, perm auth.Permission, res auth.Resource) error
}

// AllowAll is the Authorizer used when none is configured: every
// identity that authenticated may do everything.
type AllowAll struct{}

// Authorize implements Authorizer.
func (AllowAll) Authorize(context.Context, string, auth.Permission, auth.Resource) error { return nil }

// authorize is the one place GraphQL fields ask the Authorizer. A refusal
// is a CQL Unauthorized error of the field, as Stargate reports it.
func (s *Server) authorize(ctx context.Context, perm auth.Permission, res auth.Resource) error {
	id, _ := httpsec.IdentityFrom(ctx)
	err := s.cfg.Authorizer.Authorize(ctx, id, perm, res)
	if err == nil {
		return nil
	}
	var be *bindings.Error
	if errors.As(err, &be) && be.Code == bindings.CodeUnauthorized {
		return err // already Cassandra's message
	}
	return &bindings.Error{Code: bindings.CodeUnauthorized,
		Message: fmt.Sprintf("User %s has no %s permission on %s or any of its parents: %v", id, perm, res, err)}
}
