package auth

import (
	"context"
	"slices"

	"golang.org/x/crypto/bcrypt"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// Execute runs a role or permission statement (cql.IsAuthStatement) for
// performer, the role of the session. An empty performer is a session
// without authentication (dohyo runs without users): it may do
// everything, and creating gets it no grants. sessionKS resolves
// unqualified tables.
func (m *Manager) Execute(ctx context.Context, performer string, stmt cql.Statement, sessionKS string) (*bindings.Result, error) {
	switch s := stmt.(type) {
	case *cql.CreateRole:
		return void(m.createRole(ctx, performer, s))
	case *cql.AlterRole:
		return void(m.alterRole(ctx, performer, s))
	case *cql.DropRole:
		return void(m.dropRole(ctx, performer, s))
	case *cql.GrantRole:
		return void(m.grantRole(ctx, performer, s.Role, s.Grantee, true))
	case *cql.RevokeRole:
		return void(m.grantRole(ctx, performer, s.Role, s.Revokee, false))
	case *cql.GrantPermissions:
		return void(m.grantPermissions(ctx, performer, s.Permissions, s.Resource, s.Grantee, sessionKS, true))
	case *cql.RevokePermissions:
		return void(m.grantPermissions(ctx, performer, s.Permissions, s.Resource, s.Revokee, sessionKS, false))
	case *cql.ListRoles:
		return m.listRoles(ctx, performer, s)
	case *cql.ListPermissions:
		return m.listPermissions(ctx, performer, s, sessionKS)
	}
	return nil, bindings.Unsupported("statement %T is not a role or permission statement", stmt)
}

func void(err error) (*bindings.Result, error) {
	if err != nil {
		return nil, err
	}
	return &bindings.Result{Kind: bindings.ResultVoid}, nil
}

// performerView wraps permission checks: an empty performer is allowed
// everything.
type performerView struct {
	*view
	name string
}

func (p performerView) super() bool { return p.name == "" || p.isSuper(p.name) }

func (p performerView) ensure(perm Permission, res Resource) error {
	if p.name == "" {
		return nil
	}
	return p.view.ensure(p.name, perm, res)
}

func (p performerView) has(perm Permission, res Resource) bool {
	return p.name == "" || p.permitted(p.name, perm, res)
}

// validateOptions is Cassandra's RoleOptions.validate for
// CassandraRoleManager with PasswordAuthenticator.
func validateOptions(o cql.RoleOptions) error {
	if o.Options != nil {
		return invalid("org.apache.cassandra.auth.CassandraRoleManager doesn't support OPTIONS")
	}
	if o.Password != nil && o.HashedPassword != nil {
		return invalid("Properties 'password' and 'hashed password' are mutually exclusive")
	}
	if o.HashedPassword != nil {
		if _, err := bcrypt.Cost([]byte(*o.HashedPassword)); err != nil {
			return invalid("Invalid hashed password value. Please use jBcrypt.")
		}
	}
	return nil
}

// applyOptions sets the given options on r (hashing a password).
func (m *Manager) applyOptions(r *role, o cql.RoleOptions) error {
	if o.Password != nil {
		h, err := bcrypt.GenerateFromPassword([]byte(*o.Password), m.cost)
		if err != nil {
			return invalid("Invalid password: %v", err)
		}
		r.Hash = string(h)
	}
	if o.HashedPassword != nil {
		r.Hash = *o.HashedPassword
	}
	if o.Login != nil {
		r.Login = *o.Login
	}
	if o.Superuser != nil {
		r.Super = *o.Superuser
	}
	return nil
}

func (m *Manager) bootstrapped(name string) error {
	if _, ok := m.bootstrap[name]; ok {
		return invalid("%s is configured by --auth-user/--auth-users-file: change it in the configuration", name)
	}
	return nil
}

func (m *Manager) createRole(ctx context.Context, performer string, s *cql.CreateRole) error {
	if err := validateOptions(s.Options); err != nil {
		return err
	}
	if s.Name == "" {
		return invalid("Role name can't be an empty string")
	}
	return m.update(ctx, func(v *view) error {
		p := performerView{v, performer}
		if err := p.ensure(Create, AllRoles()); err != nil {
			return err
		}
		if s.Options.Superuser != nil && *s.Options.Superuser && !p.super() {
			return unauthorized("Only superusers can create a role with superuser status")
		}
		if v.exists(s.Name) {
			if s.IfNotExists {
				return nil
			}
			if s.User {
				return invalid("User %s already exists", s.Name)
			}
			return invalid("%s already exists", s.Name)
		}
		r := &role{Login: s.User}
		if err := m.applyOptions(r, s.Options); err != nil {
			return err
		}
		v.st.Roles[s.Name] = r
		if performer != "" {
			res := RoleResource(s.Name)
			v.st.grant(performer, res, res.Applicable())
		}
		return nil
	})
}

func (m *Manager) alterRole(ctx context.Context, performer string, s *cql.AlterRole) error {
	if err := validateOptions(s.Options); err != nil {
		return err
	}
	if s.Options.Empty() {
		return invalid("ALTER [ROLE|USER] can't be empty")
	}
	return m.update(ctx, func(v *view) error {
		p := performerView{v, performer}
		if !v.exists(s.Name) {
			return invalid("%s doesn't exist", s.Name)
		}
		if err := m.bootstrapped(s.Name); err != nil {
			return err
		}
		super := p.super()
		if s.Options.Superuser != nil && performer != "" && slices.Contains(v.rolesOf(performer, true), s.Name) {
			return unauthorized("You aren't allowed to alter your own superuser status or that of a role granted to you")
		}
		if s.Options.Superuser != nil && !super {
			return unauthorized("Only superusers are allowed to alter superuser status")
		}
		if !super {
			if performer == s.Name {
				if s.Options.Login != nil {
					return unauthorized("You aren't allowed to alter LOGIN")
				}
				if s.Options.HashedPassword != nil {
					return unauthorized("You aren't allowed to alter HASHED_PASSWORD")
				}
			} else if err := p.ensure(Alter, RoleResource(s.Name)); err != nil {
				return err
			}
		}
		return m.applyOptions(v.st.Roles[s.Name], s.Options)
	})
}

func (m *Manager) dropRole(ctx context.Context, performer string, s *cql.DropRole) error {
	return m.update(ctx, func(v *view) error {
		p := performerView{v, performer}
		if err := p.ensure(Drop, RoleResource(s.Name)); err != nil {
			return err
		}
		if v.exists(s.Name) && v.role(s.Name).Super && !p.super() {
			return unauthorized("Only superusers can drop a role with superuser status")
		}
		if !v.exists(s.Name) {
			if s.IfExists {
				return nil
			}
			if s.User {
				return invalid("User %s doesn't exist", s.Name)
			}
			return invalid("%s doesn't exist", s.Name)
		}
		if performer == s.Name {
			return invalid("Cannot DROP primary role for current login")
		}
		if err := m.bootstrapped(s.Name); err != nil {
			return err
		}
		delete(v.st.Roles, s.Name)
		for _, r := range v.st.Roles {
			r.MemberOf = slices.DeleteFunc(r.MemberOf, func(n string) bool { return n == s.Name })
		}
		delete(v.st.Perms, s.Name)
		name := RoleResource(s.Name).Name()
		v.st.revokeAllOn(func(n string) bool { return n == name })
		return nil
	})
}

// grantRole is GRANT role TO grantee (grant) or REVOKE role FROM grantee.
func (m *Manager) grantRole(ctx context.Context, performer, roleName, grantee string, grant bool) error {
	return m.update(ctx, func(v *view) error {
		p := performerView{v, performer}
		if err := p.ensure(Authorize, RoleResource(roleName)); err != nil {
			return err
		}
		for _, n := range []string{roleName, grantee} {
			if !v.exists(n) {
				return invalid("%s doesn't exist", n)
			}
		}
		if !grant {
			if !slices.Contains(v.rolesOf(grantee, false), roleName) || roleName == grantee {
				return invalid("%s is not a member of %s", grantee, roleName)
			}
			if r := v.st.Roles[grantee]; r != nil {
				r.MemberOf = slices.DeleteFunc(r.MemberOf, func(n string) bool { return n == roleName })
			}
			return nil
		}
		if slices.Contains(v.rolesOf(grantee, true), roleName) {
			return invalid("%s is a member of %s", grantee, roleName)
		}
		if slices.Contains(v.rolesOf(roleName, true), grantee) {
			return invalid("%s is a member of %s", roleName, grantee)
		}
		r := v.st.Roles[grantee]
		if r == nil { // a bootstrap user: store its memberships
			r = &role{}
			v.st.Roles[grantee] = r
		}
		r.MemberOf = append(r.MemberOf, roleName)
		slices.Sort(r.MemberOf)
		return nil
	})
}

// resolve turns a statement's resource into a Resource (the session
// keyspace for unqualified tables).
func resolve(r cql.AuthResource, sessionKS string) (Resource, error) {
	res := Resource{Kind: r.Kind, Keyspace: r.Keyspace, Table: r.Table, Role: r.Role}
	if r.Kind == cql.ResTable && res.Keyspace == "" {
		if sessionKS == "" {
			return res, invalid("No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename")
		}
		res.Keyspace = sessionKS
	}
	return res, nil
}

// resourceExists checks a resource: roles in v, data through Config.Exists.
func (m *Manager) resourceExists(ctx context.Context, v *view, res Resource) (bool, error) {
	switch res.Kind {
	case cql.ResAllKeyspaces, cql.ResAllRoles:
		return true, nil
	case cql.ResRole:
		return v.exists(res.Role), nil
	}
	if m.exists == nil {
		return true, nil
	}
	return m.exists(ctx, res)
}

// permissionsOf expands ALL to the resource's applicable permissions and
// refuses one that does not apply.
func permissionsOf(ps cql.Permissions, res Resource) ([]Permission, error) {
	if ps.All {
		return res.Applicable(), nil
	}
	p := Permission(ps.Name)
	if !slices.Contains(res.Applicable(), p) {
		return nil, bindings.Errorf(bindings.CodeSyntaxError,
			"Resource type %s does not support the requested permission: %s", res.typeName(), p)
	}
	return []Permission{p}, nil
}

func (m *Manager) grantPermissions(ctx context.Context, performer string, ps cql.Permissions, r cql.AuthResource,
	grantee, sessionKS string, grant bool) error {
	res, err := resolve(r, sessionKS)
	if err != nil {
		return err
	}
	perms, err := permissionsOf(ps, res)
	if err != nil {
		return err
	}
	return m.update(ctx, func(v *view) error {
		if !v.exists(grantee) {
			return invalid("Role %s doesn't exist", grantee)
		}
		ok, err := m.resourceExists(ctx, v, res)
		if err != nil {
			return err
		}
		if !ok {
			return invalid("Resource %s doesn't exist", res)
		}
		p := performerView{v, performer}
		if err := p.ensure(Authorize, res); err != nil {
			return err
		}
		for _, perm := range perms {
			if err := p.ensure(perm, res); err != nil {
				return err
			}
		}
		if grant {
			v.st.grant(grantee, res, perms)
		} else {
			v.st.revoke(grantee, res, perms)
		}
		return nil
	})
}

// GrantCreator gives the creator of a keyspace or table every permission
// on it, as Cassandra does (nothing for an empty creator).
func (m *Manager) GrantCreator(ctx context.Context, creator string, res Resource) error {
	if creator == "" {
		return nil
	}
	return m.update(ctx, func(v *view) error {
		v.st.grant(creator, res, res.Applicable())
		return nil
	})
}

// ResourceDropped revokes every grant on a dropped keyspace (and its
// tables) or table, so a later one of the same name starts clean.
func (m *Manager) ResourceDropped(ctx context.Context, res Resource) error {
	name := res.Name()
	match := func(n string) bool {
		return n == name || (res.Kind == cql.ResKeyspace && len(n) > len(name) && n[:len(name)+1] == name+"/")
	}
	st, err := m.current(ctx)
	if err != nil {
		return err
	}
	found := false
	for _, byRes := range st.Perms {
		for n := range byRes {
			found = found || match(n)
		}
	}
	if !found {
		return nil
	}
	return m.update(ctx, func(v *view) error {
		v.st.revokeAllOn(match)
		return nil
	})
}
