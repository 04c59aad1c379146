package httpsec

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"sync"
	"time"
)

// Defaults of TokenStore.
const (
	DefaultTokenTTL  = 30 * time.Minute
	DefaultMaxTokens = 65536
)

// TokenStore keeps issued tokens in memory, each with its user and
// expiry. Tokens are 256 random bits; the store keeps only their SHA-256,
// so a memory dump yields no usable token, and a lookup compares the
// digest in constant time. Tokens are local to one process: a tier of
// several instances needs sticky sessions, or clients that fetch a token
// from the instance they talk to.
type TokenStore struct {
	ttl time.Duration
	max int
	now func() time.Time

	mu     sync.Mutex
	tokens map[[sha256.Size]byte]tokenEntry
}

type tokenEntry struct {
	digest  [sha256.Size]byte
	user    string
	expires time.Time
}

// NewTokenStore returns a store whose tokens live ttl (0: DefaultTokenTTL)
// and which keeps at most max of them (0: DefaultMaxTokens; beyond it the
// tokens closest to expiry are dropped). now is the clock (nil: time.Now).
func NewTokenStore(ttl time.Duration, max int, now func() time.Time) *TokenStore {
	if ttl <= 0 {
		ttl = DefaultTokenTTL
	}
	if max <= 0 {
		max = DefaultMaxTokens
	}
	if now == nil {
		now = time.Now
	}
	return &TokenStore{ttl: ttl, max: max, now: now, tokens: map[[sha256.Size]byte]tokenEntry{}}
}

// TTL is how long a token lives.
func (s *TokenStore) TTL() time.Duration { return s.ttl }

// Issue creates a token for user.
func (s *TokenStore) Issue(user string) (token string, expires time.Time) {
	var raw [32]byte
	rand.Read(raw[:])
	token = hex.EncodeToString(raw[:])
	d := sha256.Sum256([]byte(token))
	now := s.now()
	expires = now.Add(s.ttl)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.tokens) >= s.max {
		s.evict(now)
	}
	s.tokens[d] = tokenEntry{digest: d, user: user, expires: expires}
	return token, expires
}

// evict drops expired tokens, then, when still full, the oldest quarter.
func (s *TokenStore) evict(now time.Time) {
	for k, e := range s.tokens {
		if !now.Before(e.expires) {
			delete(s.tokens, k)
		}
	}
	if len(s.tokens) < s.max {
		return
	}
	cut := now.Add(s.ttl / 4)
	for k, e := range s.tokens {
		if e.expires.Before(cut) || len(s.tokens) >= s.max {
			delete(s.tokens, k)
		}
	}
}

// Lookup returns the user of a valid, unexpired token.
func (s *TokenStore) Lookup(token string) (user string, ok bool) {
	if token == "" {
		return "", false
	}
	d := sha256.Sum256([]byte(token))
	s.mu.Lock()
	e, found := s.tokens[d]
	if found && !s.now().Before(e.expires) {
		delete(s.tokens, d)
		found = false
	}
	s.mu.Unlock()
	if !found || subtle.ConstantTimeCompare(e.digest[:], d[:]) != 1 {
		return "", false
	}
	return e.user, true
}

// Len is the number of tokens kept (expired ones not yet dropped included).
func (s *TokenStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.tokens)
}
