package httpsec

import "context"

type identityKey struct{}

// WithIdentity returns ctx carrying the authenticated user name.
func WithIdentity(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, identityKey{}, name)
}

// IdentityFrom returns the user name the request authenticated as; ok is
// false when the request carries no identity (authentication off).
func IdentityFrom(ctx context.Context) (name string, ok bool) {
	name, ok = ctx.Value(identityKey{}).(string)
	return name, ok
}
