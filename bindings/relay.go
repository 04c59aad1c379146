package bindings

import (
	"context"
	"time"

	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
	"github.com/dohyo/dohyo/telemetry"
)

// The raw-frame last hop (DESIGN D2). A backend whose server speaks the
// CQL native protocol itself (Cassandra) is reached by relaying clients'
// frames to it unchanged: the CQL server decodes, and the coordinator
// parses, authorises, routes, budgets and observes a request as for any
// backend, and then, instead of executing it, hands its frame to the
// backend's FrameRelayer. The relayer's other capabilities below are
// one-method interfaces too, found by type assertion on the relayer.

// FrameRelayer is the raw-frame last hop: it relays one request frame to
// the backend's server and hands the answer to rcv.
type FrameRelayer interface {
	// RelayFrame sends req and calls rcv.Relayed once with the answer (or
	// the error that stands for it). With req.Timeout > 0 it does not
	// wait: it returns true once the frame is queued (see req.Cork) and
	// rcv runs on the backend connection's reader, or is expired
	// (rcv.Expire, rcv.Expired) when the timeout passes first; it returns
	// false, having sent nothing and called nothing, when it cannot take
	// the request without waiting (no live connection, no free stream),
	// and the caller tries again with Timeout 0. With Timeout 0 it waits
	// within ctx, calls rcv.Relayed before it returns, and returns true.
	RelayFrame(ctx context.Context, req *RelayRequest, rcv RelayReceiver) bool
}

// RelayCredentials are a client's SASL PLAIN user and password, relayed
// to the backend's server when it requires authentication (auth
// pass-through).
type RelayCredentials struct {
	User, Password string
}

// RelayRequest is one request frame to relay, with what routing decided.
// The caller keeps it (and Body) unchanged until rcv is answered.
type RelayRequest struct {
	// Version is the client's protocol version (the frame is relayed at it).
	Version byte
	// Flags, Op and Body are the request frame's header flags (without
	// compression: bodies are relayed uncompressed), opcode and body.
	Flags, Op byte
	Body      []byte
	// Creds are the client's credentials (nil without any); the relayer
	// uses them only when its server requires authentication.
	Creds *RelayCredentials
	// Group is the keyspace the backend connection must be using for the
	// statement's unqualified names ("" for none).
	Group string
	// Query and Keyspace are a PREPARE's text and session keyspace, and
	// PrepareGroup the keyspace it is to be prepared again in: the
	// relayer remembers the statement from its PREPARED answer.
	Query, Keyspace, PrepareGroup string
	// Idempotent says the request may be sent again when the connection it
	// went out on is lost before its answer (a read, or a write with a
	// client timestamp and no condition, counter update or list append:
	// proxy.StatementIdempotent): the relayer then re-sends it to another
	// node. Otherwise it answers RelayLostError.
	Idempotent bool
	// Timeout bounds the wait on the fast path (see FrameRelayer).
	Timeout time.Duration
	// Cork collects the backend connections the fast path queued the
	// frame on without writing it: the caller flushes them (RelayCork).
	Cork *RelayCork
}

// RelayLostError is a relayer's answer for a request whose connection to
// the backend server was lost after the request went out and before its
// answer came, when the relayer could not send it again (it is not
// idempotent, or no other node took it in time): the request may or may
// not have been applied. The CQL server answers the client as a
// coordinator answers a request that timed out (ReadTimeout, WriteTimeout
// with the statement's write type), so that the client's retry policy
// decides as it does for an outcome it cannot know (docs/ARCHITECTURE.md,
// "Node loss behind the relay").
type RelayLostError struct {
	// Node is the server node whose connection was lost.
	Node string
	// Err is how the connection was lost.
	Err error
}

func (e *RelayLostError) Error() string {
	return "dohyo relay: request lost with its connection to Cassandra node " + e.Node + ": " + e.Err.Error()
}

func (e *RelayLostError) Unwrap() error { return e.Err }

// RelayAnswer is the backend server's answer to a relayed frame.
type RelayAnswer struct {
	// Flags and Op are the response frame's header flags and opcode.
	Flags, Op byte
	// Body is the response's body: on the fast path, the backend
	// reader's buffer, valid until Relayed returns.
	Body []byte
	// Node is the server node that answered.
	Node string
	// Hold, set on answers delivered by a backend connection's reader, is
	// where the receiver may keep what it sends once that reader has
	// handled the responses it has read (RelayHold); nil elsewhere.
	Hold *RelayHold
}

// RelayReceiver gets the answer to a relayed frame: Relayed once, or, on
// the fast path, Expire and then (if Expire returned true) Expired when
// the timeout passed first. Expire runs under the backend connection's
// lock and only claims the request; Expired answers the timeout.
type RelayReceiver interface {
	Relayed(RelayAnswer, error)
	Expire() bool
	Expired()
}

// Flusher writes what it has queued.
type Flusher interface {
	Flush()
}

// RelayCork is a client connection's list of backend connections with
// frames queued but not written: its reader flushes them before it waits
// for the client again, so that requests that arrived together leave in
// one write. One goroutine only.
type RelayCork struct {
	f []Flusher
}

// Add remembers f (once).
func (c *RelayCork) Add(f Flusher) {
	for _, g := range c.f {
		if g == f {
			return
		}
	}
	c.f = append(c.f, f)
}

// Flush writes what Add remembered.
func (c *RelayCork) Flush() {
	for i, f := range c.f {
		f.Flush()
		c.f[i] = nil
	}
	c.f = c.f[:0]
}

// RelayHold is a receiver's place on a backend connection's reader for
// what it defers until the reader has handled the responses it has
// already read (answers handed to the clients' writers together leave in
// fewer writes). The reader releases it before it waits for its server
// again and when it stops. Only receivers running on that reader touch it.
type RelayHold struct {
	r Releaser
}

// A Releaser is what a receiver keeps in a RelayHold: Release sends what
// it holds.
type Releaser interface {
	Release()
}

// Releaser returns what the receiver keeps here (nil at first).
func (h *RelayHold) Releaser() Releaser { return h.r }

// SetReleaser sets what the receiver keeps here.
func (h *RelayHold) SetReleaser(r Releaser) { h.r = r }

// Release releases what is kept here, if anything.
func (h *RelayHold) Release() {
	if h.r != nil {
		h.r.Release()
	}
}

// RelayPrepared is a statement prepared through a relayer.
type RelayPrepared struct {
	// Query is the statement's text.
	Query string
	// Keyspace is the session keyspace at PREPARE time.
	Keyspace string
	// Group is the keyspace the backend connection it was prepared on
	// was using ("" for none): its executions go to such a connection, so
	// that Cassandra sees them in the keyspace they were prepared in (it
	// warns about a prepared unqualified statement executed in another).
	Group string
}

// PreparedFinder is implemented by relayers that remember the statements
// prepared through them: the coordinator routes an EXECUTE by its id and
// names its statement for the Tap.
type PreparedFinder interface {
	PreparedStatement(id []byte) (RelayPrepared, bool)
}

// PlainAuthenticator checks a client's SASL PLAIN credentials against the
// backend's server (auth pass-through).
type PlainAuthenticator interface {
	AuthenticatePlain(ctx context.Context, user, password string) error
}

// AuthRequirer tells whether the backend's server requires clients to
// authenticate.
type AuthRequirer interface {
	RequiresAuth() bool
}

// TraceEventSource reads the backend server's own tracing events of its
// session backendSession, labelled as events of dohyo's session id.
// complete reports that the server had finished that session when the
// events were read (its session row has a duration), so no more will come.
type TraceEventSource interface {
	TraceEvents(ctx context.Context, backendSession, id cql.UUID) (events []telemetry.TraceEvent, complete bool, err error)
}

// SchemaRowSource reads the backend server's own rows of the
// system_schema table t; false when dohyo's catalog must stand in.
type SchemaRowSource interface {
	SchemaRows(ctx context.Context, t *schema.Table) ([][][]byte, bool)
}
