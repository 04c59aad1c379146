package auth

import (
	"context"
	"slices"
	"strings"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

var (
	textType = cql.Scalar(cql.KindText)
	boolType = cql.Scalar(cql.KindBoolean)
	optsType = cql.MapOf(textType, textType)
)

func col(table, name string, t *cql.Type) bindings.ColumnSpec {
	return bindings.ColumnSpec{Keyspace: "system_auth", Table: table, Name: name, Type: t}
}

// Result shapes of Cassandra 5.0's LIST ROLES, LIST USERS and LIST
// PERMISSIONS.
var (
	listRolesColumns = []bindings.ColumnSpec{col("roles", "role", textType), col("roles", "super", boolType),
		col("roles", "login", boolType), col("roles", "options", optsType), col("roles", "datacenters", textType)}
	listUsersColumns = []bindings.ColumnSpec{col("users", "name", textType), col("users", "super", boolType),
		col("users", "datacenters", textType)}
	listPermissionsColumns = []bindings.ColumnSpec{col("permissions", "role", textType),
		col("permissions", "username", textType), col("permissions", "resource", textType),
		col("permissions", "permission", textType)}
)

// encode serializes the listings' fixed Go types (string, bool,
// map[string]string), which EncodeGo always accepts.
func encode(t *cql.Type, v any) []byte {
	b, _ := cql.EncodeGo(t, v)
	return b
}

func (m *Manager) listRoles(ctx context.Context, performer string, s *cql.ListRoles) (*bindings.Result, error) {
	st, err := m.current(ctx)
	if err != nil {
		return nil, err
	}
	v := m.viewOf(st)
	p := performerView{v, performer}
	if s.Of != "" && !v.exists(s.Of) {
		return nil, invalid("%s doesn't exist", RoleResource(s.Of))
	}
	var names []string
	switch {
	case p.has(Describe, AllRoles()) && s.Of == "":
		names = v.names()
	case p.has(Describe, AllRoles()):
		names = v.rolesOf(s.Of, !s.NoRecursive)
	case s.Of == "":
		names = v.rolesOf(performer, !s.NoRecursive)
	case slices.Contains(v.rolesOf(performer, true), s.Of):
		names = v.rolesOf(s.Of, !s.NoRecursive)
	default:
		return nil, unauthorized("You are not authorized to view roles granted to %s ", s.Of)
	}
	if s.Users {
		return m.usersResult(v, names), nil
	}
	if len(names) == 0 {
		return &bindings.Result{Kind: bindings.ResultVoid}, nil
	}
	res := &bindings.Result{Kind: bindings.ResultRows, Columns: listRolesColumns}
	for _, n := range names {
		r := v.role(n)
		opts := r.Options
		if opts == nil {
			opts = map[string]string{}
		}
		res.Rows = append(res.Rows, [][]byte{encode(textType, n), encode(boolType, r.Super),
			encode(boolType, r.Login), encode(optsType, opts), encode(textType, "ALL")})
	}
	return res, nil
}

// usersResult is LIST USERS: the roles that can log in.
func (m *Manager) usersResult(v *view, names []string) *bindings.Result {
	res := &bindings.Result{Kind: bindings.ResultRows, Columns: listUsersColumns}
	for _, n := range names {
		if r := v.role(n); r.Login {
			res.Rows = append(res.Rows, [][]byte{encode(textType, n), encode(boolType, r.Super), encode(textType, "ALL")})
		}
	}
	if len(res.Rows) == 0 {
		return &bindings.Result{Kind: bindings.ResultVoid}
	}
	return res
}

// grantRow is one row of LIST PERMISSIONS.
type grantRow struct {
	role string
	res  Resource
	perm Permission
}

func (m *Manager) listPermissions(ctx context.Context, performer string, s *cql.ListPermissions, sessionKS string) (*bindings.Result, error) {
	st, err := m.current(ctx)
	if err != nil {
		return nil, err
	}
	v := m.viewOf(st)
	p := performerView{v, performer}
	var resources []Resource // nil: every resource
	if s.Resource != nil {
		res, err := resolve(*s.Resource, sessionKS)
		if err != nil {
			return nil, err
		}
		ok, err := m.resourceExists(ctx, v, res)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, invalid("%s doesn't exist", res)
		}
		resources = []Resource{res}
		if !s.NoRecursive {
			resources = res.Chain()
		}
	}
	if s.Of != "" && !v.exists(s.Of) {
		return nil, invalid("%s doesn't exist", RoleResource(s.Of))
	}
	if !p.super() {
		if s.Of == "" {
			return nil, unauthorized("You are not authorized to view everyone's permissions")
		}
		if !slices.Contains(v.rolesOf(performer, true), s.Of) {
			return nil, unauthorized("You are not authorized to view %s's permissions", s.Of)
		}
	}
	grantees := v.names()
	if s.Of != "" {
		grantees = v.rolesOf(s.Of, true)
	}
	rows := collectGrants(v, grantees, resources, s.Permissions)
	if len(rows) == 0 {
		return &bindings.Result{Kind: bindings.ResultVoid}, nil
	}
	res := &bindings.Result{Kind: bindings.ResultRows, Columns: listPermissionsColumns}
	for _, g := range rows {
		res.Rows = append(res.Rows, [][]byte{encode(textType, g.role), encode(textType, g.role),
			encode(textType, g.res.String()), encode(textType, string(g.perm))})
	}
	return res, nil
}

// collectGrants lists the grants of grantees on resources (nil: all) of
// the asked permissions, sorted as Cassandra's PermissionDetails are.
func collectGrants(v *view, grantees []string, resources []Resource, ps cql.Permissions) []grantRow {
	var rows []grantRow
	for _, g := range grantees {
		for name, perms := range v.st.Perms[g] {
			res, ok := parseName(name)
			if !ok || (resources != nil && !slices.Contains(resources, res)) {
				continue
			}
			for _, perm := range perms {
				if ps.All || string(perm) == ps.Name {
					rows = append(rows, grantRow{g, res, perm})
				}
			}
		}
	}
	slices.SortFunc(rows, func(a, b grantRow) int {
		if c := strings.Compare(a.role, b.role); c != 0 {
			return c
		}
		if c := strings.Compare(a.res.Name(), b.res.Name()); c != 0 {
			return c
		}
		return order[a.perm] - order[b.perm]
	})
	return rows
}

// Grant is one granted permission (system_auth.role_permissions).
type Grant struct {
	Role        string
	Resource    Resource
	Permissions []Permission
}

// RoleInfo is one role (system_auth.roles).
type RoleInfo struct {
	Name     string
	Login    bool
	Super    bool
	MemberOf []string
	Hash     string
}

// Roles lists every role, sorted by name.
func (m *Manager) Roles(ctx context.Context) ([]RoleInfo, error) {
	st, err := m.current(ctx)
	if err != nil {
		return nil, err
	}
	v := m.viewOf(st)
	var out []RoleInfo
	for _, n := range v.names() {
		r := v.role(n)
		out = append(out, RoleInfo{Name: n, Login: r.Login, Super: r.Super, MemberOf: slices.Clone(r.MemberOf), Hash: r.Hash})
	}
	return out, nil
}

// Grants lists every grant, sorted by role and resource name.
func (m *Manager) Grants(ctx context.Context) ([]Grant, error) {
	st, err := m.current(ctx)
	if err != nil {
		return nil, err
	}
	var out []Grant
	for role, byRes := range st.Perms {
		for name, perms := range byRes {
			if res, ok := parseName(name); ok {
				out = append(out, Grant{Role: role, Resource: res, Permissions: slices.Clone(perms)})
			}
		}
	}
	slices.SortFunc(out, func(a, b Grant) int {
		if c := strings.Compare(a.Role, b.Role); c != 0 {
			return c
		}
		return strings.Compare(a.Resource.Name(), b.Resource.Name())
	})
	return out, nil
}
