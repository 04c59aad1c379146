package proxy

import (
	"context"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/dohyo/dohyo/auth"
	"github.com/dohyo/dohyo/bindings"
)

// newAuthCoordinator: backend a executes (checked), backend b is exempt
// (a relayed Cassandra); admin is a bootstrap superuser.
func newAuthCoordinator(t *testing.T) (*Coordinator, *fakeBackend, *fakeBackend) {
	t.Helper()
	h, _ := bcrypt.GenerateFromPassword([]byte("pw"), bcrypt.MinCost)
	m, err := auth.New(auth.Config{Bootstrap: map[string]string{"admin": string(h)}, HashCost: bcrypt.MinCost})
	if err != nil {
		t.Fatal(err)
	}
	a := &fakeBackend{name: "a", keyspaces: []string{"ks_a"}}
	b := &fakeBackend{name: "b", keyspaces: []string{"ks_b"}}
	c, err := New(Config{
		Backends: map[string]bindings.Backend{"a": a, "b": b}, Default: "a",
		Routes: map[string]string{"ks_b": "b"},
		Auth:   m, EnforceAuth: true, AuthExempt: map[string]bool{"b": true},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c, a, b
}

func session(c *Coordinator, role string) *Session {
	s := c.NewSession(bindings.SourceCQL)
	s.SetRole(role)
	return s
}

func query(t *testing.T, s *Session, q string) error {
	t.Helper()
	_, err := s.Query(context.Background(), &bindings.Request{Query: q})
	return err
}

func wantUnauthorized(t *testing.T, err error, msg string) {
	t.Helper()
	be := bindings.AsError(err)
	if err == nil || be.Code != bindings.CodeUnauthorized || be.Message != msg {
		t.Fatalf("error %v, want Unauthorized %q", err, msg)
	}
}

func TestAuthorizationPipeline(t *testing.T) {
	ctx := context.Background()
	c, a, b := newAuthCoordinator(t)
	admin, bob := session(c, "admin"), session(c, "bob")
	for _, q := range []string{"CREATE ROLE bob WITH PASSWORD = 'pw' AND LOGIN = true", "GRANT SELECT ON ks_a.t TO bob"} {
		if err := query(t, admin, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := query(t, bob, "SELECT * FROM ks_a.t"); err != nil {
		t.Errorf("granted SELECT: %v", err)
	}
	wantUnauthorized(t, query(t, bob, "SELECT * FROM ks_a.u"),
		"User bob has no SELECT permission on <table ks_a.u> or any of its parents")
	wantUnauthorized(t, query(t, bob, "UPDATE ks_a.t SET v = 1 WHERE k = 1"),
		"User bob has no MODIFY permission on <table ks_a.t> or any of its parents")
	wantUnauthorized(t, query(t, bob, "DROP KEYSPACE ks_a"),
		"User bob has no DROP permission on <keyspace ks_a> or any of its parents")
	wantUnauthorized(t, query(t, bob, "CREATE KEYSPACE x WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"),
		"User bob has no CREATE permission on <all keyspaces> or any of its parents")
	// A BATCH statement is checked child by child.
	wantUnauthorized(t, query(t, bob, "BEGIN BATCH INSERT INTO ks_a.t (k) VALUES (1) APPLY BATCH"),
		"User bob has no MODIFY permission on <table ks_a.t> or any of its parents")
	// USE needs nothing; unqualified tables resolve in the session keyspace.
	if err := query(t, bob, "USE ks_a"); err != nil {
		t.Fatal(err)
	}
	if err := query(t, bob, "SELECT * FROM t"); err != nil {
		t.Errorf("unqualified granted SELECT: %v", err)
	}
	// PREPARE and EXECUTE: a prepared statement is checked for whoever runs it.
	if _, err := bob.Prepare(ctx, "INSERT INTO ks_a.t (k) VALUES (?)"); err == nil {
		t.Error("bob prepared an INSERT without MODIFY")
	}
	ps, err := admin.Prepare(ctx, "INSERT INTO ks_a.t (k) VALUES (?)")
	if err != nil {
		t.Fatal(err)
	}
	_, err = bob.Execute(ctx, ps.ID, &bindings.Request{})
	wantUnauthorized(t, err, "User bob has no MODIFY permission on <table ks_a.t> or any of its parents")
	_, err = bob.Batch(ctx, &BatchRequest{Entries: []BatchEntry{{PreparedID: ps.ID}}})
	wantUnauthorized(t, err, "User bob has no MODIFY permission on <table ks_a.t> or any of its parents")
	if a.batches != 0 {
		t.Errorf("an unauthorized batch reached the backend (%d batches)", a.batches)
	}
	// System tables drivers read are open; system_auth is not.
	if err := query(t, bob, "SELECT * FROM system_schema.tables"); err != nil {
		t.Errorf("system_schema: %v", err)
	}
	wantUnauthorized(t, query(t, bob, "SELECT * FROM system_auth.roles"),
		"User bob has no SELECT permission on <table system_auth.roles> or any of its parents")
	// The exempt backend keeps its own checks.
	if err := query(t, bob, "SELECT * FROM ks_b.t"); err != nil {
		t.Errorf("exempt backend: %v", err)
	}
	if len(b.queries) != 1 {
		t.Errorf("exempt backend got %v", b.queries)
	}
	// An unauthenticated CQL session is refused; the creator of a keyspace
	// gets every permission on it.
	wantUnauthorized(t, query(t, session(c, ""), "SELECT * FROM ks_a.t"), "You have not logged in")
	if err := query(t, admin, "GRANT CREATE ON ALL KEYSPACES TO bob"); err != nil {
		t.Fatal(err)
	}
	if err := query(t, bob, "CREATE KEYSPACE x WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"); err != nil {
		t.Fatal(err)
	}
	if err := c.Auth().Authorize(ctx, "bob", auth.Drop, auth.TableResource("x", "any")); err != nil {
		t.Errorf("creator's grants on its keyspace: %v", err)
	}
}

// Without enforcement (no users configured) statements run unchecked, and
// role statements still work.
func TestAuthorizationOff(t *testing.T) {
	m, err := auth.New(auth.Config{HashCost: bcrypt.MinCost})
	if err != nil {
		t.Fatal(err)
	}
	a := &fakeBackend{name: "a", keyspaces: []string{"ks_a"}}
	c, err := New(Config{Backends: map[string]bindings.Backend{"a": a}, Default: "a", Auth: m})
	if err != nil {
		t.Fatal(err)
	}
	s := c.NewSession(bindings.SourceCQL)
	for _, q := range []string{"SELECT * FROM ks_a.t", "CREATE ROLE r", "GRANT SELECT ON ks_a.t TO r"} {
		if err := query(t, s, q); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
	if _, err := s.Prepare(context.Background(), "LIST ROLES"); err == nil {
		t.Error("prepared a role statement")
	}
}

// The Tap never sees a role's password.
func TestRolePasswordsRedactedForTheTap(t *testing.T) {
	tap := &recordingTap{}
	m, err := auth.New(auth.Config{HashCost: bcrypt.MinCost})
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(Config{Backends: map[string]bindings.Backend{"a": &fakeBackend{name: "a"}}, Default: "a", Auth: m, Tap: tap})
	if err != nil {
		t.Fatal(err)
	}
	s := c.NewSession(bindings.SourceCQL)
	for _, q := range []string{"CREATE ROLE r WITH PASSWORD = 'hunter2' AND LOGIN = true", "ALTER USER r WITH PASSWORD 'hunter2'"} {
		if err := query(t, s, q); err != nil {
			t.Fatal(err)
		}
	}
	if len(tap.obs) != 2 {
		t.Fatalf("%d observations", len(tap.obs))
	}
	for _, o := range tap.obs {
		if strings.Contains(o.Query, "hunter2") || !strings.Contains(o.Query, "PASSWORD") {
			t.Errorf("recorded %q", o.Query)
		}
	}
}
