package auth

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/dohyo/dohyo/bindings"
)

// DefaultValidity is how long an instance trusts the roles and grants it
// read before reading them again (Cassandra's roles_validity and
// permissions_validity default to 2 s as well).
const DefaultValidity = 2 * time.Second

// Authenticator checks a user name and password and returns the role the
// client acts as. Errors are *bindings.Error with CodeAuthError.
type Authenticator interface {
	Authenticate(ctx context.Context, user, password string) (role string, err error)
}

// Authorizer decides whether role may use perm on res (or on one of its
// parents). It returns nil, or a *bindings.Error with CodeUnauthorized and
// Cassandra's message.
type Authorizer interface {
	Authorize(ctx context.Context, role string, perm Permission, res Resource) error
}

// Config configures a Manager.
type Config struct {
	// Store keeps the roles (nil: a MemStore, nothing shared).
	Store Store
	// Bootstrap are the configured users (name -> bcrypt hash): login
	// superusers on this instance, whatever the store holds.
	Bootstrap map[string]string
	// Validity bounds how stale this instance's copy may be (0: DefaultValidity).
	Validity time.Duration
	// Exists tells whether a data resource (keyspace or table) exists, for
	// GRANT and LIST; nil: every one does.
	Exists func(ctx context.Context, res Resource) (bool, error)
	// HashCost is the bcrypt cost of passwords set by CREATE/ALTER ROLE
	// (0: bcrypt.DefaultCost, Cassandra's 10).
	HashCost int
	Logger   *slog.Logger
	Clock    func() time.Time
}

// Manager is the role manager, authenticator and authorizer. It is safe for
// concurrent use.
type Manager struct {
	store     Store
	bootstrap map[string]string
	validity  time.Duration
	exists    func(ctx context.Context, res Resource) (bool, error)
	cost      int
	log       *slog.Logger
	now       func() time.Time

	snap   atomic.Pointer[snapshot]
	loadMu sync.Mutex // one reload at a time
	write  sync.Mutex // one local change at a time

	dummy    []byte // compared for unknown users: equal timing
	key      [32]byte
	verMu    sync.Mutex
	verified map[string]verified
}

type snapshot struct {
	st *state
	at time.Time
}

// verified remembers the last password that matched a hash (as an HMAC
// with a per-process key), so drivers opening many connections pay
// bcrypt's cost once.
type verified struct {
	hash string
	mac  [sha256.Size]byte
}

var (
	_ Authenticator = (*Manager)(nil)
	_ Authorizer    = (*Manager)(nil)
)

// New returns a Manager; roles are read from the store on first use.
func New(cfg Config) (*Manager, error) {
	m := &Manager{
		store: cfg.Store, bootstrap: map[string]string{}, validity: cfg.Validity, exists: cfg.Exists,
		cost: cfg.HashCost, log: cfg.Logger, now: cfg.Clock, verified: map[string]verified{},
	}
	if m.store == nil {
		m.store = &MemStore{}
	}
	if m.validity <= 0 {
		m.validity = DefaultValidity
	}
	if m.cost == 0 {
		m.cost = bcrypt.DefaultCost
	}
	if m.log == nil {
		m.log = slog.New(slog.DiscardHandler)
	}
	if m.now == nil {
		m.now = time.Now
	}
	cost := m.cost
	for name, hash := range cfg.Bootstrap {
		if name == "" {
			return nil, errors.New("auth: empty user name")
		}
		c, err := bcrypt.Cost([]byte(hash))
		if err != nil {
			return nil, fmt.Errorf("auth: user %s: not a bcrypt hash: %w", name, err)
		}
		cost = max(cost, c)
		m.bootstrap[name] = hash
	}
	dummy, err := bcrypt.GenerateFromPassword([]byte("dohyo-no-such-user"), cost)
	if err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	m.dummy = dummy
	rand.Read(m.key[:])
	return m, nil
}

// Reload reads the roles from the store now.
func (m *Manager) Reload(ctx context.Context) error {
	_, err := m.load(ctx)
	return err
}

// current returns a snapshot no older than the validity period, reading
// the store when needed. When the store fails and an older copy exists, the
// older copy is used (and the failure logged).
func (m *Manager) current(ctx context.Context) (*state, error) {
	if s := m.snap.Load(); s != nil && m.now().Sub(s.at) < m.validity {
		return s.st, nil
	}
	m.loadMu.Lock()
	defer m.loadMu.Unlock()
	if s := m.snap.Load(); s != nil && m.now().Sub(s.at) < m.validity {
		return s.st, nil
	}
	st, err := m.load(ctx)
	if err != nil {
		if s := m.snap.Load(); s != nil {
			m.log.Warn("reading roles failed; using the copy read before", "err", err, "age", m.now().Sub(s.at))
			m.snap.Store(&snapshot{st: s.st, at: m.now()}) // retry after another validity period
			return s.st, nil
		}
		return nil, err
	}
	return st, nil
}

func (m *Manager) load(ctx context.Context) (*state, error) {
	raw, err := m.store.GetMeta(ctx, MetaKey)
	if err != nil {
		return nil, bindings.Errorf(bindings.CodeUnavailable, "Unable to read roles: %v", err)
	}
	st, err := decodeState(raw)
	if err != nil {
		return nil, bindings.Errorf(bindings.CodeServerError, "%v", err)
	}
	m.snap.Store(&snapshot{st: st, at: m.now()})
	return st, nil
}

// errConflict is a concurrent change by another instance (CAS refused).
var errConflict = errors.New("auth: concurrent change")

// update applies fn to a fresh copy of the stored state and writes it back,
// with compare-and-set when the store has it (retrying on conflicts). fn
// validates against, and changes, the view it gets.
func (m *Manager) update(ctx context.Context, fn func(v *view) error) error {
	m.write.Lock()
	defer m.write.Unlock()
	cas, _ := m.store.(CASStore)
	for attempt := 0; attempt < 8; attempt++ {
		raw, err := m.store.GetMeta(ctx, MetaKey)
		if err != nil {
			return bindings.Errorf(bindings.CodeUnavailable, "Unable to read roles: %v", err)
		}
		cur, err := decodeState(raw)
		if err != nil {
			return bindings.Errorf(bindings.CodeServerError, "%v", err)
		}
		next := cur.clone()
		if err := fn(m.viewOf(next)); err != nil {
			m.snap.Store(&snapshot{st: cur, at: m.now()})
			return err
		}
		enc, err := next.encode()
		if err != nil {
			return bindings.Errorf(bindings.CodeServerError, "auth: encode roles: %v", err)
		}
		if cas != nil {
			ok, err := cas.CompareAndSetMeta(ctx, MetaKey, raw, enc)
			if err != nil {
				return bindings.Errorf(bindings.CodeWriteFailure, "Unable to write roles: %v", err)
			}
			if !ok {
				continue
			}
		} else if err := m.store.PutMeta(ctx, MetaKey, enc); err != nil {
			return bindings.Errorf(bindings.CodeWriteFailure, "Unable to write roles: %v", err)
		}
		m.snap.Store(&snapshot{st: next, at: m.now()})
		return nil
	}
	return bindings.Errorf(bindings.CodeWriteTimeout, "%v: roles changed concurrently too often, try again", errConflict)
}

// view is a state as seen through the bootstrap users.
type view struct {
	st        *state
	bootstrap map[string]string
}

func (m *Manager) viewOf(st *state) *view { return &view{st: st, bootstrap: m.bootstrap} }

// role returns a role's record (nil: no such role). Bootstrap users are
// login superusers with their configured hash.
func (v *view) role(name string) *role {
	r := v.st.Roles[name]
	hash, boot := v.bootstrap[name]
	if !boot {
		return r
	}
	b := &role{Hash: hash, Login: true, Super: true}
	if r != nil {
		b.MemberOf, b.Options = r.MemberOf, r.Options
	}
	return b
}

func (v *view) exists(name string) bool { return v.role(name) != nil }

// names lists every role, sorted.
func (v *view) names() []string {
	out := make([]string, 0, len(v.st.Roles)+len(v.bootstrap))
	for n := range v.st.Roles {
		out = append(out, n)
	}
	for n := range v.bootstrap {
		if v.st.Roles[n] == nil {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// rolesOf returns name and the roles granted to it (transitively when
// recursive), sorted; nothing for an unknown role.
func (v *view) rolesOf(name string, recursive bool) []string {
	r := v.role(name)
	if r == nil {
		return nil
	}
	seen := map[string]bool{name: true}
	out := []string{name}
	var walk func(r *role)
	walk = func(r *role) {
		for _, parent := range r.MemberOf {
			if seen[parent] {
				continue
			}
			pr := v.role(parent)
			if pr == nil {
				continue
			}
			seen[parent] = true
			out = append(out, parent)
			if recursive {
				walk(pr)
			}
		}
	}
	walk(r)
	slices.Sort(out)
	return out
}

// isSuper tells whether name or a role granted to it is a superuser.
func (v *view) isSuper(name string) bool {
	for _, r := range v.rolesOf(name, true) {
		if v.role(r).Super {
			return true
		}
	}
	return false
}

// permitted tells whether name holds perm on res or one of its parents.
// Superusers hold every permission.
func (v *view) permitted(name string, perm Permission, res Resource) bool {
	if v.isSuper(name) {
		return true
	}
	roles := v.rolesOf(name, true)
	for _, r := range res.Chain() {
		for _, role := range roles {
			if slices.Contains(v.st.Perms[role][r.Name()], perm) {
				return true
			}
		}
	}
	return false
}

func unauthorized(format string, args ...any) error {
	return bindings.Errorf(bindings.CodeUnauthorized, format, args...)
}

func invalid(format string, args ...any) error {
	return bindings.Errorf(bindings.CodeInvalid, format, args...)
}

// ensure is Cassandra's ensurePermission on a resource chain.
func (v *view) ensure(name string, perm Permission, res Resource) error {
	if v.permitted(name, perm, res) {
		return nil
	}
	return unauthorized("User %s has no %s permission on %s or any of its parents", name, perm, res)
}

// Authorize implements Authorizer.
func (m *Manager) Authorize(ctx context.Context, role string, perm Permission, res Resource) error {
	st, err := m.current(ctx)
	if err != nil {
		return err
	}
	r := m.resolve(st, role)
	if r.super {
		return nil
	}
	for _, c := range res.Chain() {
		if slices.Contains(r.perms[c.Name()], perm) {
			return nil
		}
	}
	return unauthorized("User %s has no %s permission on %s or any of its parents", role, perm, res)
}

// resolve returns a role's effective rights in an installed snapshot,
// computed once per snapshot.
func (m *Manager) resolve(st *state, role string) *resolved {
	if r, ok := st.resolved.Load(role); ok {
		return r.(*resolved)
	}
	v := m.viewOf(st)
	r := &resolved{exists: v.exists(role), perms: map[string][]Permission{}}
	if r.exists {
		r.super = v.isSuper(role)
		for _, held := range v.rolesOf(role, true) {
			for name, ps := range st.Perms[held] {
				r.perms[name] = append(r.perms[name], ps...)
			}
		}
	}
	st.resolved.Store(role, r)
	return r
}

// IsSuperuser tells whether role is, or inherits, a superuser role.
func (m *Manager) IsSuperuser(ctx context.Context, role string) (bool, error) {
	st, err := m.current(ctx)
	if err != nil {
		return false, err
	}
	return m.resolve(st, role).super, nil
}

// Authenticate implements Authenticator: the password is checked against
// the role's bcrypt hash, then the role must have LOGIN.
func (m *Manager) Authenticate(ctx context.Context, user, password string) (string, error) {
	st, err := m.current(ctx)
	if err != nil {
		if _, boot := m.bootstrap[user]; !boot {
			return "", bindings.Errorf(bindings.CodeAuthError, "Unable to perform authentication: %v", bindings.AsError(err).Message)
		}
		st = newState() // configured users log in without the store
	}
	r := m.viewOf(st).role(user)
	if !m.checkPassword(user, r, password) {
		return "", bindings.Errorf(bindings.CodeAuthError, "Provided username %s and/or password are incorrect", user)
	}
	if !r.Login {
		return "", bindings.Errorf(bindings.CodeAuthError, "%s is not permitted to log in", user)
	}
	return user, nil
}

func (m *Manager) checkPassword(user string, r *role, password string) bool {
	mac := hmac.New(sha256.New, m.key[:])
	mac.Write([]byte(password))
	var sum [sha256.Size]byte
	mac.Sum(sum[:0])
	ok := r != nil && r.Hash != ""
	hash := m.dummy
	if ok {
		hash = []byte(r.Hash)
		m.verMu.Lock()
		prev, seen := m.verified[user]
		m.verMu.Unlock()
		if seen && prev.hash == r.Hash && subtle.ConstantTimeCompare(prev.mac[:], sum[:]) == 1 {
			return true
		}
	}
	if bcrypt.CompareHashAndPassword(hash, []byte(password)) != nil || !ok {
		return false
	}
	m.verMu.Lock()
	m.verified[user] = verified{hash: r.Hash, mac: sum}
	m.verMu.Unlock()
	return true
}
