package auth

import (
	"slices"
	"strings"

	"github.com/dohyo/dohyo/cql"
)

// Permission is one of Cassandra's permissions ("SELECT", "MODIFY", ...).
type Permission string

// Cassandra's permissions.
const (
	Create       Permission = "CREATE"
	Alter        Permission = "ALTER"
	Drop         Permission = "DROP"
	Select       Permission = "SELECT"
	Modify       Permission = "MODIFY"
	Authorize    Permission = "AUTHORIZE"
	Describe     Permission = "DESCRIBE"
	Execute      Permission = "EXECUTE"
	Unmask       Permission = "UNMASK"
	SelectMasked Permission = "SELECT_MASKED"
)

// order is Cassandra's enum order, used to sort listings.
var order = map[Permission]int{Create: 0, Alter: 1, Drop: 2, Select: 3, Modify: 4, Authorize: 5,
	Describe: 6, Execute: 7, Unmask: 8, SelectMasked: 9}

// Resource is what permissions are granted on: <all keyspaces>, a keyspace,
// a table, <all roles> or a role.
type Resource struct {
	Kind     cql.ResourceKind
	Keyspace string
	Table    string
	Role     string
}

// AllKeyspaces is the root of the data resources.
func AllKeyspaces() Resource { return Resource{Kind: cql.ResAllKeyspaces} }

// KeyspaceResource is <keyspace ks>.
func KeyspaceResource(ks string) Resource { return Resource{Kind: cql.ResKeyspace, Keyspace: ks} }

// TableResource is <table ks.t>.
func TableResource(ks, table string) Resource {
	return Resource{Kind: cql.ResTable, Keyspace: ks, Table: table}
}

// AllRoles is the root of the role resources.
func AllRoles() Resource { return Resource{Kind: cql.ResAllRoles} }

// RoleResource is <role r>.
func RoleResource(role string) Resource { return Resource{Kind: cql.ResRole, Role: role} }

// String renders the resource as Cassandra does in messages and listings.
func (r Resource) String() string {
	switch r.Kind {
	case cql.ResAllKeyspaces:
		return "<all keyspaces>"
	case cql.ResKeyspace:
		return "<keyspace " + r.Keyspace + ">"
	case cql.ResTable:
		return "<table " + r.Keyspace + "." + r.Table + ">"
	case cql.ResAllRoles:
		return "<all roles>"
	default:
		return "<role " + r.Role + ">"
	}
}

// Name is the resource's stored name, as in system_auth.role_permissions
// ("data", "data/ks", "data/ks/t", "roles", "roles/r").
func (r Resource) Name() string {
	switch r.Kind {
	case cql.ResAllKeyspaces:
		return "data"
	case cql.ResKeyspace:
		return "data/" + r.Keyspace
	case cql.ResTable:
		return "data/" + r.Keyspace + "/" + r.Table
	case cql.ResAllRoles:
		return "roles"
	default:
		return "roles/" + r.Role
	}
}

// parseName inverts Name.
func parseName(name string) (Resource, bool) {
	switch {
	case name == "data":
		return AllKeyspaces(), true
	case name == "roles":
		return AllRoles(), true
	case strings.HasPrefix(name, "roles/"):
		return RoleResource(name[len("roles/"):]), true
	case strings.HasPrefix(name, "data/"):
		ks, table, ok := strings.Cut(name[len("data/"):], "/")
		if !ok {
			return KeyspaceResource(ks), true
		}
		return TableResource(ks, table), true
	}
	return Resource{}, false
}

// Chain is the resource followed by its parents up to the root
// (<table k.t>, <keyspace k>, <all keyspaces>).
func (r Resource) Chain() []Resource {
	switch r.Kind {
	case cql.ResTable:
		return []Resource{r, KeyspaceResource(r.Keyspace), AllKeyspaces()}
	case cql.ResKeyspace:
		return []Resource{r, AllKeyspaces()}
	case cql.ResRole:
		return []Resource{r, AllRoles()}
	}
	return []Resource{r}
}

// Applicable lists the permissions that can be granted on the resource
// (Cassandra's DataResource and RoleResource applicablePermissions).
func (r Resource) Applicable() []Permission {
	switch r.Kind {
	case cql.ResAllKeyspaces, cql.ResKeyspace:
		return []Permission{Create, Alter, Drop, Select, Modify, Authorize, Unmask, SelectMasked}
	case cql.ResTable:
		return []Permission{Alter, Drop, Select, Modify, Authorize, Unmask, SelectMasked}
	case cql.ResAllRoles:
		return []Permission{Create, Alter, Drop, Authorize, Describe}
	default:
		return []Permission{Alter, Drop, Authorize}
	}
}

// typeName is Cassandra's resource class name, for messages.
func (r Resource) typeName() string {
	if r.Kind == cql.ResAllRoles || r.Kind == cql.ResRole {
		return "RoleResource"
	}
	return "DataResource"
}

// isData tells data resources (keyspaces and tables) from role resources.
func (r Resource) isData() bool {
	return r.Kind == cql.ResAllKeyspaces || r.Kind == cql.ResKeyspace || r.Kind == cql.ResTable
}

func sortPermissions(ps []Permission) {
	slices.SortFunc(ps, func(a, b Permission) int { return order[a] - order[b] })
}
