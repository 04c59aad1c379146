package httpsec

import (
	"net"
	"sync"
	"time"
)

// Login backoff: after freeFailures bad passwords from one client address,
// each further attempt must wait, starting at one second and doubling up
// to maxBackoff; a good password clears the address.
const (
	freeFailures     = 5
	maxBackoff       = time.Minute
	maxTrackedClient = 10000
)

// loginThrottle counts failed logins per client IP address.
type loginThrottle struct {
	now func() time.Time
	mu  sync.Mutex
	m   map[string]*loginFailures
}

type loginFailures struct {
	count int
	until time.Time // no attempt before this
	last  time.Time
}

func newLoginThrottle(now func() time.Time) *loginThrottle {
	return &loginThrottle{now: now, m: map[string]*loginFailures{}}
}

func clientIP(remote string) string {
	if h, _, err := net.SplitHostPort(remote); err == nil {
		return h
	}
	return remote
}

// wait is how long the address must still wait (0: it may try now).
func (t *loginThrottle) wait(ip string) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	if f := t.m[ip]; f != nil {
		if d := f.until.Sub(t.now()); d > 0 {
			return d
		}
	}
	return 0
}

// failed records a bad password from ip.
func (t *loginThrottle) failed(ip string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	f := t.m[ip]
	if f == nil {
		if len(t.m) >= maxTrackedClient {
			t.prune(now)
		}
		f = &loginFailures{}
		t.m[ip] = f
	}
	f.count++
	f.last = now
	if over := f.count - freeFailures; over >= 0 {
		f.until = now.Add(min(time.Second<<min(over, 10), maxBackoff))
	}
}

// succeeded clears ip.
func (t *loginThrottle) succeeded(ip string) {
	t.mu.Lock()
	delete(t.m, ip)
	t.mu.Unlock()
}

// prune forgets addresses quiet for longer than the longest backoff, or
// everything when that frees nothing.
func (t *loginThrottle) prune(now time.Time) {
	for ip, f := range t.m {
		if now.Sub(f.last) > 2*maxBackoff {
			delete(t.m, ip)
		}
	}
	if len(t.m) >= maxTrackedClient {
		clear(t.m)
	}
}
