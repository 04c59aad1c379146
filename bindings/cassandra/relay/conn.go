package relay

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/cql/wire"
	"github.com/dohyo/dohyo/internal/bufpool"
	"github.com/dohyo/dohyo/internal/conncore"
	"github.com/dohyo/dohyo/internal/rawnet"
)

// Buffer sizes of a backend connection's reader and writer.
const (
	readBufSize  = 64 << 10
	writeBufSize = 64 << 10
)

// relayStreams bounds the concurrent requests of one backend connection
// (the protocol allows 32768; a few hundred is plenty per connection).
const relayStreams = 1024

var errBackendClosed = errors.New("connection to Cassandra closed")

// Response is Cassandra's answer to a relayed request.
type Response struct {
	// Header is the response frame's header (its stream id is the backend
	// connection's).
	Header wire.Header
	// Body is the frame's body (see waiter for how long it lasts).
	Body []byte
	// Node is the node that answered (host:port).
	Node string
	// Hold, set on answers a backend connection's reader delivers, is the
	// server's place on that reader for answers to send once the responses
	// already read are handled (bindings.RelayHold); nil elsewhere.
	Hold *bindings.RelayHold
}

// A Conn is one native-protocol connection from the relay to a
// Cassandra node, at one protocol version, optionally bound to a keyspace
// (USE) and to a client's credentials. Requests from many client
// connections share it: each gets a free stream id of this connection for
// its round trip (stream-id remapping), and one reader goroutine hands each
// response to the waiting request by stream id. Frames are queued and
// written by whichever sender finds no write in progress (no writer
// goroutine to wake per request); frames queued while a write is in
// progress go out together in the next one, and a client connection's
// reader holds back the write while more of its client's requests are
// already buffered (corking), so that pipelined requests share syscalls.
type Conn struct {
	nc       net.Conn
	addr     string
	version  byte
	keyspace string
	log      *slog.Logger

	streams chan int16
	wq      conncore.Writer

	mu      sync.Mutex
	waiting [relayStreams]waiter // nil: free or orphaned
	orphan  [relayStreams]bool   // abandoned by its request
	dl      deadlines            // fast-path requests' deadlines (deadline.go)
	born    time.Time            // origin of clock()

	closed   chan struct{}
	closeErr error
	once     sync.Once

	authenticated bool // the node asked for credentials

	lastRead  atomic.Int64 // unix nanos of the last frame read
	busySince atomic.Int64 // unix nanos when inflight last rose from 0
	inflight  atomic.Int32
	orphans   atomic.Int32 // stream ids reserved by abandoned requests
	probing   atomic.Bool  // a stall probe runs (health.go)
	onEvent   func(h wire.Header, body []byte)
	// onLost, when set, is told first when the connection fails (fail),
	// before the requests waiting on it are answered.
	onLost atomic.Pointer[func(*Conn, error)]
}

// dialBackend connects to addr, runs STARTUP (and SASL PLAIN when the node
// asks for it) and, with a keyspace, USE. It returns a running connection.
func dialBackend(ctx context.Context, addr string, version byte, creds *Credentials, keyspace string, timeout time.Duration, log *slog.Logger) (*Conn, error) {
	d := net.Dialer{Timeout: timeout}
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	if tc, ok := nc.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	nc = rawnet.Wrap(nc)
	deadline := time.Now().Add(timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	nc.SetDeadline(deadline)
	hs := &handshakeIO{br: bufio.NewReaderSize(nc, readBufSize), bw: bufio.NewWriterSize(nc, writeBufSize), version: version}
	if err := hs.startup(creds); err != nil {
		nc.Close()
		return nil, fmt.Errorf("%s: %w", addr, err)
	}
	if keyspace != "" {
		if err := hs.use(keyspace); err != nil {
			nc.Close()
			return nil, fmt.Errorf("%s: %w", addr, err)
		}
	}
	nc.SetDeadline(time.Time{})
	bc := &Conn{
		nc: nc, addr: addr, version: version, keyspace: keyspace, log: log, authenticated: hs.authenticated,
		streams: make(chan int16, relayStreams),
		closed:  make(chan struct{}),
		born:    time.Now(),
	}
	for i := 1; i < relayStreams; i++ { // stream 0 is left unused
		bc.streams <- int16(i)
	}
	bc.lastRead.Store(time.Now().UnixNano())
	wcfg := conncore.Config{Conn: nc, Buffer: hs.bw, Failed: func(err error) {
		bc.fail(fmt.Errorf("write to Cassandra node %s: %w", bc.addr, err))
	}}
	if version >= 5 {
		wcfg.Segments = &conncore.Segments{}
	}
	bc.wq.Init(wcfg)
	bc.dl.alarm.Init(bc.born, bc.sweep)
	go bc.readLoop(hs.reader(), hs.buffered)
	return bc, nil
}

// frameReader reads response frames: plain frames or v5 segments.
type frameReader func() (wire.Header, []byte, error)

// handshakeIO runs the synchronous start of a backend connection.
type handshakeIO struct {
	br      *bufio.Reader
	bw      *bufio.Writer
	version byte
	seg     *wire.SegmentReader
	segw    *wire.SegmentWriter

	authenticated bool
}

func (h *handshakeIO) write(op byte, body []byte) error {
	f := append(make([]byte, 0, wire.HeaderLen+len(body)), h.version, 0, 0, 0, op, 0, 0, 0, 0)
	f = append(f, body...)
	wire.FinishFrame(f)
	var err error
	if h.segw != nil {
		if err = h.segw.Add(f); err == nil {
			err = h.segw.Flush()
		}
	} else {
		_, err = h.bw.Write(f)
	}
	if err == nil {
		err = h.bw.Flush()
	}
	return err
}

func (h *handshakeIO) read() (wire.Header, []byte, error) { return h.reader()() }

// buffered tells whether the next response frame is read in full already
// (v3/v4 framing; v5 segments say no).
func (h *handshakeIO) buffered() bool {
	if h.seg != nil {
		return false
	}
	return wire.FrameBuffered(h.br)
}

func (h *handshakeIO) reader() frameReader {
	if h.seg != nil {
		return h.seg.Next
	}
	var hb [wire.HeaderLen]byte
	var buf []byte // reused for bodies up to reuseBody (see waiter)
	return func() (wire.Header, []byte, error) {
		if _, err := io.ReadFull(h.br, hb[:]); err != nil {
			return wire.Header{}, nil, err
		}
		hd := wire.ParseHeader(hb[:])
		n := int(hd.Length)
		if n < 0 || n > maxRelayFrame {
			return hd, nil, fmt.Errorf("response frame of %d bytes", hd.Length)
		}
		if n > reuseBody {
			body, err := wire.ReadBody(h.br, n)
			return hd, body, wire.UnexpectedEOF(err)
		}
		if cap(buf) < n {
			buf = make([]byte, reuseBody)
		}
		body := buf[:n]
		_, err := io.ReadFull(h.br, body)
		return hd, body, wire.UnexpectedEOF(err)
	}
}

// reuseBody is the largest response body a backend connection's reader
// reads into its reused buffer (v3/v4 framing); larger ones get their own.
const reuseBody = 64 << 10

// maxRelayFrame bounds a response frame from Cassandra (its own limit is
// 256 MiB by default).
const maxRelayFrame = 256 << 20

func (h *handshakeIO) switchV5() {
	if h.version >= 5 && h.seg == nil {
		h.seg = &wire.SegmentReader{R: h.br, MaxFrame: maxRelayFrame, Reuse: true}
		h.segw = &wire.SegmentWriter{W: h.bw}
	}
}

func (h *handshakeIO) startup(creds *Credentials) error {
	body := wire.AppendShort(nil, 1)
	body = wire.AppendString(body, "CQL_VERSION")
	body = wire.AppendString(body, "3.0.0")
	if err := h.write(wire.OpStartup, body); err != nil {
		return err
	}
	hd, rb, err := h.read()
	if err != nil {
		return err
	}
	// v5 framing starts after the node's answer to STARTUP.
	h.switchV5()
	switch hd.Op {
	case wire.OpReady:
		return nil
	case wire.OpError:
		return decodeErrorBody(rb)
	case wire.OpAuthenticate:
		h.authenticated = true
	default:
		return fmt.Errorf("unexpected %s in answer to STARTUP", wire.OpName(hd.Op))
	}
	if creds == nil {
		return &bindings.Error{Code: bindings.CodeAuthError,
			Message: "Cassandra requires authentication and no credentials were given"}
	}
	if err := h.write(wire.OpAuthResponse, wire.AppendBytes(nil, plainToken(creds))); err != nil {
		return err
	}
	hd, rb, err = h.read()
	if err != nil {
		return err
	}
	switch hd.Op {
	case wire.OpAuthSuccess:
		return nil
	case wire.OpError:
		return decodeErrorBody(rb)
	default:
		return fmt.Errorf("unexpected %s in answer to AUTH_RESPONSE", wire.OpName(hd.Op))
	}
}

func (h *handshakeIO) use(keyspace string) error {
	if err := h.write(wire.OpQuery, queryBody("USE "+cql.QuoteIdent(keyspace), h.version)); err != nil {
		return err
	}
	hd, rb, err := h.read()
	if err != nil {
		return err
	}
	if hd.Op == wire.OpError {
		return decodeErrorBody(rb)
	}
	return nil
}

// queryBody encodes a QUERY of q at consistency ONE, without flags.
func queryBody(q string, version byte) []byte {
	b := wire.AppendLongString(nil, q)
	b = wire.AppendShort(b, uint16(bindings.One))
	if version >= 5 {
		return wire.AppendInt(b, 0)
	}
	return append(b, 0)
}

// A waiter is called once (Deliver) with a request's response, or with
// the error that ended the connection, on the connection's reader
// goroutine (or on the goroutine that closes it). The response's body is
// the reader's buffer, overwritten by the next response: a waiter that
// keeps it after Deliver returns (or hands it to another goroutine) copies
// it.
type waiter interface {
	Deliver(Response, error)
}

// rtWaiter is a waiter for a synchronous round trip.
type rtWaiter chan rtResult

type rtResult struct {
	r   Response
	err error
}

func (w rtWaiter) Deliver(r Response, err error) {
	r.Hold = nil // the answer is the round trip's caller's, off the reader
	r.Body = bytes.Clone(r.Body)
	w <- rtResult{r, err}
}

// submit sends one request without waiting for its answer, which goes to
// w. It returns the stream id used, or ok=false, having sent nothing, when
// no stream id is free; an error when the connection is closed.
// The frame is queued, not written: the caller flushes (at once, or after
// queueing the next requests it already has).
func (bc *Conn) submit(flags, op byte, body []byte, w waiter) (id int16, ok bool, err error) {
	return bc.submitTimeout(flags, op, body, w, 0)
}

// submitTimeout is submit with a timeout (none when 0): when it passes
// before the answer, the connection's sweep takes w off its stream and
// calls its expired (w must be an expirer).
func (bc *Conn) submitTimeout(flags, op byte, body []byte, w waiter, timeout time.Duration) (id int16, ok bool, err error) {
	select {
	case id = <-bc.streams:
	default:
		return 0, false, nil
	}
	return id, true, bc.queue(id, flags, op, body, w, timeout)
}

// send registers w for stream id and writes the frame.
func (bc *Conn) send(id int16, flags, op byte, body []byte, w waiter) error {
	if err := bc.queue(id, flags, op, body, w, 0); err != nil {
		return err
	}
	bc.Flush()
	return nil
}

// queue registers w for stream id (with its timeout, if not 0) and queues
// the frame.
func (bc *Conn) queue(id int16, flags, op byte, body []byte, w waiter, timeout time.Duration) error {
	bc.mu.Lock()
	if bc.isClosed() { // close's sweep of waiting may have run already
		bc.mu.Unlock()
		return bc.err()
	}
	bc.waiting[id] = w
	if timeout > 0 {
		bc.setDeadline(id, timeout)
	}
	bc.mu.Unlock()
	if bc.inflight.Add(1) == 1 {
		bc.busySince.Store(time.Now().UnixNano())
	}
	f := bufpool.Get()
	f = append(f, bc.version, flags&^wire.FlagCompressed, byte(uint16(id)>>8), byte(id), op, 0, 0, 0, 0)
	f = append(f, body...)
	wire.FinishFrame(f)
	if !bc.wq.Add(conncore.Msg{Frame: f, Pooled: true}) { // closed: the sweep answers w
		bufpool.Put(f)
	}
	return nil
}

// Flush writes the frames queued on the connection (fastRoute.submit), unless
// a write is in progress (whose writer then writes them too): a server
// submits the requests it has read together, then flushes once.
func (bc *Conn) Flush() { bc.wq.Flush() }

// abandon gives up on stream id's answer (its request timed out): the id
// stays reserved until the late answer arrives. It reports false when the
// answer is already being delivered to w.
func (bc *Conn) abandon(id int16, w waiter) bool {
	bc.mu.Lock()
	defer bc.mu.Unlock()
	if bc.waiting[id] != w {
		return false
	}
	bc.waiting[id], bc.orphan[id], bc.dl.at[id] = nil, true, 0
	bc.inflight.Add(-1)
	if bc.orphans.Add(1) >= maxOrphans && bc.inflight.Load() == 0 {
		go bc.close(errTooManyOrphans)
	}
	return true
}

// maxOrphans is how many abandoned stream ids a connection may hold before
// it is retired: a node that has not answered that many timed-out requests
// (an overloaded or half-dead node, or one that drops expired requests
// without an answer) would otherwise leave the connection live but without
// free stream ids. A retired connection takes no new requests and closes
// once the requests still waiting on it are answered.
const maxOrphans = relayStreams / 4

var errTooManyOrphans = errors.New("connection retired: too many requests abandoned without an answer")

// usable tells a live connection that may take new requests.
func (bc *Conn) usable() bool {
	return !bc.isClosed() && bc.orphans.Load() < maxOrphans
}

// roundTrip sends one request (op, flags, body) and returns the node's
// response. When ctx ends first the stream id stays reserved until the
// late response arrives, so it is never reused too early.
func (bc *Conn) roundTrip(ctx context.Context, flags, op byte, body []byte) (Response, error) {
	var id int16
	select {
	case id = <-bc.streams:
	case <-bc.closed:
		return Response{}, bc.err()
	case <-ctx.Done():
		return Response{}, ctx.Err()
	}
	ch := make(rtWaiter, 1)
	w := ch
	if err := bc.send(id, flags, op, body, w); err != nil {
		return Response{}, err
	}
	select {
	case r := <-ch:
		return r.r, r.err
	case <-ctx.Done():
		if !bc.abandon(id, w) {
			r := <-ch // delivered meanwhile
			return r.r, r.err
		}
		return Response{}, ctx.Err()
	}
}

func (bc *Conn) readLoop(next frameReader, buffered func() bool) {
	held := &bindings.RelayHold{}
	defer held.Release()
	for {
		if !buffered() {
			held.Release() // before waiting for Cassandra
		}
		h, body, err := next()
		if err != nil {
			bc.fail(fmt.Errorf("connection to Cassandra node %s lost: %w", bc.addr, wire.UnexpectedEOF(err)))
			return
		}
		bc.lastRead.Store(time.Now().UnixNano())
		if h.Stream < 0 {
			if h.Op == wire.OpEvent && bc.onEvent != nil {
				bc.onEvent(h, body)
			}
			continue
		}
		if int(h.Stream) >= relayStreams {
			continue
		}
		bc.mu.Lock()
		w, orphan := bc.waiting[h.Stream], bc.orphan[h.Stream]
		bc.waiting[h.Stream], bc.orphan[h.Stream], bc.dl.at[h.Stream] = nil, false, 0
		bc.mu.Unlock()
		if w == nil && !orphan {
			bc.log.Debug("relay: response on an unused stream", "node", bc.addr, "stream", h.Stream)
			continue
		}
		bc.streams <- h.Stream // free before w runs: w may send again
		if orphan {
			bc.orphans.Add(-1)
		}
		if w != nil {
			bc.inflight.Add(-1)
			w.Deliver(Response{Header: h, Body: body, Node: bc.addr, Hold: held}, nil)
		}
		if !bc.usable() && bc.inflight.Load() == 0 {
			bc.close(errTooManyOrphans)
			return
		}
	}
}

// fail ends a connection that failed (not one closed on purpose): its
// onLost hook hears of it before the waiting requests are answered with
// err, so that none of them is re-sent to the same node. A connection
// closed already is left as it is (a read error after close is not news).
func (bc *Conn) fail(err error) {
	if bc.isClosed() {
		return
	}
	if f := bc.onLost.Load(); f != nil {
		(*f)(bc, err)
	}
	bc.close(err)
}

// close ends the connection and answers every waiting request with err.
func (bc *Conn) close(err error) {
	bc.once.Do(func() {
		bc.closeErr = err
		close(bc.closed)
		bc.wq.Close()
		bc.nc.Close()
		bc.mu.Lock()
		bc.stopSweep()
		var ws []waiter
		for i, w := range bc.waiting {
			if w != nil {
				ws = append(ws, w)
				bc.waiting[i] = nil
			}
		}
		bc.mu.Unlock()
		for _, w := range ws {
			bc.inflight.Add(-1)
			w.Deliver(Response{}, err)
		}
	})
}

func (bc *Conn) err() error {
	<-bc.closed
	return bc.closeErr
}

func (bc *Conn) isClosed() bool {
	select {
	case <-bc.closed:
		return true
	default:
		return false
	}
}

// idle tells a live connection that has read nothing for d and has no
// request in flight: it is due a heartbeat.
func (bc *Conn) idle(d time.Duration) bool {
	return !bc.isClosed() && time.Since(time.Unix(0, bc.lastRead.Load())) >= d && bc.inflight.Load() == 0
}

// heartbeat sends OPTIONS; a node that does not answer within timeout has
// its connection closed.
func (bc *Conn) heartbeat(timeout time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	r, err := bc.roundTrip(ctx, 0, wire.OpOptions, nil)
	if err == nil && r.Header.Op != wire.OpSupported {
		err = fmt.Errorf("unexpected %s in answer to OPTIONS", wire.OpName(r.Header.Op))
	}
	if err != nil {
		bc.fail(fmt.Errorf("heartbeat to Cassandra node %s failed: %w", bc.addr, err))
	}
}

// Credentials are a client's SASL PLAIN user and password, relayed to
// Cassandra (connections are pooled per credentials).
type Credentials = bindings.RelayCredentials

func plainToken(c *Credentials) []byte {
	t := make([]byte, 0, len(c.User)+len(c.Password)+2)
	t = append(t, 0)
	t = append(t, c.User...)
	t = append(t, 0)
	return append(t, c.Password...)
}

func credsKey(c *Credentials) string {
	if c == nil {
		return ""
	}
	return c.User + "\x00" + c.Password
}
