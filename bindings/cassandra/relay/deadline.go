package relay

import (
	"time"

	"github.com/dohyo/dohyo/internal/conncore"
)

// Request deadlines on a backend connection. A request on the relay's fast
// path records its deadline with its stream id instead of arming a runtime
// timer of its own: the connection keeps one timer (conncore.Alarm),
// armed for the earliest deadline of the requests it has waiting. When it
// fires, the sweep takes every request whose deadline has passed off its
// stream (the id stays reserved until the late answer arrives, as abandon
// does) and answers it with the timeout; then it arms the timer for the
// next deadline. While
// requests are answered in time and their timeouts are alike, the timer
// fires about once per timeout per connection, and a request costs a clock
// read and a comparison.

// An expirer is a waiter that can time out: Expire claims it for the
// timeout (false when it was answered meanwhile), under the connection's
// lock; Expired then answers the timeout, off the lock.
type expirer interface {
	waiter
	Expire() bool
	Expired()
}

// deadlines are a backend connection's request deadlines, guarded by the
// connection's mu.
type deadlines struct {
	at    [relayStreams]time.Duration // per stream id, since the connection was made; 0: none
	alarm conncore.Alarm              // fires bc.sweep
}

// setDeadline records stream id's deadline, timeout from now, and arms the
// alarm when the deadline is earlier than the one it is armed for. bc.mu
// is held.
func (bc *Conn) setDeadline(id int16, timeout time.Duration) {
	at := bc.dl.alarm.Now() + timeout
	bc.dl.at[id] = at
	bc.dl.alarm.Want(at)
}

// sweep answers the requests whose deadline has passed with their timeout
// and arms the alarm for the next deadline.
func (bc *Conn) sweep() {
	var expired []expirer
	bc.mu.Lock()
	now := bc.dl.alarm.Now()
	var next time.Duration
	for id, at := range bc.dl.at {
		if at == 0 {
			continue
		}
		if at > now {
			if next == 0 || at < next {
				next = at
			}
			continue
		}
		bc.dl.at[id] = 0
		x, ok := bc.waiting[id].(expirer)
		if !ok || !x.Expire() {
			continue
		}
		// As abandon: the id stays reserved until the late answer.
		bc.waiting[id], bc.orphan[id] = nil, true
		bc.inflight.Add(-1)
		bc.orphans.Add(1)
		expired = append(expired, x)
	}
	bc.dl.alarm.Rearm(next, now, next != 0 && !bc.isClosed())
	retire := len(expired) > 0 && bc.orphans.Load() >= maxOrphans && bc.inflight.Load() == 0
	bc.mu.Unlock()
	if retire {
		bc.close(errTooManyOrphans)
	}
	for _, x := range expired {
		x.Expired()
	}
}

// stopSweep stops the alarm (the connection is closed). bc.mu is held.
func (bc *Conn) stopSweep() { bc.dl.alarm.Stop() }
