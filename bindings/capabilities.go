package bindings

import "context"

// Optional capabilities. A backend (or an observer) implements only the
// ones it has; callers find them by type assertion, e.g.
//
//	if v, ok := b.(bindings.ServerVersioner); ok { ... }
//
// Each is one method, named for what it does, declared here rather than
// anonymously at the call site, so that `grep` finds every implementation.

// SystemNamer names the store for telemetry (OpenTelemetry db.system).
type SystemNamer interface {
	DBSystem() string
}

// ServerVersioner asks the backend's server for its release version.
type ServerVersioner interface {
	ServerVersion(ctx context.Context) (string, error)
}

// ServerDescription is what a backend says about its server and the
// settings a comparison depends on (consistency, replication, compression,
// salt, regions, storage), for the conditions of a replay report.
type ServerDescription struct {
	// Product names the server software ("Apache Cassandra").
	Product string
	// Settings are the effective settings by name ("consistency",
	// "replication KS", "compression KS.T", "salt", ...).
	Settings map[string]string
}

// ServerDescriber describes the backend's server and the settings it
// applies to keyspaces (those not found are left out). The description
// is filled as far as it could be even when an error is returned.
type ServerDescriber interface {
	DescribeServer(ctx context.Context, keyspaces []string) (ServerDescription, error)
}

// RowsWanter is implemented by observers (taps) that can say whether
// they use result rows now: when one says no, a request path may skip
// digesting rows. An observer without it is assumed to want them.
type RowsWanter interface {
	WantsRows() bool
}

// WantsRows tells whether observer o uses result rows (see RowsWanter).
func WantsRows(o any) bool {
	if w, ok := o.(RowsWanter); ok {
		return w.WantsRows()
	}
	return true
}
