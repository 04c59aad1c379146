package cqlserver

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Password guessing: after Threshold failed authentications from one
// client address, each further attempt from it waits before it is
// evaluated (BaseDelay, doubling per failure, capped at MaxDelay); a
// success or Forget without failures clears the address.

// AuthBackoffConfig configures the backoff; zero fields take defaults.
type AuthBackoffConfig struct {
	// Threshold is the failures allowed before attempts are delayed
	// (negative: no backoff).
	Threshold int
	// BaseDelay is the first delay; each further failure doubles it.
	BaseDelay time.Duration
	// MaxDelay caps the delay.
	MaxDelay time.Duration
	// Forget clears an address after this long without failures.
	Forget time.Duration
}

// Defaults of AuthBackoffConfig.
const (
	DefaultAuthBackoffThreshold = 5
	DefaultAuthBackoffBase      = 200 * time.Millisecond
	DefaultAuthBackoffMax       = 5 * time.Second
	DefaultAuthBackoffForget    = 15 * time.Minute
	// maxBackoffEntries bounds the addresses remembered; beyond it the
	// expired ones are dropped, then the table is reset.
	maxBackoffEntries = 1 << 16
)

type authBackoff struct {
	cfg       AuthBackoffConfig
	mu        sync.Mutex
	fails     map[string]*authFails
	throttled atomic.Uint64
	now       func() time.Time
}

type authFails struct {
	n    int
	last time.Time
}

func newAuthBackoff(cfg AuthBackoffConfig) *authBackoff {
	if cfg.Threshold == 0 {
		cfg.Threshold = DefaultAuthBackoffThreshold
	}
	if cfg.BaseDelay <= 0 {
		cfg.BaseDelay = DefaultAuthBackoffBase
	}
	if cfg.MaxDelay <= 0 {
		cfg.MaxDelay = DefaultAuthBackoffMax
	}
	if cfg.Forget <= 0 {
		cfg.Forget = DefaultAuthBackoffForget
	}
	return &authBackoff{cfg: cfg, fails: map[string]*authFails{}, now: time.Now}
}

// clientKey is the address a backoff is kept for: the IP, without port.
func clientKey(a net.Addr) string {
	if ta, ok := a.(*net.TCPAddr); ok {
		return ta.IP.String()
	}
	if a == nil {
		return ""
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
}

// delay is how long the next attempt from key waits.
func (b *authBackoff) delay(key string) time.Duration {
	if b.cfg.Threshold < 0 {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	f := b.fails[key]
	if f == nil || f.n < b.cfg.Threshold {
		return 0
	}
	if b.now().Sub(f.last) > b.cfg.Forget {
		delete(b.fails, key)
		return 0
	}
	d := b.cfg.BaseDelay
	for i := b.cfg.Threshold; i < f.n && d < b.cfg.MaxDelay; i++ {
		d *= 2
	}
	return min(d, b.cfg.MaxDelay)
}

// wait sleeps for key's delay (or until ctx ends) and reports the delay.
func (b *authBackoff) wait(ctx context.Context, key string) time.Duration {
	d := b.delay(key)
	if d <= 0 {
		return 0
	}
	b.throttled.Add(1)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
	return d
}

func (b *authBackoff) failed(key string) {
	if b.cfg.Threshold < 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	if len(b.fails) >= maxBackoffEntries {
		for k, f := range b.fails {
			if now.Sub(f.last) > b.cfg.Forget {
				delete(b.fails, k)
			}
		}
		if len(b.fails) >= maxBackoffEntries {
			clear(b.fails)
		}
	}
	f := b.fails[key]
	if f == nil {
		f = &authFails{}
		b.fails[key] = f
	}
	f.n++
	f.last = now
}

func (b *authBackoff) succeeded(key string) {
	b.mu.Lock()
	delete(b.fails, key)
	b.mu.Unlock()
}
