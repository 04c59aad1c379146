package cassandra

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/gocql/gocql"
)

// gocql binds a session to one keyspace (it refuses USE, and protocol v4
// has no per-request keyspace), so the backend keeps one session per
// keyspace in use, opened lazily, plus one without a keyspace. Requests
// hold a reference while they run; a session is closed when it is evicted
// (beyond MaxSessions, least recently used first) or its keyspace is
// dropped through this backend, once its last request ends.

type sessionEntry struct {
	ks    string
	ready chan struct{} // closed when sess/err are set
	sess  *gocql.Session
	err   error

	refs    int
	lastUse time.Time
	closing bool // close when refs drops to 0
}

type sessions struct {
	newSession func(ks string) (*gocql.Session, error)
	max        int

	mu      sync.Mutex
	entries map[string]*sessionEntry
	closed  bool
}

func newSessions(max int, open func(ks string) (*gocql.Session, error)) *sessions {
	return &sessions{newSession: open, max: max, entries: map[string]*sessionEntry{}}
}

// acquire returns the session for ks and a release function. Opening a
// session can take a while: concurrent callers wait for the same attempt,
// bounded by ctx. A failed attempt is not cached.
func (s *sessions) acquire(ctx context.Context, ks string) (*gocql.Session, func(), error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, nil, gocql.ErrSessionClosed
	}
	e := s.entries[ks]
	if e == nil {
		e = &sessionEntry{ks: ks, ready: make(chan struct{})}
		s.entries[ks] = e
		s.evictLocked()
		go s.open(e)
	}
	e.refs++
	e.lastUse = time.Now()
	s.mu.Unlock()

	release := func() { s.release(e) }
	select {
	case <-e.ready:
	case <-ctx.Done():
		release()
		return nil, nil, ctx.Err()
	}
	if e.err != nil {
		release()
		return nil, nil, e.err
	}
	return e.sess, release, nil
}

func (s *sessions) open(e *sessionEntry) {
	sess, err := s.newSession(e.ks)
	s.mu.Lock()
	e.sess, e.err = sess, err
	if err != nil && s.entries[e.ks] == e {
		delete(s.entries, e.ks) // the next request tries again
	}
	if s.closed && sess != nil {
		e.closing = true
	}
	close(e.ready)
	closeNow := e.closing && e.refs == 0 && sess != nil
	s.mu.Unlock()
	if closeNow {
		sess.Close()
	}
}

func (s *sessions) release(e *sessionEntry) {
	s.mu.Lock()
	e.refs--
	closeNow := e.closing && e.refs == 0 && e.sess != nil
	if closeNow {
		e.closing = false // close once
	}
	s.mu.Unlock()
	if closeNow {
		e.sess.Close()
	}
}

// evictLocked marks idle sessions for closing while more than max exist.
func (s *sessions) evictLocked() {
	for len(s.entries) > s.max {
		var victim *sessionEntry
		for _, e := range s.entries {
			if e.refs > 0 {
				continue
			}
			select {
			case <-e.ready:
			default:
				continue // still opening
			}
			if victim == nil || e.lastUse.Before(victim.lastUse) {
				victim = e
			}
		}
		if victim == nil {
			return // everything is busy: allow the excess for now
		}
		s.dropLocked(victim)
	}
}

// dropLocked removes e and closes its session once it is idle.
func (s *sessions) dropLocked(e *sessionEntry) {
	if s.entries[e.ks] == e {
		delete(s.entries, e.ks)
	}
	e.closing = true
	if e.refs == 0 && e.sess != nil {
		sess := e.sess
		e.closing = false
		go sess.Close() // gocql's Close waits for its goroutines
	}
}

// forget closes the session for ks (its keyspace was dropped).
func (s *sessions) forget(ks string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.entries[ks]; e != nil {
		select {
		case <-e.ready:
			s.dropLocked(e)
		default:
			// Still opening: open() will see it removed and close it later.
			delete(s.entries, ks)
			e.closing = true
		}
	}
}

func (s *sessions) close() {
	s.mu.Lock()
	s.closed = true
	var toClose []*gocql.Session
	for ks, e := range s.entries {
		delete(s.entries, ks)
		select {
		case <-e.ready:
			if e.sess != nil {
				toClose = append(toClose, e.sess)
			}
		default:
			e.closing = true // open() closes it when done
		}
	}
	s.mu.Unlock()
	for _, sess := range toClose {
		sess.Close()
	}
}

// clusterConfig builds gocql's configuration for one session.
func clusterConfig(cfg Config, ks string, log *slog.Logger) *gocql.ClusterConfig {
	cc := gocql.NewCluster(cfg.Hosts...)
	cc.Keyspace = ks
	cc.ProtoVersion = cfg.ProtoVersion
	cc.Timeout = cfg.Timeout
	cc.ConnectTimeout = cfg.ConnectTimeout
	cc.NumConns = cfg.NumConns
	cc.Consistency = gocql.One
	// Fidelity: Cassandra assigns write times unless the request carries
	// one; rows come with their own metadata (prepared metadata goes stale
	// after ALTER and lacks LWT columns); no silent retries.
	cc.DefaultTimestamp = false
	cc.DisableSkipMetadata = true
	cc.RetryPolicy = nil
	if cfg.User != "" {
		cc.Authenticator = gocql.PasswordAuthenticator{Username: cfg.User, Password: cfg.Password}
	}
	fallback := gocql.RoundRobinHostPolicy()
	if cfg.LocalDC != "" {
		fallback = gocql.DCAwareRoundRobinPolicy(cfg.LocalDC)
	}
	cc.PoolConfig.HostSelectionPolicy = panicSafePolicy{gocql.TokenAwareHostPolicy(fallback), log}
	cc.Logger = slogLogger{log}
	return cc
}

// panicSafePolicy is gocql's token-aware policy with KeyspaceChanged
// guarded. gocql v1.7.0's keyspace metadata dereferences nil (metadata.go,
// compileMetadata) for a keyspace holding an aggregate without FINALFUNC,
// and the token-aware policy reads that metadata when a session opens and
// on every schema event, in gocql's own goroutines: the process would
// die. Recovered, the keyspace's replicas stay unknown to the policy and
// its requests go to the fallback policy's hosts (TestAggregateWithoutFinalFunc).
type panicSafePolicy struct {
	gocql.HostSelectionPolicy
	log *slog.Logger
}

func (p panicSafePolicy) KeyspaceChanged(ev gocql.KeyspaceUpdateEvent) {
	defer func() {
		if r := recover(); r != nil {
			p.log.Warn("gocql could not read the keyspace's metadata; its requests are not token-aware",
				"keyspace", ev.Keyspace, "panic", fmt.Sprint(r))
		}
	}()
	p.HostSelectionPolicy.KeyspaceChanged(ev)
}

// AddHosts keeps gocql's bulk host registration (an optional method).
func (p panicSafePolicy) AddHosts(hosts []*gocql.HostInfo) {
	if b, ok := p.HostSelectionPolicy.(interface{ AddHosts([]*gocql.HostInfo) }); ok {
		b.AddHosts(hosts)
		return
	}
	for _, h := range hosts {
		p.AddHost(h)
	}
}

// slogLogger adapts gocql's StdLogger to slog (debug level: gocql is chatty
// about reconnections that callers see as errors anyway).
type slogLogger struct{ l *slog.Logger }

func (s slogLogger) Print(v ...any)                 { s.l.Debug("gocql: " + fmt.Sprint(v...)) }
func (s slogLogger) Printf(format string, v ...any) { s.l.Debug("gocql: " + fmt.Sprintf(format, v...)) }
func (s slogLogger) Println(v ...any)               { s.l.Debug("gocql: " + fmt.Sprint(v...)) }
