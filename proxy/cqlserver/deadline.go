package cqlserver

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dohyo/dohyo/cql/wire"
)

// requestCtx is the context of a request that has a deadline, and the
// timer that answers the request with its timeout error when the request
// outlives it (the dispatch's bound: the client is answered on time even
// when the backend ignores its ctx).
//
// It replaces context.WithTimeout with a context.AfterFunc on it, which
// cost every request eleven allocations (the timer context, its timer and
// callback, the cancel function, the watcher context, its stop function and
// the children map it registers in, the channel the answer waited on, the
// flag and closures they shared) and two registrations under locks: a
// requestCtx is one object, listed in its connection's deadlines (below)
// instead of arming a runtime timer of its own.
//
// The connection's ctx is its parent: values come from it, and its
// cancellation (the connection closing, the server stopping) cancels the
// request. A request whose ctx somebody waits on (Done or AfterFunc: the
// HBase client selects on Done) joins its connection's registry of waited
// requests, which the connection's end cancels; registering with the
// parent ctx itself (context.AfterFunc) cost three more allocations per
// request. Without a waiter (a point read of the embedded store only asks
// Err), Err checks the parent itself. Derived contexts (context.WithCancel
// and friends, context.AfterFunc) register through the AfterFunc method, as
// the context package does for any context that has one, instead of
// starting a goroutine each.
type requestCtx struct {
	parent   context.Context
	deadline time.Time
	c        *conn
	w        work

	expired  sync.WaitGroup // done once expire has returned
	answered atomic.Bool    // the answer (or the timeout error) is queued

	reg *ctxRegistry // the connection's waited requests

	mu        sync.Mutex
	err       error         // set once, when the request's ctx ends
	done      chan struct{} // made on demand; closed when err is set
	watching  bool          // in reg (until it ends)
	afters    []afterFunc   // run when err is set
	nextAfter uint64

	// links on the connection's lists (ctxlist.go): linkWaited guarded by
	// reg.mu, linkDeadline by c.deadlines.mu
	links [numLinks]ctxLink
}

type afterFunc struct {
	id uint64
	f  func()
}

// newRequestCtx starts the deadline of request w on connection c.
func (c *conn) newRequestCtx(w work) *requestCtx {
	r := &requestCtx{parent: c.reqCtx, deadline: c.clock().Add(w.timeout), c: c, w: w, reg: &c.waited}
	r.expired.Add(1)
	c.deadlines.add(r)
	return r
}

// expire runs when the deadline passes: the request's ctx ends with
// DeadlineExceeded and, unless the request was answered meanwhile, the
// client gets the timeout error now.
func (r *requestCtx) expire() {
	defer r.expired.Done()
	r.cancel(context.DeadlineExceeded)
	if r.answered.CompareAndSwap(false, true) {
		c := r.c
		c.srv.timedOut.Add(1)
		c.send(c.errorFrame(r.w.stream, r.w.timeoutError(c)))
	}
}

// finish ends the request after its work returned frame, and returns the
// frame to answer. Once the deadline's callback has started, finish waits
// for it (its answer must be queued before the writer may stop). When the
// deadline passed but the callback has not run yet, and the backend gave up
// on the deadline with an error of its own, the client gets the timeout
// error instead.
func (r *requestCtx) finish(frame []byte) []byte {
	if !r.c.deadlines.remove(r) {
		r.expired.Wait()
	} else if isErrorFrame(frame) && !time.Now().Before(r.deadline) {
		putBuf(frame)
		frame = r.c.errorFrame(r.w.stream, r.w.timeoutError(r.c))
		r.c.srv.timedOut.Add(1)
	}
	r.cancel(context.Canceled) // work left behind by the request stops
	return frame
}

func isErrorFrame(frame []byte) bool { return len(frame) > 4 && frame[4] == wire.OpError }

// cancel ends the context with err, unless it has ended already.
func (r *requestCtx) cancel(err error) {
	r.mu.Lock()
	afters, unlist := r.cancelLocked(err)
	r.mu.Unlock()
	r.ended(afters, unlist)
}

// cancelLocked sets err and closes done; the caller runs what it returns
// through ended once r.mu is released.
func (r *requestCtx) cancelLocked(err error) (afters []afterFunc, unlist bool) {
	if r.err != nil {
		return nil, false
	}
	r.err = err
	if r.done != nil {
		close(r.done)
	}
	afters, r.afters = r.afters, nil
	return afters, r.watching
}

func (r *requestCtx) ended(afters []afterFunc, unlist bool) {
	if unlist {
		r.reg.remove(r)
	}
	for _, a := range afters {
		a.f()
	}
}

// watchLocked makes the connection's end cancel the request (once).
func (r *requestCtx) watchLocked() ([]afterFunc, bool) {
	if r.watching || r.err != nil {
		return nil, false
	}
	r.watching = true
	if err := r.reg.add(r); err != nil {
		return r.cancelLocked(err)
	}
	return nil, false
}

// ctxRegistry is a connection's requests whose ctx somebody waits on: the
// connection's end cancels them.
type ctxRegistry struct {
	mu    sync.Mutex
	list  ctxList[waitedLink]
	ended error // why the connection ended; nil while it runs
}

// add lists r, or returns why the connection has ended already.
func (g *ctxRegistry) add(r *requestCtx) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ended != nil {
		return g.ended
	}
	g.list.pushBack(r)
	return nil
}

func (g *ctxRegistry) remove(r *requestCtx) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.list.remove(r)
}

// end cancels every listed request with err (the connection's ctx ended),
// and any that would join later.
func (g *ctxRegistry) end(err error) {
	g.mu.Lock()
	g.ended = err
	list := g.list.takeAll()
	g.mu.Unlock()
	for _, r := range list {
		r.cancel(err)
	}
}

// Deadline is the request's deadline.
func (r *requestCtx) Deadline() (time.Time, bool) { return r.deadline, true }

// Done is closed when the deadline passes, the request ends or the
// connection closes.
func (r *requestCtx) Done() <-chan struct{} {
	r.mu.Lock()
	if r.done == nil {
		r.done = make(chan struct{})
		if r.err != nil {
			close(r.done)
		}
	}
	done := r.done
	afters, stop := r.watchLocked()
	r.mu.Unlock()
	r.ended(afters, stop)
	return done
}

// Err tells why the context ended (nil while it has not).
func (r *requestCtx) Err() error {
	r.mu.Lock()
	err, watching := r.err, r.watching
	r.mu.Unlock()
	if err != nil || watching {
		return err
	}
	// Nobody waits on Done: the parent's end is noticed here.
	if perr := r.parent.Err(); perr != nil {
		r.cancel(perr)
		r.mu.Lock()
		err = r.err
		r.mu.Unlock()
	}
	return err
}

// Value is the parent's.
func (r *requestCtx) Value(key any) any { return r.parent.Value(key) }

// AfterFunc arranges for f to run once the context ends; the context
// package calls it for contexts derived from this one. f runs in the
// goroutine that ends the context (or its own goroutine when the context
// has ended already); the returned function unregisters f and reports
// whether it did so before f ran.
func (r *requestCtx) AfterFunc(f func()) func() bool {
	r.mu.Lock()
	afters, stop := r.watchLocked()
	if r.err != nil {
		r.mu.Unlock()
		r.ended(afters, stop)
		go f()
		return func() bool { return false }
	}
	r.nextAfter++
	id := r.nextAfter
	r.afters = append(r.afters, afterFunc{id: id, f: f})
	r.mu.Unlock()
	return func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		i := slices.IndexFunc(r.afters, func(a afterFunc) bool { return a.id == id })
		if i < 0 {
			return false
		}
		r.afters = slices.Delete(r.afters, i, i+1)
		return true
	}
}

func (r *requestCtx) String() string { return "cqlserver.requestCtx" }
