package relay

import "time"

// Request deadlines on a backend connection. A request on the relay's fast
// path records its deadline with its stream id instead of arming a runtime
// timer of its own: the connection keeps one timer, armed for the earliest
// deadline of the requests it has waiting. When it fires, the sweep takes
// every request whose deadline has passed off its stream (the id stays
// reserved until the late answer arrives, as abandon does) and answers it
// with the timeout; then it arms the timer for the next deadline. While
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
	at    [relayStreams]int64 // per stream id, in clock() nanoseconds; 0: none
	timer *time.Timer         // fires bc.sweep; nil until the first deadline
	armed int64               // when timer fires (clock()); 0: not armed
}

// clock returns monotonic nanoseconds since the connection was made (never
// 0 for a deadline: those are in the future).
func (bc *Conn) clock() int64 { return int64(time.Since(bc.born)) }

// setDeadline records stream id's deadline, timeout from now, and arms the
// timer when the deadline is earlier than the one it is armed for. bc.mu
// is held.
func (bc *Conn) setDeadline(id int16, timeout time.Duration) {
	now := bc.clock()
	at := now + int64(timeout)
	bc.dl.at[id] = at
	if bc.dl.armed != 0 && bc.dl.armed <= at {
		return
	}
	bc.dl.armed = at
	if bc.dl.timer == nil {
		bc.dl.timer = time.AfterFunc(timeout, bc.sweep)
		return
	}
	bc.dl.timer.Reset(timeout)
}

// sweep answers the requests whose deadline has passed with their timeout
// and arms the timer for the next deadline.
func (bc *Conn) sweep() {
	var expired []expirer
	bc.mu.Lock()
	now := bc.clock()
	var next int64
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
	bc.dl.armed = next
	if next != 0 && !bc.isClosed() {
		bc.dl.timer.Reset(time.Duration(next - now))
	}
	retire := len(expired) > 0 && bc.orphans.Load() >= maxOrphans && bc.inflight.Load() == 0
	bc.mu.Unlock()
	if retire {
		bc.close(errTooManyOrphans)
	}
	for _, x := range expired {
		x.Expired()
	}
}

// stopSweep stops the timer (the connection is closed). bc.mu is held.
func (bc *Conn) stopSweep() {
	if bc.dl.timer != nil {
		bc.dl.timer.Stop()
	}
	bc.dl.armed = 0
}
