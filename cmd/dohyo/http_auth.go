package main

import (
	"context"

	"github.com/dohyo/dohyo/auth"
	"github.com/dohyo/dohyo/graphql"
	"github.com/dohyo/dohyo/httpsec"
)

// roleAuthorizer answers GraphQL's permission questions with dohyo's
// roles, as the CQL door's statements are checked.
type roleAuthorizer struct{ m *auth.Manager }

// Authorize implements graphql.Authorizer.
func (a roleAuthorizer) Authorize(ctx context.Context, identity string, perm graphql.Permission, res graphql.Resource) error {
	r := auth.AllKeyspaces()
	switch {
	case res.Table != "":
		r = auth.TableResource(res.Keyspace, res.Table)
	case res.Keyspace != "":
		r = auth.KeyspaceResource(res.Keyspace)
	}
	return a.m.Authorize(ctx, identity, auth.Permission(perm), r)
}

// httpAdmins may use the admin endpoints: superusers (the configured
// users among them) and the roles named by admin-user.
type httpAdmins struct {
	roles *auth.Manager
	users httpsec.AdminUsers
}

// IsAdmin implements httpsec.AdminPolicy.
func (a httpAdmins) IsAdmin(ctx context.Context, identity string) bool {
	if a.users.IsAdmin(ctx, identity) {
		return true
	}
	if a.roles == nil || identity == "" {
		return false
	}
	super, err := a.roles.IsSuperuser(ctx, identity)
	return err == nil && super
}
