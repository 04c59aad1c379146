package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"
)

// MetaKey is the store key holding roles, memberships and permissions: its
// own key, apart from the schema catalog.
const MetaKey = "auth/roles"

// Store keeps small metadata values (the engine KV's GetMeta/PutMeta: the
// embedded backend's Pebble store, HBase's catalog table). A missing key
// reads as nil, nil.
type Store interface {
	GetMeta(ctx context.Context, key string) ([]byte, error)
	PutMeta(ctx context.Context, key string, value []byte) error
}

// CASStore is a Store that can replace a value only if it still holds old
// (nil old: only if the key is missing). A Manager on such a store never
// loses a concurrent change made by another instance.
type CASStore interface {
	Store
	CompareAndSetMeta(ctx context.Context, key string, old, value []byte) (bool, error)
}

// MemStore is a Store in memory (no backend keeps metadata; tests). It
// implements CASStore.
type MemStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

// GetMeta implements Store.
func (s *MemStore) GetMeta(_ context.Context, key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.m[key]), nil
}

// PutMeta implements Store.
func (s *MemStore) PutMeta(_ context.Context, key string, value []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	s.m[key] = bytes.Clone(value)
	return nil
}

// CompareAndSetMeta implements CASStore.
func (s *MemStore) CompareAndSetMeta(_ context.Context, key string, old, value []byte) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.m[key]
	if ok != (old != nil) || !bytes.Equal(cur, old) {
		return false, nil
	}
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	s.m[key] = bytes.Clone(value)
	return true, nil
}

// role is one stored role (system_auth.roles).
type role struct {
	Hash     string            `json:"salted_hash,omitempty"`
	Login    bool              `json:"can_login"`
	Super    bool              `json:"is_superuser"`
	MemberOf []string          `json:"member_of,omitempty"`
	Options  map[string]string `json:"options,omitempty"`
}

// state is everything the Manager stores under MetaKey. Perms maps a role
// to resource names (Resource.Name) to the permissions granted there.
type state struct {
	Roles map[string]*role                   `json:"roles"`
	Perms map[string]map[string][]Permission `json:"permissions"`

	// resolved caches, per role, what it holds with its inherited roles
	// (Manager.Authorize). Only states installed as snapshots, which are
	// never changed again, use it.
	resolved sync.Map // role name -> *resolved
}

// resolved is a role's effective rights: superuser status and the union
// of the grants of every role it holds, by resource name.
type resolved struct {
	exists bool
	super  bool
	perms  map[string][]Permission
}

func newState() *state {
	return &state{Roles: map[string]*role{}, Perms: map[string]map[string][]Permission{}}
}

func decodeState(raw []byte) (*state, error) {
	st := newState()
	if len(raw) == 0 {
		return st, nil
	}
	if err := json.Unmarshal(raw, st); err != nil {
		return nil, fmt.Errorf("auth: decode %s: %w", MetaKey, err)
	}
	if st.Roles == nil {
		st.Roles = map[string]*role{}
	}
	if st.Perms == nil {
		st.Perms = map[string]map[string][]Permission{}
	}
	return st, nil
}

func (st *state) encode() ([]byte, error) { return json.Marshal(st) }

// clone deep-copies the state so that a mutation never changes a snapshot
// readers hold.
func (st *state) clone() *state {
	c := newState()
	for n, r := range st.Roles {
		cp := *r
		cp.MemberOf = slices.Clone(r.MemberOf)
		cp.Options = maps.Clone(r.Options)
		c.Roles[n] = &cp
	}
	for n, byRes := range st.Perms {
		m := make(map[string][]Permission, len(byRes))
		for res, ps := range byRes {
			m[res] = slices.Clone(ps)
		}
		c.Perms[n] = m
	}
	return c
}

// grant adds perms on res to grantee.
func (st *state) grant(grantee string, res Resource, perms []Permission) {
	byRes := st.Perms[grantee]
	if byRes == nil {
		byRes = map[string][]Permission{}
		st.Perms[grantee] = byRes
	}
	cur := byRes[res.Name()]
	for _, p := range perms {
		if !slices.Contains(cur, p) {
			cur = append(cur, p)
		}
	}
	sortPermissions(cur)
	byRes[res.Name()] = cur
}

// revoke removes perms on res from revokee.
func (st *state) revoke(revokee string, res Resource, perms []Permission) {
	byRes := st.Perms[revokee]
	if byRes == nil {
		return
	}
	cur := slices.DeleteFunc(byRes[res.Name()], func(p Permission) bool { return slices.Contains(perms, p) })
	if len(cur) == 0 {
		delete(byRes, res.Name())
	} else {
		byRes[res.Name()] = cur
	}
	if len(byRes) == 0 {
		delete(st.Perms, revokee)
	}
}

// revokeAllOn removes every grant on the resource names that match.
func (st *state) revokeAllOn(match func(name string) bool) {
	for grantee, byRes := range st.Perms {
		for name := range byRes {
			if match(name) {
				delete(byRes, name)
			}
		}
		if len(byRes) == 0 {
			delete(st.Perms, grantee)
		}
	}
}
