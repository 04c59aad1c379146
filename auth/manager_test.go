package auth

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func hash(t testing.TB, pw string) string {
	h, err := bcrypt.GenerateFromPassword([]byte(pw), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	return string(h)
}

func newManager(t testing.TB, store Store, clock *fakeClock) *Manager {
	t.Helper()
	m, err := New(Config{Store: store, Bootstrap: map[string]string{"admin": hash(t, "adminpw")},
		HashCost: bcrypt.MinCost, Clock: clock.now,
		Exists: func(_ context.Context, res Resource) (bool, error) { return res.Keyspace != "missing", nil }})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func run(t testing.TB, m *Manager, performer, text string) (*bindings.Result, error) {
	t.Helper()
	p, err := cql.Parse(text)
	if err != nil {
		t.Fatalf("Parse(%q): %v", text, err)
	}
	return m.Execute(context.Background(), performer, p.Stmt, "ks")
}

func must(t testing.TB, m *Manager, performer, text string) *bindings.Result {
	t.Helper()
	res, err := run(t, m, performer, text)
	if err != nil {
		t.Fatalf("%s as %s: %v", text, performer, err)
	}
	return res
}

func wantErr(t testing.TB, err error, code bindings.ErrorCode, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %s %q", code, msg)
	}
	be := bindings.AsError(err)
	if be.Code != code || be.Message != msg {
		t.Fatalf("error %s %q, want %s %q", be.Code, be.Message, code, msg)
	}
}

// rows decodes text and boolean cells of a listing.
func rows(t testing.TB, res *bindings.Result) [][]string {
	t.Helper()
	if res.Kind == bindings.ResultVoid {
		return nil
	}
	var out [][]string
	for _, r := range res.Rows {
		var line []string
		for i, c := range r {
			v, err := cql.DecodeGo(res.Columns[i].Type, c)
			if err != nil {
				t.Fatal(err)
			}
			switch x := v.(type) {
			case string:
				line = append(line, x)
			case bool:
				line = append(line, map[bool]string{true: "T", false: "F"}[x])
			default:
				line = append(line, "~")
			}
		}
		out = append(out, line)
	}
	return out
}

func TestPermissionResolution(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, &MemStore{}, &fakeClock{})
	must(t, m, "admin", "CREATE ROLE reader")
	must(t, m, "admin", "CREATE ROLE bob WITH PASSWORD = 'bobpw' AND LOGIN = true")
	must(t, m, "admin", "CREATE ROLE boss WITH SUPERUSER = true")
	must(t, m, "admin", "GRANT SELECT ON KEYSPACE ks TO reader")
	must(t, m, "admin", "GRANT MODIFY ON TABLE ks.t TO bob")

	// bob holds MODIFY on the table only.
	if err := m.Authorize(ctx, "bob", Modify, TableResource("ks", "t")); err != nil {
		t.Errorf("MODIFY on the granted table: %v", err)
	}
	wantErr(t, m.Authorize(ctx, "bob", Modify, TableResource("ks", "u")), bindings.CodeUnauthorized,
		"User bob has no MODIFY permission on <table ks.u> or any of its parents")
	wantErr(t, m.Authorize(ctx, "bob", Select, TableResource("ks", "t")), bindings.CodeUnauthorized,
		"User bob has no SELECT permission on <table ks.t> or any of its parents")

	// Inherited through a role; a keyspace grant covers its tables.
	must(t, m, "admin", "GRANT reader TO bob")
	if err := m.Authorize(ctx, "bob", Select, TableResource("ks", "t")); err != nil {
		t.Errorf("SELECT inherited from reader on a table of ks: %v", err)
	}
	wantErr(t, m.Authorize(ctx, "bob", Select, TableResource("other", "t")), bindings.CodeUnauthorized,
		"User bob has no SELECT permission on <table other.t> or any of its parents")

	// ALL KEYSPACES covers every keyspace and table.
	must(t, m, "admin", "GRANT CREATE ON ALL KEYSPACES TO bob")
	if err := m.Authorize(ctx, "bob", Create, KeyspaceResource("anything")); err != nil {
		t.Errorf("CREATE from ALL KEYSPACES: %v", err)
	}

	// Superusers (configured, created, or inherited) bypass checks.
	for _, who := range []string{"admin", "boss"} {
		if err := m.Authorize(ctx, who, Drop, KeyspaceResource("ks")); err != nil {
			t.Errorf("superuser %s: %v", who, err)
		}
	}
	must(t, m, "admin", "GRANT boss TO reader")
	if err := m.Authorize(ctx, "bob", Drop, KeyspaceResource("zz")); err != nil {
		t.Errorf("superuser status inherited through reader -> boss: %v", err)
	}

	// Revoking the membership removes what it gave.
	must(t, m, "admin", "REVOKE reader FROM bob")
	wantErr(t, m.Authorize(ctx, "bob", Select, TableResource("ks", "t")), bindings.CodeUnauthorized,
		"User bob has no SELECT permission on <table ks.t> or any of its parents")
	must(t, m, "admin", "REVOKE MODIFY ON ks.t FROM bob")
	wantErr(t, m.Authorize(ctx, "bob", Modify, TableResource("ks", "t")), bindings.CodeUnauthorized,
		"User bob has no MODIFY permission on <table ks.t> or any of its parents")
	wantErr(t, m.Authorize(ctx, "nobody", Select, TableResource("ks", "t")), bindings.CodeUnauthorized,
		"User nobody has no SELECT permission on <table ks.t> or any of its parents")
}

func TestRoleStatementErrors(t *testing.T) {
	m := newManager(t, &MemStore{}, &fakeClock{})
	must(t, m, "admin", "CREATE ROLE bob WITH PASSWORD = 'pw' AND LOGIN = true")
	must(t, m, "admin", "CREATE ROLE r1")
	must(t, m, "admin", "CREATE ROLE r2")
	must(t, m, "admin", "CREATE ROLE IF NOT EXISTS bob")
	_, err := run(t, m, "admin", "CREATE ROLE bob")
	wantErr(t, err, bindings.CodeInvalid, "bob already exists")
	_, err = run(t, m, "admin", "DROP ROLE ghost")
	wantErr(t, err, bindings.CodeInvalid, "ghost doesn't exist")
	must(t, m, "admin", "DROP ROLE IF EXISTS ghost")
	_, err = run(t, m, "admin", "ALTER ROLE ghost WITH LOGIN = true")
	wantErr(t, err, bindings.CodeInvalid, "ghost doesn't exist")
	_, err = run(t, m, "admin", "CREATE ROLE x WITH OPTIONS = {'a': 'b'}")
	wantErr(t, err, bindings.CodeInvalid, "org.apache.cassandra.auth.CassandraRoleManager doesn't support OPTIONS")
	_, err = run(t, m, "admin", "DROP ROLE admin")
	wantErr(t, err, bindings.CodeInvalid, "Cannot DROP primary role for current login")

	must(t, m, "admin", "GRANT r1 TO r2")
	_, err = run(t, m, "admin", "GRANT r2 TO r1")
	wantErr(t, err, bindings.CodeInvalid, "r2 is a member of r1")
	_, err = run(t, m, "admin", "GRANT r1 TO r2")
	wantErr(t, err, bindings.CodeInvalid, "r2 is a member of r1")
	_, err = run(t, m, "admin", "REVOKE r1 FROM bob")
	wantErr(t, err, bindings.CodeInvalid, "bob is not a member of r1")
	_, err = run(t, m, "admin", "GRANT r1 TO ghost")
	wantErr(t, err, bindings.CodeInvalid, "ghost doesn't exist")

	_, err = run(t, m, "admin", "GRANT SELECT ON KEYSPACE ks TO ghost")
	wantErr(t, err, bindings.CodeInvalid, "Role ghost doesn't exist")
	_, err = run(t, m, "admin", "GRANT SELECT ON KEYSPACE missing TO bob")
	wantErr(t, err, bindings.CodeInvalid, "Resource <keyspace missing> doesn't exist")
	_, err = run(t, m, "admin", "GRANT DESCRIBE ON KEYSPACE ks TO bob")
	wantErr(t, err, bindings.CodeSyntaxError, "Resource type DataResource does not support the requested permission: DESCRIBE")

	// bob is no superuser and holds nothing.
	_, err = run(t, m, "bob", "CREATE ROLE eve")
	wantErr(t, err, bindings.CodeUnauthorized, "User bob has no CREATE permission on <all roles> or any of its parents")
	_, err = run(t, m, "bob", "GRANT SELECT ON KEYSPACE ks TO bob")
	wantErr(t, err, bindings.CodeUnauthorized, "User bob has no AUTHORIZE permission on <keyspace ks> or any of its parents")
	_, err = run(t, m, "bob", "ALTER ROLE bob WITH SUPERUSER = true")
	wantErr(t, err, bindings.CodeUnauthorized, "You aren't allowed to alter your own superuser status or that of a role granted to you")
	_, err = run(t, m, "bob", "ALTER ROLE bob WITH LOGIN = false")
	wantErr(t, err, bindings.CodeUnauthorized, "You aren't allowed to alter LOGIN")
	must(t, m, "bob", "ALTER ROLE bob WITH PASSWORD = 'new'")
	if _, err := m.Authenticate(context.Background(), "bob", "new"); err != nil {
		t.Errorf("login with the altered password: %v", err)
	}

	// A role's creator may manage it.
	must(t, m, "admin", "GRANT CREATE ON ALL ROLES TO bob")
	must(t, m, "bob", "CREATE ROLE eve")
	must(t, m, "bob", "ALTER ROLE eve WITH LOGIN = true")
	_, err = run(t, m, "bob", "CREATE ROLE mallory WITH SUPERUSER = true")
	wantErr(t, err, bindings.CodeUnauthorized, "Only superusers can create a role with superuser status")
	_, err = run(t, m, "bob", "DROP ROLE r1")
	wantErr(t, err, bindings.CodeUnauthorized, "User bob has no DROP permission on <role r1> or any of its parents")
	must(t, m, "bob", "DROP ROLE eve")
}

func TestListings(t *testing.T) {
	m := newManager(t, &MemStore{}, &fakeClock{})
	must(t, m, "admin", "CREATE ROLE bob WITH PASSWORD = 'pw' AND LOGIN = true")
	must(t, m, "admin", "CREATE ROLE reader")
	must(t, m, "admin", "GRANT reader TO bob")
	must(t, m, "admin", "GRANT SELECT ON KEYSPACE ks TO reader")
	must(t, m, "admin", "GRANT MODIFY ON ks.t TO bob")

	res := must(t, m, "admin", "LIST ROLES")
	names := []string{}
	for _, c := range res.Columns {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, ","); got != "role,super,login,options,datacenters" {
		t.Errorf("LIST ROLES columns %s", got)
	}
	want := "admin T T ~ ALL|bob F T ~ ALL|reader F F ~ ALL"
	if got := flat(rows(t, res)); got != want {
		t.Errorf("LIST ROLES as admin:\n got %s\nwant %s", got, want)
	}
	if got := flat(rows(t, must(t, m, "bob", "LIST ROLES"))); got != "bob F T ~ ALL|reader F F ~ ALL" {
		t.Errorf("LIST ROLES as bob: %s", got)
	}
	if got := flat(rows(t, must(t, m, "admin", "LIST ROLES OF bob NORECURSIVE"))); got != "bob F T ~ ALL|reader F F ~ ALL" {
		t.Errorf("LIST ROLES OF bob NORECURSIVE: %s", got)
	}
	if got := flat(rows(t, must(t, m, "admin", "LIST USERS"))); got != "admin T ALL|bob F ALL" {
		t.Errorf("LIST USERS: %s", got)
	}
	_, err := run(t, m, "bob", "LIST ROLES OF admin")
	wantErr(t, err, bindings.CodeUnauthorized, "You are not authorized to view roles granted to admin ")

	want = "bob bob <table ks.t> MODIFY|reader reader <keyspace ks> SELECT"
	if got := flat(rows(t, must(t, m, "bob", "LIST ALL PERMISSIONS OF bob"))); got != want {
		t.Errorf("LIST ALL OF bob:\n got %s\nwant %s", got, want)
	}
	if got := flat(rows(t, must(t, m, "admin", "LIST SELECT ON ks.t"))); got != "reader reader <keyspace ks> SELECT" {
		t.Errorf("LIST SELECT ON ks.t (recursive up the chain): %s", got)
	}
	if res := must(t, m, "admin", "LIST SELECT ON ks.t NORECURSIVE"); res.Kind != bindings.ResultVoid {
		t.Errorf("LIST SELECT ON ks.t NORECURSIVE: %v rows, want none", rows(t, res))
	}
	_, err = run(t, m, "bob", "LIST ALL")
	wantErr(t, err, bindings.CodeUnauthorized, "You are not authorized to view everyone's permissions")
	_, err = run(t, m, "bob", "LIST ALL OF admin")
	wantErr(t, err, bindings.CodeUnauthorized, "You are not authorized to view admin's permissions")
	_, err = run(t, m, "admin", "LIST ALL OF ghost")
	wantErr(t, err, bindings.CodeInvalid, "<role ghost> doesn't exist")

	// Creators get every permission; dropping the resource revokes them.
	ctx := context.Background()
	if err := m.GrantCreator(ctx, "bob", KeyspaceResource("made")); err != nil {
		t.Fatal(err)
	}
	if err := m.Authorize(ctx, "bob", Drop, TableResource("made", "x")); err != nil {
		t.Errorf("creator's DROP on a table of its keyspace: %v", err)
	}
	if err := m.ResourceDropped(ctx, KeyspaceResource("made")); err != nil {
		t.Fatal(err)
	}
	if err := m.Authorize(ctx, "bob", Drop, KeyspaceResource("made")); err == nil {
		t.Error("grants on a dropped keyspace survived")
	}
	// Dropping a role removes its memberships and grants.
	must(t, m, "admin", "DROP ROLE reader")
	if got := flat(rows(t, must(t, m, "admin", "LIST ROLES OF bob"))); got != "bob F T ~ ALL" {
		t.Errorf("LIST ROLES OF bob after DROP ROLE reader: %s", got)
	}
}

func flat(rs [][]string) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = strings.Join(r, " ")
	}
	return strings.Join(parts, "|")
}

func TestAuthenticate(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, &MemStore{}, &fakeClock{})
	must(t, m, "admin", "CREATE ROLE bob WITH PASSWORD = 'pw' AND LOGIN = true")
	must(t, m, "admin", "CREATE ROLE nologin WITH PASSWORD = 'pw'")
	must(t, m, "admin", "CREATE USER legacy WITH PASSWORD 'lpw'")
	for _, tc := range []struct{ user, pw, msg string }{
		{"admin", "adminpw", ""},
		{"bob", "pw", ""},
		{"bob", "pw", ""}, // the remembered match
		{"legacy", "lpw", ""},
		{"bob", "wrong", "Provided username bob and/or password are incorrect"},
		{"ghost", "pw", "Provided username ghost and/or password are incorrect"},
		{"nologin", "pw", "nologin is not permitted to log in"},
	} {
		role, err := m.Authenticate(ctx, tc.user, tc.pw)
		if tc.msg == "" {
			if err != nil || role != tc.user {
				t.Errorf("Authenticate(%s): %q, %v", tc.user, role, err)
			}
			continue
		}
		wantErr(t, err, bindings.CodeAuthError, tc.msg)
	}
	// A changed password invalidates the remembered one.
	must(t, m, "admin", "ALTER ROLE bob WITH PASSWORD = 'pw2'")
	if _, err := m.Authenticate(ctx, "bob", "pw"); err == nil {
		t.Error("old password accepted after ALTER ROLE")
	}
}

// Two managers on one store (two dohyo instances on one backend) see each
// other's changes once their copy is older than the validity period.
func TestSharedStoreRefresh(t *testing.T) {
	ctx := context.Background()
	store, clock := &MemStore{}, &fakeClock{t: time.Unix(1000, 0)}
	a, b := newManager(t, store, clock), newManager(t, store, clock)
	must(t, b, "admin", "LIST ROLES") // b reads (and caches) the empty state
	must(t, a, "admin", "CREATE ROLE bob WITH PASSWORD = 'pw' AND LOGIN = true")
	must(t, a, "admin", "GRANT SELECT ON ks.t TO bob")
	if _, err := b.Authenticate(ctx, "bob", "pw"); err == nil {
		t.Fatal("b saw the new role before its copy expired (the validity test is vacuous)")
	}
	clock.add(DefaultValidity)
	if _, err := b.Authenticate(ctx, "bob", "pw"); err != nil {
		t.Fatalf("b after the validity period: %v", err)
	}
	if err := b.Authorize(ctx, "bob", Select, TableResource("ks", "t")); err != nil {
		t.Errorf("b's view of a's grant: %v", err)
	}
	// Changes from both sides are kept (each change starts from the store).
	must(t, b, "admin", "CREATE ROLE carol")
	must(t, a, "admin", "CREATE ROLE dave")
	clock.add(DefaultValidity)
	if got := flat(rows(t, must(t, b, "admin", "LIST ROLES"))); !strings.Contains(got, "carol") || !strings.Contains(got, "dave") {
		t.Errorf("LIST ROLES after changes from both managers: %s", got)
	}
}

// casStore refuses the first n compare-and-sets after another writer
// changed the value underneath.
type casStore struct {
	MemStore
	interfere int
}

func (s *casStore) CompareAndSetMeta(ctx context.Context, key string, old, value []byte) (bool, error) {
	if s.interfere > 0 {
		s.interfere--
		// Another instance creates a role between our read and our write.
		raw, _ := s.GetMeta(ctx, key)
		st, _ := decodeState(raw)
		st.Roles["other"] = &role{}
		enc, _ := st.encode()
		_ = s.PutMeta(ctx, key, enc)
	}
	return s.MemStore.CompareAndSetMeta(ctx, key, old, value)
}

func TestCompareAndSetRetries(t *testing.T) {
	store := &casStore{interfere: 2}
	m := newManager(t, store, &fakeClock{})
	must(t, m, "admin", "CREATE ROLE mine")
	got := flat(rows(t, must(t, m, "admin", "LIST ROLES")))
	if !strings.Contains(got, "mine") || !strings.Contains(got, "other") {
		t.Errorf("after conflicting writes: %s; want both roles kept", got)
	}
}

type failingStore struct{ MemStore }

func (*failingStore) GetMeta(context.Context, string) ([]byte, error) {
	return nil, errors.New("store down")
}

func TestStoreFailure(t *testing.T) {
	m := newManager(t, &failingStore{}, &fakeClock{})
	_, err := m.Authenticate(context.Background(), "bob", "pw")
	if be := bindings.AsError(err); err == nil || be.Code != bindings.CodeAuthError || !strings.Contains(be.Message, "store down") {
		t.Errorf("Authenticate with the store down: %v", err)
	}
	if _, err := m.Authenticate(context.Background(), "admin", "adminpw"); err != nil {
		t.Errorf("a configured user with the store down: %v", err)
	}
	if _, err := run(t, m, "admin", "CREATE ROLE x"); err == nil || bindings.AsError(err).Code != bindings.CodeUnavailable {
		t.Errorf("CREATE ROLE with the store down: %v", err)
	}
}

func TestResourceNames(t *testing.T) {
	for _, r := range []Resource{AllKeyspaces(), KeyspaceResource("ks"), TableResource("ks", "t"), AllRoles(), RoleResource("a/b")} {
		got, ok := parseName(r.Name())
		if !ok || got != r {
			t.Errorf("parseName(%q) = %v, %v; want %v", r.Name(), got, ok, r)
		}
	}
	if got := TableResource("ks", "t").Chain(); len(got) != 3 || got[1] != KeyspaceResource("ks") || got[2] != AllKeyspaces() {
		t.Errorf("table chain %v", got)
	}
}

func TestBootstrapUsersAreConfigured(t *testing.T) {
	m := newManager(t, &MemStore{}, &fakeClock{})
	must(t, m, "admin", "CREATE ROLE other WITH SUPERUSER = true")
	for _, q := range []string{"ALTER ROLE admin WITH PASSWORD = 'x'", "DROP ROLE admin"} {
		_, err := run(t, m, "other", q)
		wantErr(t, err, bindings.CodeInvalid, "admin is configured by --auth-user/--auth-users-file: change it in the configuration")
	}
	// Memberships and grants of a configured user are stored like any other.
	must(t, m, "admin", "CREATE ROLE r")
	must(t, m, "admin", "GRANT r TO admin")
	if got := flat(rows(t, must(t, m, "admin", "LIST ROLES OF admin"))); got != "admin T T ~ ALL|r F F ~ ALL" {
		t.Errorf("LIST ROLES OF admin: %s", got)
	}
}

func BenchmarkAuthorize(b *testing.B) {
	m := newManager(b, &MemStore{}, &fakeClock{})
	must(b, m, "admin", "CREATE ROLE reader")
	must(b, m, "admin", "CREATE ROLE app WITH LOGIN = true")
	must(b, m, "admin", "GRANT reader TO app")
	must(b, m, "admin", "GRANT SELECT ON KEYSPACE ks TO reader")
	ctx, res := context.Background(), TableResource("ks", "t")
	b.ReportAllocs()
	for b.Loop() {
		if err := m.Authorize(ctx, "app", Select, res); err != nil {
			b.Fatal(err)
		}
	}
}
