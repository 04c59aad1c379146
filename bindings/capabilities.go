package bindings

import (
	"context"
	"time"
)

// Optional capabilities. A backend (or an observer) implements only the
// ones it has; callers find them with Capability (a type assertion that
// also looks through Unwrap), e.g.
//
//	if v, ok := bindings.Capability[bindings.ServerVersioner](b); ok { ... }
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

// ValuesWanter is implemented by observers (taps) that can say whether
// they use a request's bound values (and their names) now: when one says
// no, a request path may leave them undecoded (the Observation's Values
// and Names are then nil). An observer without it is assumed to want them.
type ValuesWanter interface {
	WantsValues() bool
}

// WantsValues tells whether observer o uses bound values (see
// ValuesWanter).
func WantsValues(o any) bool {
	if w, ok := o.(ValuesWanter); ok {
		return w.WantsValues()
	}
	return true
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

// SchemaWatcher is implemented by backends whose schema other dohyo
// instances change too (HBase: a tier shares one catalog); fn is called
// with each change picked up from them.
type SchemaWatcher interface {
	OnSchemaChange(fn func(*SchemaChange))
}

// MetaStore keeps small values by key in the backend's own store:
// dohyo's roles and grants live there (auth.Store has the same methods;
// a store that also compare-and-sets is an auth.CASStore).
type MetaStore interface {
	GetMeta(ctx context.Context, key string) ([]byte, error)
	PutMeta(ctx context.Context, key string, value []byte) error
}

// MetaStoreProvider is implemented by backends that can keep dohyo's
// metadata (embedded, HBase), so that every instance on the same store
// shares its roles.
type MetaStoreProvider interface {
	MetaStore() MetaStore
}

// TierMember is one dohyo instance of a tier (instances sharing one
// store), as it last heartbeat.
type TierMember struct {
	// Addr is the CQL host:port the instance advertises.
	Addr string
	// SchemaVersion is the schema version the instance has loaded.
	SchemaVersion string
	// Heartbeat is the store's time of the instance's last heartbeat.
	Heartbeat time.Time
}

// TierRegistry keeps the heartbeats of a tier's members.
type TierRegistry interface {
	// Heartbeat records m as alive now (the store's clock).
	Heartbeat(ctx context.Context, m TierMember) error
	// Members lists every member, live or not (see TierMember.Heartbeat).
	Members(ctx context.Context) ([]TierMember, error)
	// Leave removes the member addr (a clean shutdown).
	Leave(ctx context.Context, addr string) error
}

// TierProvider is implemented by backends whose store dohyo instances
// share as one tier (HBase): they list each other as CQL peers.
type TierProvider interface {
	TierRegistry() TierRegistry
}

// RelayTarget is where and how a raw-frame relay reaches a backend's
// server, which speaks the CQL native protocol itself.
type RelayTarget struct {
	// Hosts are contact points (host:port).
	Hosts []string
	// ConnsPerNode is the number of relay connections per node.
	ConnsPerNode int
	// ConnectTimeout bounds a dial with its handshake.
	ConnectTimeout time.Duration
	// Heartbeat is the idle time after which a connection is probed.
	Heartbeat time.Duration
	// SuspectAfter is how long a connection with requests waiting may
	// stay silent before its node is suspect and probed (0: default).
	SuspectAfter time.Duration
	// SchemaAgreement bounds the wait, after a relayed schema change, for
	// the nodes to agree on the schema before the client is answered.
	SchemaAgreement time.Duration
	// User and Password authenticate the relay's control connection.
	User, Password string
}

// Relayable is implemented by backends over a CQL server (Cassandra):
// dohyo's CQL server relays their keyspaces' frames to it, and clients
// keep that server's authentication and authorization. The relay itself
// is the last hop bindings.FrameRelayer; it and the relayer's other
// capabilities (PreparedFinder, PlainAuthenticator, AuthRequirer,
// TraceEventSource, SchemaRowSource) are declared in relay.go.
type Relayable interface {
	RelayTarget() RelayTarget
}

// CatalogInvalidator is implemented by backends that cache a schema
// catalog read from their server: the next Catalog reads it again.
type CatalogInvalidator interface {
	InvalidateCatalog()
}

// Unwrapper is implemented by a backend built on something that has
// capabilities of its own: the wide-column engine on its KV store (the
// store names the system, describes the server, keeps metadata), or a test
// wrapper around a backend. Capability looks through it.
type Unwrapper interface {
	Unwrap() any
}

// Capability finds capability T on b or, through Unwrap, on what b is
// built on (the first that has it): callers use it instead of a bare type
// assertion, so that a capability of a store reaches the coordinator
// through the engine, and one of a backend through a wrapper.
func Capability[T any](b any) (T, bool) {
	for depth := 0; b != nil && depth < 8; depth++ {
		if t, ok := b.(T); ok {
			return t, true
		}
		u, ok := b.(Unwrapper)
		if !ok {
			break
		}
		b = u.Unwrap()
	}
	var zero T
	return zero, false
}
