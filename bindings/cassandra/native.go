package cassandra

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// A small native-protocol client, used for what gocql does not expose:
// PREPARE metadata, exact SCHEMA_CHANGE / SET_KEYSPACE results (DDL, USE),
// conditional batches (gocql cannot return their rows) and tuple bind
// variables (gocql expands them into several values). Each connection runs
// one request at a time; a pool keeps a few idle ones.

// nativeOptions configures raw connections.
type nativeOptions struct {
	hosts          []string // host:port, tried in order
	proto          primitive.ProtocolVersion
	user, password string
	timeout        time.Duration // per request when ctx has no deadline
	connectTimeout time.Duration
}

// nativeConn is one raw connection. Not safe for concurrent use.
type nativeConn struct {
	c       net.Conn
	r       *bufio.Reader
	codec   frame.Codec
	proto   primitive.ProtocolVersion
	timeout time.Duration
	ks      string // current keyspace ("" until a USE)
	broken  bool   // an I/O error happened: discard
	idleAt  time.Time
}

// staleAfter is how long a connection may sit idle before it is checked
// (alive) when taken from the pool again.
const staleAfter = time.Second

// alive tells whether an idle connection is still open: after a node
// restart (or any close by the node) the kernel has seen its FIN or RST, so
// a read returns at once. A live connection has nothing to read: the short
// read deadline passes (≤ 1 ms, only for connections idle over staleAfter).
func (nc *nativeConn) alive() bool {
	if nc.broken {
		return false
	}
	if time.Since(nc.idleAt) < staleAfter {
		return true
	}
	if err := nc.c.SetReadDeadline(time.Now().Add(time.Millisecond)); err != nil {
		return false
	}
	_, err := nc.r.Peek(1)
	var ne net.Error
	if err == nil || !(errors.As(err, &ne) && ne.Timeout()) {
		return false // data nobody asked for, EOF or a reset: discard it
	}
	return nc.c.SetReadDeadline(time.Time{}) == nil
}

// dialNative connects to the first reachable host and completes STARTUP
// (and SASL PLAIN authentication when the server asks for it).
func dialNative(ctx context.Context, o nativeOptions) (*nativeConn, error) {
	var errs []error
	for _, h := range o.hosts {
		nc, err := dialNativeHost(ctx, o, h)
		if err == nil {
			return nc, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	if len(errs) == 0 {
		return nil, errors.New("cassandra: no hosts")
	}
	return nil, errors.Join(errs...)
}

func dialNativeHost(ctx context.Context, o nativeOptions, host string) (*nativeConn, error) {
	d := net.Dialer{Timeout: o.connectTimeout}
	c, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return nil, fmt.Errorf("cassandra dial %s: %w", host, err)
	}
	nc := &nativeConn{c: c, r: bufio.NewReaderSize(c, 64<<10), codec: frame.NewCodec(), proto: o.proto, timeout: o.timeout}
	if err := nc.startup(ctx, o); err != nil {
		c.Close()
		return nil, fmt.Errorf("cassandra startup %s: %w", host, err)
	}
	return nc, nil
}

func (nc *nativeConn) startup(ctx context.Context, o nativeOptions) error {
	resp, err := nc.roundTrip(ctx, &message.Startup{Options: map[string]string{"CQL_VERSION": "3.0.0"}})
	if err != nil {
		return err
	}
	if _, ok := resp.(*message.Authenticate); ok {
		if o.user == "" {
			return bindings.Errorf(bindings.CodeAuthError, "server requires authentication and no user is configured")
		}
		// SASL PLAIN, as PasswordAuthenticator expects.
		token := append(append(append([]byte{0}, o.user...), 0), o.password...)
		if resp, err = nc.roundTrip(ctx, &message.AuthResponse{Token: token}); err != nil {
			return err
		}
		if _, ok := resp.(*message.AuthSuccess); !ok {
			return fmt.Errorf("unexpected authentication answer %T", resp)
		}
		return nil
	}
	if _, ok := resp.(*message.Ready); !ok {
		return fmt.Errorf("unexpected STARTUP answer %T", resp)
	}
	return nil
}

// roundTrip sends one request and returns its response; ERROR responses
// come back as *bindings.Error. Any I/O failure marks the connection broken.
func (nc *nativeConn) roundTrip(ctx context.Context, msg message.Message) (message.Message, error) {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(nc.timeout)
	}
	if err := nc.c.SetDeadline(deadline); err != nil {
		nc.broken = true
		return nil, fmt.Errorf("cassandra: %w", err)
	}
	// A cancelled ctx (not only a deadline) must interrupt blocking I/O.
	stop := context.AfterFunc(ctx, func() { _ = nc.c.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if err := nc.codec.EncodeFrame(frame.NewFrame(nc.proto, 1, msg), nc.c); err != nil {
		nc.broken = true
		return nil, nc.ioError(ctx, "write", err)
	}
	for {
		f, err := nc.codec.DecodeFrame(nc.r)
		if err != nil {
			nc.broken = true
			return nil, nc.ioError(ctx, "read", err)
		}
		if f.Header.StreamId != 1 {
			continue // events (stream -1) and strays
		}
		if e, ok := f.Body.Message.(message.Error); ok {
			return nil, nativeError(e)
		}
		if _, prepared := f.Body.Message.(*message.PreparedResult); len(f.Body.Warnings) > 0 && !prepared {
			return &warnedResult{Message: f.Body.Message, warnings: f.Body.Warnings}, nil
		}
		return f.Body.Message, nil
	}
}

// warnedResult is a RESULT that came with client warnings (nativeResult
// unwraps it).
type warnedResult struct {
	message.Message
	warnings []string
}

// ioError reports a context's end as such, so callers convert it into a
// timeout, and anything else as a broken connection.
func (nc *nativeConn) ioError(ctx context.Context, op string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return context.DeadlineExceeded
	}
	return fmt.Errorf("cassandra %s: %w: %w", op, bindings.ErrBadConn, err)
}

// use makes ks the connection's keyspace.
func (nc *nativeConn) use(ctx context.Context, ks string) error {
	if ks == "" || nc.ks == ks {
		return nil
	}
	resp, err := nc.roundTrip(ctx, &message.Query{Query: "USE " + cql.QuoteIdent(ks),
		Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelOne}})
	if err != nil {
		return err
	}
	if r, ok := resp.(*message.SetKeyspaceResult); ok {
		nc.ks = r.Keyspace
	}
	return nil
}

// prepareAndRun prepares query and sends the request build makes with the
// statement id, preparing again once if the node evicted it meanwhile.
func (nc *nativeConn) prepareAndRun(ctx context.Context, query string, build func(id []byte) message.Message) (message.Message, error) {
	for attempt := 0; ; attempt++ {
		resp, err := nc.roundTrip(ctx, &message.Prepare{Query: query})
		if err != nil {
			return nil, err
		}
		pr, ok := resp.(*message.PreparedResult)
		if !ok {
			return nil, fmt.Errorf("cassandra prepare: unexpected response %T", resp)
		}
		resp, err = nc.roundTrip(ctx, build(pr.PreparedQueryId))
		var be *bindings.Error
		if attempt == 0 && errors.As(err, &be) && be.Code == bindings.CodeUnprepared {
			continue
		}
		return resp, err
	}
}

func (nc *nativeConn) close() { _ = nc.c.Close() }

// errUse marks a failure to switch a connection to the request's keyspace.
var errUse = errors.New("cassandra: USE")

// nativePool hands out connections; a request needing keyspace "" gets a
// connection that never ran USE, since USE cannot be undone.
type nativePool struct {
	opts    nativeOptions
	maxIdle int

	mu     sync.Mutex
	idle   []*nativeConn
	closed bool
}

func (p *nativePool) get(ctx context.Context, ks string) (*nativeConn, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, bindings.Errorf(bindings.CodeServerError, "cassandra: backend closed")
	}
	pick := -1
	for i, c := range p.idle {
		if c.ks == ks {
			pick = i
			break
		}
		if pick < 0 && ks != "" && c.ks != "" {
			pick = i // switch its keyspace with USE
		}
	}
	var nc *nativeConn
	if pick >= 0 {
		nc = p.idle[pick]
		p.idle = append(p.idle[:pick], p.idle[pick+1:]...)
	}
	p.mu.Unlock()
	if nc != nil && !nc.alive() { // closed by the node while idle (restart)
		nc.close()
		nc = nil
	}
	if nc == nil {
		var err error
		if nc, err = dialNative(ctx, p.opts); err != nil {
			return nil, dialError(ctx, err)
		}
	}
	if err := nc.use(ctx, ks); err != nil {
		p.put(nc)
		return nil, fmt.Errorf("%w: %w", errUse, err)
	}
	return nc, nil
}

// dialError turns a failed dial into a CQL error that says "retry
// elsewhere": Unavailable (no replica alive), naming the backend.
func dialError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var be *bindings.Error
	if errors.As(err, &be) {
		return err
	}
	return fmt.Errorf("%w: %w", bindings.ErrBadConn,
		bindings.Errorf(bindings.CodeUnavailable, "backend cassandra unreachable: %v", err))
}

func (p *nativePool) put(nc *nativeConn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if nc.broken || p.closed || len(p.idle) >= p.maxIdle {
		nc.close()
		return
	}
	nc.idleAt = time.Now()
	p.idle = append(p.idle, nc)
}

func (p *nativePool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, c := range p.idle {
		c.close()
	}
	p.idle = nil
}

// do runs fn on a pooled connection in keyspace ks.
func (p *nativePool) do(ctx context.Context, ks string, fn func(*nativeConn) (message.Message, error)) (message.Message, error) {
	nc, err := p.get(ctx, ks)
	if err != nil {
		return nil, err
	}
	defer p.put(nc)
	resp, err := fn(nc)
	if err == nil {
		if r, ok := resp.(*message.SetKeyspaceResult); ok {
			nc.ks = r.Keyspace // a USE statement moved the connection
		}
	}
	return resp, err
}
