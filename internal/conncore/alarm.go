package conncore

import "time"

// Alarm is one runtime timer armed for the earliest of a set of deadlines
// its owner keeps (a connection's requests): a request costs a comparison
// instead of a timer of its own (an allocation for the timer and its
// callback and two operations on the runtime's timer heap). While
// requests are answered in time and their timeouts are alike, the timer
// fires about once per timeout, the owner's sweep finds nothing due, and
// re-arms it for the earliest deadline left.
//
// Deadlines are durations since the Alarm's epoch (monotonic). The Alarm
// has no lock of its own: its owner calls it under the lock that guards
// the deadlines.
type Alarm struct {
	epoch   time.Time
	fire    func()
	timer   *time.Timer // nil until the first deadline
	armed   time.Duration
	isArmed bool
	stopped bool
}

// Init prepares a (the zero Alarm, embedded in its owner) to run fire,
// the owner's sweep, when a deadline is due; deadlines count from epoch.
func (a *Alarm) Init(epoch time.Time, fire func()) {
	a.epoch, a.fire = epoch, fire
}

// Now is the time since the epoch.
func (a *Alarm) Now() time.Duration { return time.Since(a.epoch) }

// At is the deadline t as a duration since the epoch.
func (a *Alarm) At(t time.Time) time.Duration { return t.Sub(a.epoch) }

// Want arms the alarm for at, unless it is armed for an earlier (or the
// same) deadline or stopped.
func (a *Alarm) Want(at time.Duration) {
	if a.stopped || (a.isArmed && a.armed <= at) {
		return
	}
	a.set(at, at-a.Now())
}

// Rearm is the end of the owner's sweep: the alarm is armed for next, the
// earliest deadline left (with any false: none), now being the time the
// sweep read.
func (a *Alarm) Rearm(next, now time.Duration, any bool) {
	if !any || a.stopped {
		a.isArmed = false
		return
	}
	a.set(next, next-now)
}

func (a *Alarm) set(at, wait time.Duration) {
	a.armed, a.isArmed = at, true
	if a.timer == nil {
		a.timer = time.AfterFunc(wait, a.fire)
		return
	}
	a.timer.Reset(wait)
}

// Armed is the deadline the alarm is armed for (false: none).
func (a *Alarm) Armed() (time.Duration, bool) { return a.armed, a.isArmed }

// Stop stops the alarm for good (its owner has ended).
func (a *Alarm) Stop() {
	a.stopped, a.isArmed = true, false
	if a.timer != nil {
		a.timer.Stop()
	}
}
