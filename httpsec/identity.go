package httpsec

import (
	"context"
	"time"
)

// requestInfo is what the guard tells the handler about a request, in one
// ctx value: its deadline and, with authentication on, who sent it.
type requestInfo struct {
	deadline      time.Time
	identity      string
	authenticated bool
}

type requestInfoKey struct{}

// IdentityFrom returns the user name the request authenticated as; ok is
// false when the request carries no identity (authentication off).
func IdentityFrom(ctx context.Context) (name string, ok bool) {
	info, _ := ctx.Value(requestInfoKey{}).(*requestInfo)
	if info == nil || !info.authenticated {
		return "", false
	}
	return info.identity, true
}

// RequestDeadline is the end the guard gave the request (Config.
// RequestTimeout after it arrived). The guard does not cancel ctx at it —
// a timer per request costs more than the limits themselves — so the
// handler bounds its work by it: the GraphQL server folds it into every
// statement's deadline (proxy.Budget.Deadline) and bounds schema requests
// with it.
func RequestDeadline(ctx context.Context) (time.Time, bool) {
	info, _ := ctx.Value(requestInfoKey{}).(*requestInfo)
	if info == nil || info.deadline.IsZero() {
		return time.Time{}, false
	}
	return info.deadline, true
}
