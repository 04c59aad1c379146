package region

import (
	"errors"
	"os"
	"time"
)

// dohyo patch: the read deadline is armed lazily.
//
// Upstream set the connection's read deadline to now+readTimeout on every
// RPC sent and cleared it whenever the last answer arrived: two runtime
// timer operations per call (each SetReadDeadline takes the poller's lock
// and moves its timer in the runtime's heap). Here a send moves the
// deadline only when less than readTimeout of it is left, and then to
// 1.5×readTimeout from now; so while RPCs are in flight the deadline stays
// between readTimeout and 1.5×readTimeout after the last send (never
// earlier than upstream's), and under steady load it moves once per half
// read timeout. The last answer no longer clears it: a read that times out
// while nothing is in flight, or after a send moved the deadline past now,
// clears or keeps the new deadline and reads again (deadlineReader). Only
// a timeout with RPCs in flight and the deadline passed fails the client,
// as upstream's did.

// now is the time for deadlines, from the monotonic clock alone (one
// clock read where time.Now makes two); its wall reading is the client's
// start plus the monotonic time since, which deadlines never look at.
func (c *client) now() time.Time { return c.born.Add(time.Since(c.born)) }

func (c *client) inFlightUp() error {
	c.inFlightM.Lock()
	defer c.inFlightM.Unlock()
	c.inFlight++
	now := c.now()
	if !c.readDeadline.IsZero() && c.readDeadline.Sub(now) >= c.readTimeout {
		return nil
	}
	c.readDeadline = now.Add(c.readTimeout + c.readTimeout/2)
	return c.conn.SetReadDeadline(c.readDeadline)
}

func (c *client) inFlightDown() {
	c.inFlightM.Lock()
	c.inFlight--
	c.inFlightM.Unlock()
}

// staleTimeout reports whether a read that timed out should be tried
// again: no RPC is in flight (the deadline is then cleared), or a send
// moved the deadline after the read timed out.
func (c *client) staleTimeout() bool {
	c.inFlightM.Lock()
	defer c.inFlightM.Unlock()
	if c.inFlight == 0 {
		c.readDeadline = time.Time{}
		return c.conn.SetReadDeadline(time.Time{}) == nil
	}
	return c.now().Before(c.readDeadline)
}

// deadlineReader reads the connection for receiveRPCs, reading again after
// a timeout that no longer applies.
type deadlineReader struct{ c *client }

func (r deadlineReader) Read(p []byte) (int, error) {
	for {
		n, err := r.c.conn.Read(p)
		if n > 0 || err == nil || !errors.Is(err, os.ErrDeadlineExceeded) || !r.c.staleTimeout() {
			return n, err
		}
	}
}
