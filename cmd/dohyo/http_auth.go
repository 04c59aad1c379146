package main

import (
	"context"

	"github.com/dohyo/dohyo/auth"
	"github.com/dohyo/dohyo/httpsec"
)

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
