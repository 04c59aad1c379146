package cql

import (
	"sort"
	"strconv"
	"strings"
)

// Role and permission statements (CQL's security statements, as Cassandra's
// CassandraRoleManager and CassandraAuthorizer define them). Role names are
// normalised like identifiers: unquoted names lower-cased, quoted names and
// string literals kept as written. Every statement's String renders CQL
// that parses back to an equal statement.

// RoleOptions are the WITH options of CREATE/ALTER ROLE (nil: not given).
type RoleOptions struct {
	Password       *string
	HashedPassword *string
	Login          *bool
	Superuser      *bool
	Options        map[string]string // OPTIONS = {...} (custom options)
}

// Empty tells whether no option was given.
func (o RoleOptions) Empty() bool {
	return o.Password == nil && o.HashedPassword == nil && o.Login == nil && o.Superuser == nil && o.Options == nil
}

// CreateRole is CREATE ROLE, or CREATE USER (User set: the legacy form,
// which always grants LOGIN).
type CreateRole struct {
	Name        string
	IfNotExists bool
	Options     RoleOptions
	User        bool
}

// AlterRole is ALTER ROLE or ALTER USER.
type AlterRole struct {
	Name    string
	Options RoleOptions
	User    bool
}

// DropRole is DROP ROLE or DROP USER.
type DropRole struct {
	Name     string
	IfExists bool
	User     bool
}

// GrantRole is GRANT role TO grantee.
type GrantRole struct{ Role, Grantee string }

// RevokeRole is REVOKE role FROM revokee.
type RevokeRole struct{ Role, Revokee string }

// ListRoles is LIST ROLES [OF r] [NORECURSIVE], or LIST USERS.
type ListRoles struct {
	Of          string // "" for all roles
	NoRecursive bool
	Users       bool
}

// ResourceKind tells resources apart.
type ResourceKind int

// Resource kinds a permission can be granted on.
const (
	ResAllKeyspaces ResourceKind = iota // ALL KEYSPACES
	ResKeyspace                         // KEYSPACE k
	ResTable                            // [TABLE] [k.]t
	ResAllRoles                         // ALL ROLES
	ResRole                             // ROLE r
)

// AuthResource is the ON clause of GRANT, REVOKE and LIST. For ResTable
// Keyspace may be empty (the session's keyspace).
type AuthResource struct {
	Kind                  ResourceKind
	Keyspace, Table, Role string
}

// PermissionNames are Cassandra's permissions, in Cassandra's order.
var PermissionNames = []string{"CREATE", "ALTER", "DROP", "SELECT", "MODIFY", "AUTHORIZE",
	"DESCRIBE", "EXECUTE", "UNMASK", "SELECT_MASKED"}

// Permissions names the permissions of GRANT, REVOKE and LIST: All for
// ALL [PERMISSIONS], otherwise one upper-case name.
type Permissions struct {
	All  bool
	Name string
}

// GrantPermissions is GRANT <permission|ALL> ON resource TO grantee.
type GrantPermissions struct {
	Permissions Permissions
	Resource    AuthResource
	Grantee     string
}

// RevokePermissions is REVOKE <permission|ALL> ON resource FROM revokee.
type RevokePermissions struct {
	Permissions Permissions
	Resource    AuthResource
	Revokee     string
}

// ListPermissions is LIST <permission|ALL> [ON resource] [OF role]
// [NORECURSIVE].
type ListPermissions struct {
	Permissions Permissions
	Resource    *AuthResource // nil: every resource
	Of          string
	NoRecursive bool
}

func (*CreateRole) statement()        {}
func (*AlterRole) statement()         {}
func (*DropRole) statement()          {}
func (*GrantRole) statement()         {}
func (*RevokeRole) statement()        {}
func (*ListRoles) statement()         {}
func (*GrantPermissions) statement()  {}
func (*RevokePermissions) statement() {}
func (*ListPermissions) statement()   {}

// IsAuthStatement tells whether stmt manages roles or permissions.
func IsAuthStatement(stmt Statement) bool {
	switch stmt.(type) {
	case *CreateRole, *AlterRole, *DropRole, *GrantRole, *RevokeRole, *ListRoles,
		*GrantPermissions, *RevokePermissions, *ListPermissions:
		return true
	}
	return false
}

// ---- rendering ----

// QuoteRole renders a role name so that it parses back to name.
func QuoteRole(name string) string { return QuoteIdent(name) }

func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func (o RoleOptions) String() string {
	var parts []string
	if o.Password != nil {
		parts = append(parts, "PASSWORD = "+quoteString(*o.Password))
	}
	if o.HashedPassword != nil {
		parts = append(parts, "HASHED PASSWORD = "+quoteString(*o.HashedPassword))
	}
	if o.Login != nil {
		parts = append(parts, "LOGIN = "+strconv.FormatBool(*o.Login))
	}
	if o.Superuser != nil {
		parts = append(parts, "SUPERUSER = "+strconv.FormatBool(*o.Superuser))
	}
	if o.Options != nil {
		keys := make([]string, 0, len(o.Options))
		for k := range o.Options {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		kv := make([]string, len(keys))
		for i, k := range keys {
			kv[i] = quoteString(k) + ": " + quoteString(o.Options[k])
		}
		parts = append(parts, "OPTIONS = {"+strings.Join(kv, ", ")+"}")
	}
	return strings.Join(parts, " AND ")
}

// userOptions renders the legacy USER options.
func userOptions(o RoleOptions) string {
	s := ""
	if o.Password != nil {
		s += " WITH PASSWORD " + quoteString(*o.Password)
	} else if o.HashedPassword != nil {
		s += " WITH HASHED PASSWORD " + quoteString(*o.HashedPassword)
	}
	if o.Superuser != nil {
		if *o.Superuser {
			s += " SUPERUSER"
		} else {
			s += " NOSUPERUSER"
		}
	}
	return s
}

func (s *CreateRole) String() string {
	kind := "ROLE"
	if s.User {
		kind = "USER"
	}
	out := "CREATE " + kind + " "
	if s.IfNotExists {
		out += "IF NOT EXISTS "
	}
	out += QuoteRole(s.Name)
	if s.User {
		return out + userOptions(s.Options)
	}
	if !s.Options.Empty() {
		out += " WITH " + s.Options.String()
	}
	return out
}

func (s *AlterRole) String() string {
	if s.User {
		return "ALTER USER " + QuoteRole(s.Name) + userOptions(s.Options)
	}
	return "ALTER ROLE " + QuoteRole(s.Name) + " WITH " + s.Options.String()
}

func (s *DropRole) String() string {
	out := "DROP ROLE "
	if s.User {
		out = "DROP USER "
	}
	if s.IfExists {
		out += "IF EXISTS "
	}
	return out + QuoteRole(s.Name)
}

func (s *GrantRole) String() string {
	return "GRANT " + QuoteRole(s.Role) + " TO " + QuoteRole(s.Grantee)
}

func (s *RevokeRole) String() string {
	return "REVOKE " + QuoteRole(s.Role) + " FROM " + QuoteRole(s.Revokee)
}

func (s *ListRoles) String() string {
	if s.Users {
		return "LIST USERS"
	}
	out := "LIST ROLES"
	if s.Of != "" {
		out += " OF " + QuoteRole(s.Of)
	}
	if s.NoRecursive {
		out += " NORECURSIVE"
	}
	return out
}

func (p Permissions) String() string {
	if p.All {
		return "ALL PERMISSIONS"
	}
	return p.Name
}

func (r AuthResource) String() string {
	switch r.Kind {
	case ResAllKeyspaces:
		return "ALL KEYSPACES"
	case ResKeyspace:
		return "KEYSPACE " + QuoteIdent(r.Keyspace)
	case ResTable:
		if r.Keyspace == "" {
			return "TABLE " + QuoteIdent(r.Table)
		}
		return "TABLE " + QuoteIdent(r.Keyspace) + "." + QuoteIdent(r.Table)
	case ResAllRoles:
		return "ALL ROLES"
	default:
		return "ROLE " + QuoteRole(r.Role)
	}
}

func (s *GrantPermissions) String() string {
	return "GRANT " + s.Permissions.String() + " ON " + s.Resource.String() + " TO " + QuoteRole(s.Grantee)
}

func (s *RevokePermissions) String() string {
	return "REVOKE " + s.Permissions.String() + " ON " + s.Resource.String() + " FROM " + QuoteRole(s.Revokee)
}

func (s *ListPermissions) String() string {
	out := "LIST " + s.Permissions.String()
	if s.Resource != nil {
		out += " ON " + s.Resource.String()
	}
	if s.Of != "" {
		out += " OF " + QuoteRole(s.Of)
	}
	if s.NoRecursive {
		out += " NORECURSIVE"
	}
	return out
}
