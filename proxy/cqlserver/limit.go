package cqlserver

import (
	"errors"
	"sync"
	"time"

	"github.com/dohyo/dohyo/bindings"
)

// Limits that protect the process's memory: a client's backlog is answered
// with Overloaded instead of being queued, and connections beyond
// MaxConnections are refused at STARTUP. Each executing request holds one
// slot of its connection and one of the server until its backend call
// returns, even when the client was already answered (timeouts), so the
// number of request goroutines and decoded bodies is bounded.

// maxRejecting bounds connections kept open only to be refused: beyond it a
// connection over the limit is closed without an answer.
const maxRejecting = 64

// rejectTimeout bounds how long a refused connection may take to send its
// STARTUP.
const rejectTimeout = 5 * time.Second

// errRejected ends a connection refused by MaxConnections.
var errRejected = errors.New("connection refused: too many client connections")

// Stats are the server's gauges and counters (for metrics).
type Stats struct {
	Connections         int    // open client connections (refused ones excluded)
	InFlight            int    // requests executing now
	RejectedConnections uint64 // connections refused by MaxConnections
	Overloaded          uint64 // requests answered Overloaded by the in-flight limits
	TimedOut            uint64 // requests answered with a timeout error by RequestTimeout
	AuthFailures        uint64 // failed SASL exchanges
}

// Stats returns the current gauges and counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	n := s.active
	s.mu.Unlock()
	return Stats{
		Connections:         n,
		InFlight:            int(s.inflight.Load()),
		RejectedConnections: s.rejectedConns.Load(),
		Overloaded:          s.overloaded.Load(),
		TimedOut:            s.timedOut.Load(),
		AuthFailures:        s.authFailures.Load(),
	}
}

// limiter is a counting semaphore; nil means unlimited.
type limiter chan struct{}

func newLimiter(n int) limiter {
	if n <= 0 {
		return nil
	}
	return make(limiter, n)
}

// take acquires a slot. When none is free it waits on the channel wait
// returns (nil: it does not wait) or until done closes.
func (l limiter) take(wait func() <-chan time.Time, done <-chan struct{}) bool {
	if l == nil {
		return true
	}
	select {
	case l <- struct{}{}:
		return true
	default:
	}
	w := wait()
	if w == nil {
		return false
	}
	select {
	case l <- struct{}{}:
		return true
	case <-w:
		return false
	case <-done:
		return false
	}
}

func (l limiter) give() {
	if l != nil {
		<-l
	}
}

// acquire takes an in-flight slot of the connection and of the server, or
// returns the Overloaded error to answer. It runs on the reader goroutine:
// with InFlightWait set, waiting is back-pressure as well.
func (c *conn) acquire() error {
	var timer *time.Timer
	wait := func() <-chan time.Time {
		if c.srv.cfg.InFlightWait <= 0 {
			return nil
		}
		if timer == nil {
			timer = time.NewTimer(c.srv.cfg.InFlightWait)
		}
		return timer.C
	}
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	if !c.sem.take(wait, c.ctx.Done()) {
		c.srv.noteOverloaded("connection", cap(c.sem))
		return bindings.Errorf(bindings.CodeOverloaded,
			"dohyo is overloaded: %d requests are in flight on this connection (limit per connection)", cap(c.sem))
	}
	if !c.srv.slots.take(wait, c.ctx.Done()) {
		c.sem.give()
		c.srv.noteOverloaded("server", cap(c.srv.slots))
		return bindings.Errorf(bindings.CodeOverloaded,
			"dohyo is overloaded: %d requests are in flight (server limit)", cap(c.srv.slots))
	}
	c.srv.inflight.Add(1)
	return nil
}

func (c *conn) release() {
	c.srv.inflight.Add(-1)
	c.srv.slots.give()
	c.sem.give()
}

// rateLog logs at most once per interval, counting what it suppressed, so
// that a flood (of refused connections) cannot flood the log.
type rateLog struct {
	mu         sync.Mutex
	last       time.Time
	suppressed int
}

// allow reports whether to log now and how many calls were suppressed since
// the last logged one.
func (r *rateLog) allow(now time.Time, every time.Duration) (bool, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.last.IsZero() && now.Sub(r.last) < every {
		r.suppressed++
		return false, 0
	}
	n := r.suppressed
	r.last, r.suppressed = now, 0
	return true, n
}

// noteOverloaded counts a request answered Overloaded and logs it
// (rate-limited).
func (s *Server) noteOverloaded(scope string, limit int) {
	s.overloaded.Add(1)
	if ok, suppressed := s.overloadLog.allow(time.Now(), time.Second); ok {
		s.log.Warn("request answered Overloaded: in-flight limit reached", "scope", scope, "limit", limit, "suppressed", suppressed)
	}
}

// noteRejected logs a connection refused by MaxConnections (rate-limited).
func (s *Server) noteRejected(remote string, answered bool) {
	if ok, suppressed := s.rejectLog.allow(time.Now(), time.Second); ok {
		s.log.Warn("client connection refused: max connections reached",
			"remote", remote, "limit", s.cfg.MaxConnections, "answered", answered, "suppressed", suppressed)
	}
}
