package cqlserver

import (
	"sync"
	"time"

	"github.com/dohyo/dohyo/internal/conncore"
)

// deadlines are a connection's requests that have a deadline, and one
// timer (conncore.Alarm) armed for the earliest of them. A request joins
// the list when it starts and leaves it when it is answered; neither arms
// or stops a runtime timer (each did, through a time.AfterFunc per
// request: an allocation for the timer, one for its callback, and two
// operations on the runtime's timer heap). While requests are answered in time the timer
// fires about once per timeout, finds nothing due, and is armed again for
// the earliest deadline still listed.
//
// A request's deadline passes while it is listed: the sweep takes it off
// the list and expires it (its ctx ends, the client gets the timeout
// error). finish then finds it gone and waits for that expiry to return.
type deadlines struct {
	mu    sync.Mutex
	list  ctxList[deadlineLink] // in start order
	alarm conncore.Alarm        // runs sweep; stopped when the connection ends
}

// add lists r and arms the alarm when r's deadline is earlier than the
// one it is armed for.
func (d *deadlines) add(r *requestCtx) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.list.pushBack(r)
	d.alarm.Want(d.alarm.At(r.deadline))
}

// remove takes r off the list; false when the sweep took it first (its
// expiry has started).
func (d *deadlines) remove(r *requestCtx) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.list.remove(r)
}

// sweep expires the listed requests whose deadline has passed, in start
// order, and arms the alarm for the earliest deadline left.
func (d *deadlines) sweep() {
	var due []*requestCtx
	d.mu.Lock()
	now := d.alarm.Now()
	var next time.Duration
	left := false
	for r := d.list.head; r != nil; {
		after := d.list.next(r)
		if at := d.alarm.At(r.deadline); at <= now {
			d.list.remove(r)
			due = append(due, r)
		} else if !left || at < next {
			next, left = at, true
		}
		r = after
	}
	d.alarm.Rearm(next, now, left)
	d.mu.Unlock()
	for _, r := range due {
		r.expire()
	}
}

// close stops the alarm for good (the connection has ended and its
// requests have been answered).
func (d *deadlines) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.alarm.Stop()
}
