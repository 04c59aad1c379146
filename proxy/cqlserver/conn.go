package cqlserver

import (
	"bufio"
	"container/list"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql/wire"
	"github.com/dohyo/dohyo/internal/bufpool"
	"github.com/dohyo/dohyo/internal/conncore"
	"github.com/dohyo/dohyo/proxy"
	"github.com/dohyo/dohyo/proxy/systemks"
)

// One connection: the calling goroutine reads frames and decodes them; each
// QUERY/PREPARE/EXECUTE/BATCH runs on its own goroutine (drivers pipeline
// many stream ids on one connection); one writer goroutine batches encoded
// responses into few syscalls. Handshake messages (OPTIONS, STARTUP,
// AUTH_RESPONSE, REGISTER) are answered inline by the reader because they
// change connection state (version, compression, v5 framing).

type connState int

const (
	stateInit  connState = iota // before STARTUP
	stateAuth                   // AUTHENTICATE sent, SASL exchange running
	stateReady                  // queries accepted
)

const (
	readBufSize = 64 << 10
	// preAuthBufSize is the read buffer until the handshake is done: a
	// connection that never authenticates holds little memory.
	preAuthBufSize = 4 << 10
	writeBufSize   = 64 << 10
)

type conn struct {
	srv     *Server
	nc      net.Conn
	log     *slog.Logger
	session *proxy.Session

	ctx    context.Context // canceled when in-flight work must stop
	cancel context.CancelFunc
	reqCtx context.Context // ctx carrying the connection's addresses
	waited ctxRegistry     // requests whose ctx is waited on: reqCtx's end cancels them
	// deadlines time the requests that have one (deadlines.go).
	deadlines deadlines
	born      time.Time // when the connection was accepted (clock)

	// Read-loop state. version and body are written only before any
	// handler goroutine or event registration exists, so those read them
	// without locks (the goroutine start / registration mutex orders it).
	br      *bufio.Reader
	seg     *wire.SegmentReader // v5 framing, after STARTUP
	state   connState
	version byte
	body    wire.BodyCodec // v3/v4 frame compression
	sasl    SASL
	hdr     [wire.HeaderLen]byte
	corked  bindings.RelayCork // relay connections with frames to write (relay_async.go)

	wq         conncore.Writer // outgoing frames (conn_write.go)
	wake       chan struct{}   // wakes writeLoop for frames queued by send
	quit       chan struct{}
	writerDone chan struct{}
	evTypes    atomic.Uint32 // eventSchema | eventTopology | eventStatus, from REGISTER

	inflight sync.WaitGroup
	// Request workers (dispatch): work hands a request to an idle one.
	work        chan work
	workers     sync.WaitGroup
	idleWorkers atomic.Int32
	sem         limiter // the connection's in-flight slots
	stopping    atomic.Bool
	refused     bool // over MaxConnections: STARTUP is answered with an error
	// creds are the client's SASL PLAIN credentials, relayed to Cassandra.
	creds *bindings.RelayCredentials

	// Guards (guard.go). ready is set by the reader once READY or
	// AUTH_SUCCESS is sent; promoted counts it in Server.active.
	ready       bool
	promoted    bool          // guarded by Server.mu
	pendingElem *list.Element // in Server.guard.pending (guarded by Server.mu)
	evicted     atomic.Bool
	handshakeBy time.Time
	rdl         time.Time // the read deadline armRead set last
	rdlKind     int8
	unsent      atomic.Int64 // bytes handed to the writer, not yet written
	reserved    atomic.Int64 // estimated answers of requests in flight
	estimate    atomic.Int64 // expected size of the next answer
	running     atomic.Int32 // requests in flight
	drained     chan struct{}
}

// getBuf and putBuf take frame buffers from, and return them to, the pool
// shared with the relay (internal/bufpool).
func getBuf() []byte { return bufpool.Get() }

func putBuf(b []byte) { bufpool.Put(b) }

func newConn(s *Server, nc net.Conn) *conn {
	c := &conn{
		srv:        s,
		nc:         nc,
		log:        s.log.With("remote", nc.RemoteAddr().String()),
		session:    s.coord.NewSession(bindings.SourceCQL),
		br:         bufio.NewReaderSize(nc, preAuthBufSize),
		wake:       make(chan struct{}, 1),
		quit:       make(chan struct{}),
		work:       make(chan work),
		writerDone: make(chan struct{}),
		sem:        newLimiter(s.cfg.MaxInFlightPerConn),
		drained:    make(chan struct{}, 1),
		born:       time.Now(),
	}
	c.initWriter()
	c.deadlines.alarm.Init(c.born, c.deadlines.sweep)
	c.estimate.Store(initialEstimate(s.cfg.OutboundBytes))
	return c
}

// clock is the time now for the connection's deadlines, read from the
// monotonic clock alone (time.Now reads the wall clock too: two clock
// reads, each a vDSO call that takes a few percent of a point read's CPU
// on a VM). Its wall reading is the connection's start plus the monotonic
// time since, which deadlines and durations never look at.
func (c *conn) clock() time.Time { return c.born.Add(time.Since(c.born)) }

// serve runs the connection to its end and releases everything it holds.
func (c *conn) serve(ctx context.Context) {
	defer c.srv.untrack(c)
	c.ctx, c.cancel = context.WithCancel(ctx)
	defer c.cancel()
	c.reqCtx = systemks.WithLocalAddr(c.ctx, c.nc.LocalAddr())
	stopHard := context.AfterFunc(c.srv.hard, func() {
		c.cancel()
		c.nc.Close()
	})
	defer stopHard()
	stopRead := context.AfterFunc(c.ctx, c.stopReading)
	defer stopRead()
	stopWaited := context.AfterFunc(c.ctx, func() { c.waited.end(c.ctx.Err()) })
	defer stopWaited()
	if c.srv.isClosing() {
		c.stopReading()
	}
	if d := c.srv.cfg.HandshakeTimeout; d > 0 {
		c.handshakeBy = time.Now().Add(d)
	}
	if c.refused {
		c.nc.SetDeadline(time.Now().Add(rejectTimeout))
	}
	if !c.handshakeTLS() {
		c.nc.Close()
		return
	}
	go c.writeLoop()

	err := c.readLoop()
	if !c.stopping.Load() {
		// The client left or broke the protocol: answer what can be
		// answered, and abandon in-flight work nobody will read.
		if !errors.Is(err, io.EOF) {
			c.fail(err)
		}
		c.cancel()
	}
	c.inflight.Wait()
	close(c.quit)
	c.workers.Wait()
	c.deadlines.close()
	<-c.writerDone
	c.closeGracefully()
}

// stopReading makes the read loop return at its next read; in-flight
// requests still finish and are answered.
func (c *conn) stopReading() {
	c.stopping.Store(true)
	c.nc.SetReadDeadline(time.Now())
	c.signalDrained()
}

// fail answers a protocol violation before the connection closes.
func (c *conn) fail(err error) {
	var bv *errBadVersion
	var pe *wire.ProtocolError
	var tb *wire.TooBigError
	var gc *errGuardClosed
	switch {
	case errors.As(err, &gc):
		// Logged (rate-limited) and counted by the guard.
	case errors.As(err, &bv):
		c.log.Debug("unsupported protocol version", "version", bv.version)
		c.wq.Post(conncore.Msg{Frame: versionErrorFrame(bv)})
	case errors.As(err, &tb):
		c.srv.guard.tooBig.Add(1)
		c.srv.noteGuard("frame over the limit", "remote", c.nc.RemoteAddr().String(), "length", tb.Length, "limit", tb.Max, "authenticated", c.ready)
		c.send(c.errorFrame(tb.Stream, bindings.Errorf(bindings.CodeProtocolError, "%s", tb.Error())))
	case errors.As(err, &pe):
		c.log.Debug("protocol error", "err", pe.Msg)
		c.send(c.errorFrame(pe.Stream, bindings.Errorf(bindings.CodeProtocolError, "%s", pe.Msg)))
	case errors.Is(err, errRejected), errors.Is(err, errOverConnections):
	default:
		var ne net.Error
		if !errors.As(err, &ne) && !errors.Is(err, net.ErrClosed) && !errors.Is(err, io.ErrUnexpectedEOF) {
			c.log.Debug("connection read", "err", err)
		}
	}
}

// closeGracefully closes the connection so that the last frames reach the
// client: half-close, drain what the client still sends, then close
// (closing with unread input would reset the connection and could discard
// our final error frame on the client side).
func (c *conn) closeGracefully() {
	if tc, ok := c.nc.(interface{ CloseWrite() error }); ok && tc.CloseWrite() == nil {
		c.nc.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		io.Copy(io.Discard, io.LimitReader(c.nc, 1<<20))
	}
	c.nc.Close()
}

// readLoop reads and dispatches frames until an error. A panic while
// decoding (a bug: decoders check every length) closes the connection
// with a ProtocolError instead of taking the process down.
func (c *conn) readLoop() (err error) {
	defer func() {
		if p := recover(); p != nil {
			c.log.Error("panic while reading a frame", "panic", p, "stack", string(debug.Stack()))
			err = wire.ProtocolErrorf("internal error while decoding a frame")
		}
	}()
	defer c.corked.Flush()
	for {
		if !c.nextFrameBuffered() {
			c.corked.Flush() // before waiting for the client (relay_async.go)
		}
		if err := c.waitDrained(); err != nil {
			return err
		}
		if err := c.awaitFrame(); err != nil {
			return err
		}
		h, body, err := c.readFrame()
		if err != nil {
			return err
		}
		if err := c.handle(h, body); err != nil {
			return wire.WithStream(err, h.Stream)
		}
	}
}

// readFrame reads one frame (or v5 envelope) with its raw body.
func (c *conn) readFrame() (wire.Header, []byte, error) {
	if c.seg != nil {
		h, body, err := c.seg.Next()
		if err != nil {
			return h, nil, wire.WithStream(c.frameTimeout(err), h.Stream)
		}
		if err := c.checkHeader(h); err != nil {
			return h, nil, wire.WithStream(err, h.Stream)
		}
		return h, body, nil
	}
	b := c.hdr[:]
	if _, err := io.ReadFull(c.br, b[:1]); err != nil {
		return wire.Header{}, nil, err
	}
	if v := b[0] & wire.VersionMask; !wire.SupportedVersion(v) {
		return wire.Header{}, nil, c.badVersion(b[0])
	}
	if _, err := io.ReadFull(c.br, b[1:]); err != nil {
		return wire.Header{}, nil, wire.UnexpectedEOF(c.frameTimeout(err))
	}
	h := wire.ParseHeader(b)
	if err := c.checkHeader(h); err != nil {
		return h, nil, wire.WithStream(err, h.Stream)
	}
	if err := wire.CheckLength(h, c.frameLimit()); err != nil {
		return h, nil, wire.WithStream(err, h.Stream)
	}
	body, err := wire.ReadBody(c.br, int(h.Length))
	if err != nil {
		return h, nil, wire.UnexpectedEOF(c.frameTimeout(err))
	}
	return h, body, nil
}

// checkHeader enforces one protocol version per connection once STARTUP
// fixed it (OPTIONS may probe before).
func (c *conn) checkHeader(h wire.Header) error {
	if h.Response {
		return wire.ProtocolErrorf("Invalid frame direction: expected a request, got a response")
	}
	if c.state != stateInit && h.Version != c.version {
		return wire.ProtocolErrorf("Invalid message version. Got %d but previous messages on this connection had version %d", h.Version, c.version)
	}
	if c.state == stateInit {
		c.version = h.Version
	}
	return nil
}

// badVersion builds the error for an unsupported version, reading the rest
// of the header to learn the stream id.
func (c *conn) badVersion(first byte) error {
	v := first & wire.VersionMask
	n := wire.HeaderLen
	if v < 3 {
		n = 8 // v1/v2 headers have a one-byte stream id
	}
	b := c.hdr[:n]
	var stream int16
	c.nc.SetReadDeadline(time.Now().Add(time.Second))
	if _, err := io.ReadFull(c.br, b[1:]); err == nil {
		if v < 3 {
			stream = int16(int8(b[2]))
		} else {
			stream = int16(uint16(b[2])<<8 | uint16(b[3]))
		}
	}
	return &errBadVersion{version: v, stream: stream}
}

// dispatch runs a request on a goroutine of its own once it holds an
// in-flight slot (limit.go); without one it is answered Overloaded at once.
// With a timeout, the client is answered with timedOut's error when it
// passes, even if run has not returned (its late answer is then dropped:
// the client may already reuse the stream id); the slot is held until run
// returns.
//
// The goroutine is one of the connection's request workers: an idle worker
// takes the request when there is one, otherwise a new worker starts. A
// worker keeps its stack between requests, so the engine's deep call
// chains do not grow a fresh 8 KiB stack on every request (stack copies
// were 6-7 % of dohyo's CPU under YCSB).
func (c *conn) dispatch(stream int16, timeout time.Duration, run func(context.Context) []byte, timedOut func() error) {
	c.dispatchWork(work{stream: stream, timeout: timeout, run: run, timedOut: timedOut})
}

// dispatchWork is dispatch of a prepared work item (a local request needs
// no closures: run and timedOut nil mean c.execute and c.timeoutError of
// w.req).
func (c *conn) dispatchWork(w work) {
	stream := w.stream
	est, ok := c.reserve()
	if !ok {
		return // the connection ended
	}
	if err := c.acquire(); err != nil {
		c.reserved.Add(-est)
		c.send(c.errorFrame(stream, err))
		return
	}
	c.inflight.Add(1)
	c.running.Add(1)
	w.est = est
	select {
	case c.work <- w:
	default:
		c.workers.Add(1)
		go c.worker(w)
	}
}

// work is one dispatched request.
type work struct {
	stream   int16
	timeout  time.Duration
	run      func(context.Context) []byte
	timedOut func() error
	req      *request // run and timedOut nil: c.execute(req), c.timeoutError(req)
	est      int64
}

func (w *work) exec(ctx context.Context, c *conn) []byte {
	if w.run == nil {
		return c.execute(ctx, w.req)
	}
	return w.run(ctx)
}

func (w *work) timeoutError(c *conn) error {
	if w.timedOut == nil {
		return c.timeoutError(w.req)
	}
	return w.timedOut()
}

// maxIdleWorkers bounds the request workers a connection keeps waiting
// for work; more exit once their request is answered.
const maxIdleWorkers = 16

// worker runs w, then waits for the next request until the connection
// ends or enough workers are idle.
func (c *conn) worker(w work) {
	defer c.workers.Done()
	for {
		c.runRequest(w)
		if c.idleWorkers.Add(1) > maxIdleWorkers {
			c.idleWorkers.Add(-1)
			return
		}
		select {
		case w = <-c.work:
			c.idleWorkers.Add(-1)
		case <-c.quit:
			c.idleWorkers.Add(-1)
			return
		}
	}
}

// runRequest runs one dispatched request and queues its answer.
func (c *conn) runRequest(w work) {
	defer c.inflight.Done()
	defer c.running.Add(-1)
	defer c.release()
	stream := w.stream
	ctx := c.reqCtx
	var rc *requestCtx
	if w.timeout > 0 {
		rc = c.newRequestCtx(w)
		ctx = rc
	}
	var frame []byte
	func() {
		defer func() {
			if p := recover(); p != nil {
				c.log.Error("panic in request handler", "panic", p, "stack", string(debug.Stack()))
				frame = c.errorFrame(stream, bindings.Errorf(bindings.CodeServerError, "internal error: %v", p))
			}
		}()
		frame = w.exec(ctx, c)
	}()
	if rc != nil {
		frame = rc.finish(frame)
	}
	n := len(frame)
	if rc == nil || rc.answered.CompareAndSwap(false, true) {
		c.sendDirect(frame)
	} else {
		putBuf(frame)
	}
	c.unreserve(w.est, n)
}
