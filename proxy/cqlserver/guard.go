package cqlserver

import (
	"bufio"
	"container/list"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"github.com/dohyo/dohyo/cql/wire"
)

// Guards for a listener reachable by untrusted clients (docs/SECURITY.md,
// "CQL listener"): a small frame limit until the handshake is done, a
// handshake deadline, an idle timeout, a per-frame read deadline
// (slowloris), a write deadline, a bounded set of connections still in
// their handshake (the oldest is closed to admit a new one, so silent
// connections cannot lock real clients out) and a per-connection budget
// of unsent answer bytes (the socket is not read while it is spent).

// guardState is the server's share of the guards.
type guardState struct {
	pending *list.List // conns in their handshake, oldest first (guarded by Server.mu)

	evicted           atomic.Uint64
	handshakeTimeouts atomic.Uint64
	idleClosed        atomic.Uint64
	frameTimeouts     atomic.Uint64
	writeTimeouts     atomic.Uint64
	tooBig            atomic.Uint64
	backpressured     atomic.Uint64
	log               rateLog

	backoff *authBackoff
}

func (g *guardState) init(cfg AuthBackoffConfig) {
	g.pending = list.New()
	g.backoff = newAuthBackoff(cfg)
}

// fillGuardDefaults fills the guard fields left zero.
func (cfg *Config) fillGuardDefaults() {
	if cfg.PreAuthFrameBytes <= 0 {
		cfg.PreAuthFrameBytes = DefaultPreAuthFrameBytes
	}
	cfg.PreAuthFrameBytes = min(cfg.PreAuthFrameBytes, cfg.MaxFrameBytes)
	if cfg.HandshakeTimeout == 0 {
		cfg.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if cfg.FrameReadTimeout == 0 {
		cfg.FrameReadTimeout = DefaultFrameReadTimeout
	}
	if cfg.WriteTimeout == 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	if cfg.MaxPendingConnections == 0 {
		cfg.MaxPendingConnections = DefaultMaxPendingConnections
	}
	if cfg.OutboundBytes <= 0 {
		cfg.OutboundBytes = DefaultOutboundBytes
	}
}

// admitPending records a new connection as in its handshake; when the
// budget is spent the oldest one is closed. Called with s.mu held.
func (s *Server) admitPending(c *conn) {
	g := &s.guard
	if max := s.cfg.MaxPendingConnections; max > 0 && g.pending.Len() >= max {
		old := g.pending.Remove(g.pending.Front()).(*conn)
		old.pendingElem = nil
		old.evicted.Store(true)
		old.nc.Close()
		g.evicted.Add(1)
		s.noteGuard("closed the oldest connection still in its handshake: too many pending handshakes",
			"remote", old.nc.RemoteAddr().String(), "limit", max)
	}
	c.pendingElem = g.pending.PushBack(c)
}

// promote moves c out of the handshake budget once it is ready; over
// MaxConnections it is answered Overloaded and closed instead.
func (c *conn) promote() error {
	s := c.srv
	s.mu.Lock()
	if c.pendingElem != nil {
		s.guard.pending.Remove(c.pendingElem)
		c.pendingElem = nil
	}
	if c.promoted || c.refused {
		s.mu.Unlock()
		return nil
	}
	if s.cfg.MaxConnections > 0 && s.active >= s.cfg.MaxConnections {
		s.mu.Unlock()
		s.rejectedConns.Add(1)
		s.noteRejected(c.nc.RemoteAddr().String(), true)
		return errOverConnections
	}
	s.active++
	c.promoted = true
	s.mu.Unlock()
	c.ready = true
	c.seg.SetMax(s.cfg.MaxFrameBytes)
	// Full-size read buffer from now on; the small one drains first.
	c.br = bufio.NewReaderSize(c.br, readBufSize)
	if c.seg != nil {
		c.seg.R = c.br
	}
	return nil
}

var errOverConnections = errors.New("too many client connections")

// frameLimit is the largest body the connection accepts now.
func (c *conn) frameLimit() int {
	if c.ready {
		return c.srv.cfg.MaxFrameBytes
	}
	return c.srv.cfg.PreAuthFrameBytes
}

// setReadDeadline sets the read deadline, capped by the handshake
// deadline before the connection is ready, without undoing stopReading.
func (c *conn) setReadDeadline(t time.Time) {
	if !c.ready && !c.handshakeBy.IsZero() && (t.IsZero() || c.handshakeBy.Before(t)) {
		t = c.handshakeBy
	}
	c.nc.SetReadDeadline(t)
	if c.stopping.Load() {
		c.nc.SetReadDeadline(time.Now())
	}
}

// Read-deadline kinds, so that a deadline still good enough is not set
// again for every frame (setting one re-arms a runtime timer).
const (
	deadlineUnset int8 = iota
	deadlineNone
	deadlineIdle
	deadlineFrame
)

// armRead sets a read deadline of the given kind d from now (d <= 0: no
// deadline). Once the connection is ready, a deadline of the same kind
// that is at least half of d away is kept as it is.
func (c *conn) armRead(kind int8, d time.Duration) {
	if d <= 0 {
		if c.rdlKind != deadlineNone || !c.ready {
			c.setReadDeadline(time.Time{})
			c.rdlKind = deadlineNone
		}
		return
	}
	now := c.clock()
	if c.ready && c.rdlKind == kind && c.rdl.Sub(now) >= d/2 {
		return
	}
	c.rdl, c.rdlKind = now.Add(d), kind
	c.setReadDeadline(c.rdl)
}

// buffered tells whether the next frame (or v5 segment) is wholly in the
// read buffer, so reading it cannot block.
func (c *conn) buffered() bool {
	if c.seg != nil {
		whole, _ := c.seg.NextBuffered()
		return c.seg.Unread() > 0 || whole
	}
	n := c.br.Buffered()
	if n < wire.HeaderLen {
		return false
	}
	b, err := c.br.Peek(wire.HeaderLen)
	return err == nil && n-wire.HeaderLen >= int(binary.BigEndian.Uint32(b[5:9]))
}

// awaitFrame blocks until the first byte of the next frame (or segment)
// is readable, under the idle deadline, then arms the frame deadline
// unless the whole frame is already buffered.
func (c *conn) awaitFrame() error {
	if c.br.Buffered() == 0 && (c.seg == nil || c.seg.Unread() == 0) {
		for {
			c.armRead(deadlineIdle, c.srv.cfg.IdleTimeout)
			_, err := c.br.Peek(1)
			if err == nil {
				break
			}
			if !isTimeout(err) || c.stopping.Load() {
				return err
			}
			if !c.ready {
				return c.guardClose(&c.srv.guard.handshakeTimeouts, "handshake not finished in time", "timeout", c.srv.cfg.HandshakeTimeout)
			}
			if c.busy() {
				continue // requests in flight or answers unsent: not idle
			}
			return c.guardClose(&c.srv.guard.idleClosed, "idle connection closed", "timeout", c.srv.cfg.IdleTimeout)
		}
	}
	if c.ready && c.buffered() {
		return nil
	}
	c.armRead(deadlineFrame, c.srv.cfg.FrameReadTimeout)
	return nil
}

// frameTimeout classifies a read error in the middle of a frame.
func (c *conn) frameTimeout(err error) error {
	if !isTimeout(err) || c.stopping.Load() {
		return err
	}
	if !c.ready && !c.handshakeBy.IsZero() && !time.Now().Before(c.handshakeBy) {
		return c.guardClose(&c.srv.guard.handshakeTimeouts, "handshake not finished in time", "timeout", c.srv.cfg.HandshakeTimeout)
	}
	return c.guardClose(&c.srv.guard.frameTimeouts, "frame not received in time (slowloris)", "timeout", c.srv.cfg.FrameReadTimeout)
}

// errGuardClosed ends a connection closed by a guard (already logged).
type errGuardClosed struct{ reason string }

func (e *errGuardClosed) Error() string { return e.reason }

func (c *conn) guardClose(counter *atomic.Uint64, reason string, args ...any) error {
	counter.Add(1)
	c.srv.noteGuard(reason, append([]any{"remote", c.nc.RemoteAddr().String()}, args...)...)
	return &errGuardClosed{reason: reason}
}

// noteGuard logs a guard's action, at most once a second.
func (s *Server) noteGuard(msg string, args ...any) {
	if ok, suppressed := s.guard.log.allow(time.Now(), time.Second); ok {
		s.log.Warn("cql: "+msg, append(args, "suppressed", suppressed)...)
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// busy tells whether requests are in flight or answers unsent.
func (c *conn) busy() bool {
	return c.running.Load() > 0 || c.unsent.Load() > 0
}

// ---- outbound budget ----

// reserve waits, on the reader, until the connection's unsent answers and
// the estimated answers of its requests in flight leave room for one more
// request, and reserves that estimate. While it waits the socket is not
// read. It returns false when the connection ends first.
func (c *conn) reserve() (int64, bool) {
	budget := int64(c.srv.cfg.OutboundBytes)
	est := c.estimate.Load()
	waited := false
	for {
		unsent, reserved := c.unsent.Load(), c.reserved.Load()
		if unsent+reserved+est <= budget || (reserved == 0 && unsent < budget) {
			c.reserved.Add(est)
			return est, true
		}
		if !waited {
			waited = true
			c.srv.guard.backpressured.Add(1)
		}
		select {
		case <-c.drained:
		case <-c.ctx.Done():
			return 0, false
		}
		if c.stopping.Load() {
			c.reserved.Add(est)
			return est, true // shutting down: let it be answered
		}
	}
}

// unreserve returns a request's reservation and learns from its answer's
// size: the estimate follows large answers at once and small ones slowly.
func (c *conn) unreserve(est int64, answer int) {
	c.reserved.Add(-est)
	n := int64(answer)
	for {
		old := c.estimate.Load()
		next := max(n, old-old/8, minEstimate)
		if next == old || c.estimate.CompareAndSwap(old, next) {
			break
		}
	}
	c.signalDrained()
}

// minEstimate is the smallest answer estimate (a few rows).
const minEstimate = 1 << 10

// initialEstimate is a new connection's answer estimate: an eighth of the
// budget, so at most eight requests of unknown size start at once.
func initialEstimate(budget int) int64 { return max(int64(budget/8), minEstimate) }

// waitDrained blocks the reader while the unsent answers exceed the budget.
func (c *conn) waitDrained() error {
	budget := int64(c.srv.cfg.OutboundBytes)
	if c.unsent.Load() < budget {
		return nil
	}
	c.srv.guard.backpressured.Add(1)
	for c.unsent.Load() >= budget && !c.stopping.Load() {
		select {
		case <-c.drained:
		case <-c.ctx.Done():
			return fmt.Errorf("connection ended while its answers were unsent: %w", c.ctx.Err())
		}
	}
	return nil
}

func (c *conn) signalDrained() {
	select {
	case c.drained <- struct{}{}:
	default:
	}
}

// GuardStats are the guards' counters.
type GuardStats struct {
	PendingConnections int    // connections in their handshake now
	EvictedPending     uint64 // closed to admit a newer one (MaxPendingConnections)
	HandshakeTimeouts  uint64 // closed by HandshakeTimeout
	IdleClosed         uint64 // closed by IdleTimeout
	FrameTimeouts      uint64 // closed by FrameReadTimeout
	WriteTimeouts      uint64 // closed because the client did not read (WriteTimeout)
	FramesTooBig       uint64 // frames or decompressed bodies over the limit
	Backpressured      uint64 // times a socket was not read because answers were unsent
	AuthThrottled      uint64 // authentication answers delayed by AuthBackoff
}

// GuardStats returns the guards' counters.
func (s *Server) GuardStats() GuardStats {
	s.mu.Lock()
	n := s.guard.pending.Len()
	s.mu.Unlock()
	g := &s.guard
	return GuardStats{
		PendingConnections: n,
		EvictedPending:     g.evicted.Load(),
		HandshakeTimeouts:  g.handshakeTimeouts.Load(),
		IdleClosed:         g.idleClosed.Load(),
		FrameTimeouts:      g.frameTimeouts.Load(),
		WriteTimeouts:      g.writeTimeouts.Load(),
		FramesTooBig:       g.tooBig.Load(),
		Backpressured:      g.backpressured.Load(),
		AuthThrottled:      g.backoff.throttled.Load(),
	}
}
