package cql

import (
	"reflect"
	"strings"
	"testing"
)

func sp(s string) *string { return &s }
func bp(b bool) *bool     { return &b }

var authCases = []parseCase{
	{"create role", "CREATE ROLE bob WITH PASSWORD = 'x' AND LOGIN = true AND SUPERUSER = false",
		&CreateRole{Name: "bob", Options: RoleOptions{Password: sp("x"), Login: bp(true), Superuser: bp(false)}}},
	{"create role if not exists", "create role if not exists \"Bob\"",
		&CreateRole{Name: "Bob", IfNotExists: true}},
	{"create role string name", "CREATE ROLE 'Mixed Case' WITH LOGIN = false",
		&CreateRole{Name: "Mixed Case", Options: RoleOptions{Login: bp(false)}}},
	{"create role hashed", "CREATE ROLE r WITH HASHED PASSWORD = '$2a$10$x' AND OPTIONS = {'a': 'b'}",
		&CreateRole{Name: "r", Options: RoleOptions{HashedPassword: sp("$2a$10$x"), Options: map[string]string{"a": "b"}}}},
	{"create user", "CREATE USER bob WITH PASSWORD 'x' NOSUPERUSER",
		&CreateRole{Name: "bob", User: true, Options: RoleOptions{Password: sp("x"), Superuser: bp(false)}}},
	{"create user if not exists superuser", "CREATE USER IF NOT EXISTS Admin SUPERUSER",
		&CreateRole{Name: "admin", User: true, IfNotExists: true, Options: RoleOptions{Superuser: bp(true)}}},
	{"alter role", "ALTER ROLE bob WITH PASSWORD = 'y'", &AlterRole{Name: "bob", Options: RoleOptions{Password: sp("y")}}},
	{"alter user", "ALTER USER bob WITH PASSWORD 'y' SUPERUSER",
		&AlterRole{Name: "bob", User: true, Options: RoleOptions{Password: sp("y"), Superuser: bp(true)}}},
	{"drop role", "DROP ROLE IF EXISTS bob", &DropRole{Name: "bob", IfExists: true}},
	{"drop user", "DROP USER bob", &DropRole{Name: "bob", User: true}},
	{"grant role", "GRANT reader TO bob", &GrantRole{Role: "reader", Grantee: "bob"}},
	{"revoke role", "REVOKE reader FROM bob", &RevokeRole{Role: "reader", Revokee: "bob"}},
	{"list roles", "LIST ROLES", &ListRoles{}},
	{"list roles of", "LIST ROLES OF bob NORECURSIVE", &ListRoles{Of: "bob", NoRecursive: true}},
	{"list users", "LIST USERS", &ListRoles{Users: true}},
	{"grant select keyspace", "GRANT SELECT ON KEYSPACE ks TO bob",
		&GrantPermissions{Permissions: Permissions{Name: "SELECT"}, Resource: AuthResource{Kind: ResKeyspace, Keyspace: "ks"}, Grantee: "bob"}},
	{"grant all permissions", "grant all permissions on all keyspaces to bob",
		&GrantPermissions{Permissions: Permissions{All: true}, Resource: AuthResource{Kind: ResAllKeyspaces}, Grantee: "bob"}},
	{"grant modify table", "GRANT MODIFY PERMISSION ON TABLE ks.t TO bob",
		&GrantPermissions{Permissions: Permissions{Name: "MODIFY"}, Resource: AuthResource{Kind: ResTable, Keyspace: "ks", Table: "t"}, Grantee: "bob"}},
	{"grant on bare table", "GRANT select_masked ON t TO bob",
		&GrantPermissions{Permissions: Permissions{Name: "SELECT_MASKED"}, Resource: AuthResource{Kind: ResTable, Table: "t"}, Grantee: "bob"}},
	{"grant on table named role", "GRANT DROP ON role.t TO bob",
		&GrantPermissions{Permissions: Permissions{Name: "DROP"}, Resource: AuthResource{Kind: ResTable, Keyspace: "role", Table: "t"}, Grantee: "bob"}},
	{"grant on role", "GRANT ALTER ON ROLE alice TO bob",
		&GrantPermissions{Permissions: Permissions{Name: "ALTER"}, Resource: AuthResource{Kind: ResRole, Role: "alice"}, Grantee: "bob"}},
	{"revoke on all roles", "REVOKE ALL ON ALL ROLES FROM bob",
		&RevokePermissions{Permissions: Permissions{All: true}, Resource: AuthResource{Kind: ResAllRoles}, Revokee: "bob"}},
	{"list all", "LIST ALL", &ListPermissions{Permissions: Permissions{All: true}}},
	{"list all permissions of", "LIST ALL PERMISSIONS OF bob",
		&ListPermissions{Permissions: Permissions{All: true}, Of: "bob"}},
	{"list select on table norecursive", "LIST SELECT ON ks.t OF bob NORECURSIVE",
		&ListPermissions{Permissions: Permissions{Name: "SELECT"}, Resource: &AuthResource{Kind: ResTable, Keyspace: "ks", Table: "t"}, Of: "bob", NoRecursive: true}},
}

func TestParseAuthStatements(t *testing.T) { runParseCases(t, authCases) }

// Rendering a parsed statement and parsing it again gives the same AST.
func TestAuthStatementsRoundTrip(t *testing.T) {
	for _, tc := range authCases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			text := p.Stmt.(interface{ String() string }).String()
			again, err := Parse(text)
			if err != nil {
				t.Fatalf("Parse(%q) (rendered from %q): %v", text, tc.in, err)
			}
			if !reflect.DeepEqual(again.Stmt, p.Stmt) {
				t.Errorf("round trip of %q via %q:\n got %s\nwant %s", tc.in, text, dump(again.Stmt), dump(p.Stmt))
			}
			if !IsAuthStatement(p.Stmt) {
				t.Errorf("IsAuthStatement(%T) = false", p.Stmt)
			}
		})
	}
}

func TestParseAuthErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"CREATE ROLE r WITH LOGIN = true AND LOGIN = false", "Multiple definition for property LOGIN"},
		{"CREATE ROLE r WITH PASSWORD = 'a' AND PASSWORD = 'b'", "Multiple definition for property PASSWORD"},
		{"CREATE ROLE r WITH LOGIN = 1", "expecting BOOLEAN"},
		{"CREATE ROLE r WITH PASSWORD = x", "expecting STRING_LITERAL"},
		{"CREATE ROLE r WITH COLOUR = 'red'", "no viable alternative"},
		{"GRANT SELECT ON KEYSPACE ks bob", "expecting K_TO"},
		{"REVOKE SELECT ON KEYSPACE ks TO bob", "expecting K_FROM"},
		{"GRANT SELECT ON ALL TABLES TO bob", "no viable alternative"},
		{"LIST ROLES OF", "no viable alternative"},
		{"LIST bogus", "no viable alternative"},
		{"ALTER ROLE r", "expecting K_WITH"},
	} {
		_, err := Parse(tc.in)
		if err == nil {
			t.Errorf("Parse(%q): no error, want %q", tc.in, tc.want)
			continue
		}
		if _, ok := err.(*SyntaxError); !ok || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v (%T), want a SyntaxError containing %q", tc.in, err, err, tc.want)
		}
	}
}
