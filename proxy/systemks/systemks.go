package systemks

import (
	"context"
	"log/slog"
	"net"
	"time"

	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/proxy"
	"github.com/dohyo/dohyo/schema"
	"github.com/dohyo/dohyo/telemetry"
)

// Config is what the system keyspaces report and read. Every field but
// Coordinator has a usable zero value.
type Config struct {
	// Coordinator gives the merged catalog (system_schema, DESCRIBE), the
	// roles (system_auth) and the routes (which keyspaces are relayed).
	Coordinator *proxy.Coordinator
	// ClusterName, CQLVersion, ReleaseVersion, DataCenter and Rack are
	// system.local's columns of the same names (DataCenter and Rack are
	// reported for every instance).
	ClusterName, CQLVersion, ReleaseVersion, DataCenter, Rack string
	// ListenAddr is this instance's advertised CQL host:port; empty: the
	// address each client connected to (WithLocalAddr).
	ListenAddr string
	// Peers are static peers, listed in system.peers.
	Peers []string
	// Members lists the live instances of a tier (nil: no tier).
	Members func() []Member
	// NumTokens is the number of ring tokens each instance owns.
	NumTokens int
	// Start is the process start, reported as gossip_generation.
	Start time.Time
	// Logger receives warnings (a peer that does not resolve).
	Logger *slog.Logger
	// Traces are the trace sessions and events of this instance
	// (system_traces); nil: empty tables.
	Traces *telemetry.Sessions
	// TraceEvents adds events recorded elsewhere (Cassandra's own, for
	// relayed requests) to system_traces.events.
	TraceEvents EventSource
	// SchemaSources give, per backend name, that backend's own
	// system_schema rows for the keyspaces routed to it (a Cassandra
	// relay's); other keyspaces are rendered from the catalog.
	SchemaSources map[string]SchemaSource
}

// EventSource lists trace events recorded outside this instance.
// Pending tells that more events of dohyo's session id may still come
// (the backend has not finished its own session): the session is then
// listed without a duration.
type EventSource interface {
	TraceEvents(ctx context.Context) []telemetry.TraceEvent
	Pending(ctx context.Context, id cql.UUID) bool
}

// SchemaSource reads a backend's own rows of a system_schema table, with
// t's columns in t's order. ok is false when the backend cannot answer
// now (no control connection, a failed read: it logs why); dohyo's
// catalog then stands in.
type SchemaSource interface {
	SchemaRows(ctx context.Context, t *schema.Table) (rows [][][]byte, ok bool)
}

// Keyspaces are the system keyspaces the backend answers: register it for
// each with the coordinator (proxy.Coordinator.AddVirtual). Keyspaces
// without tables answer every query with "unconfigured table".
func Keyspaces() []string { return append([]string(nil), virtualKeyspaces...) }

// SystemKeyspaces returns the definitions of the system keyspaces the
// backend answers (system, system_schema, ...), by name. They are shared,
// read-only values: callers must not modify them.
func (v *Backend) SystemKeyspaces() map[string]*schema.Keyspace { return v.system }

// localAddrKey carries a client connection's local address to system.local
// (it reports the address the client connected to).
type localAddrKey struct{}

// WithLocalAddr returns ctx carrying the address a client connected to.
func WithLocalAddr(ctx context.Context, a net.Addr) context.Context {
	return context.WithValue(ctx, localAddrKey{}, a)
}

// localAddr returns the address WithLocalAddr put in ctx, or nil.
func localAddr(ctx context.Context) net.Addr {
	a, _ := ctx.Value(localAddrKey{}).(net.Addr)
	return a
}
