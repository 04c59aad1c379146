package systemks

import (
	"context"
	"slices"

	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/schema"
)

// system_auth.roles, role_members and role_permissions: dohyo's roles
// (auth.Manager) in Cassandra's tables, so cqlsh and drivers find the
// keyspace LIST ROLES answers from. Reading them needs SELECT on them
// (superusers), as in Cassandra (proxy/authz.go). The password hashes are
// listed as Cassandra lists them, to superusers only.

func (v *Backend) addAuthTables() {
	v.define("system_auth", "role definitions", `CREATE TABLE roles (
		role text PRIMARY KEY, can_login boolean, is_superuser boolean, member_of set<text>, salted_hash text)`,
		nil, v.authRows("roles", v.roleRows), false)
	v.define("system_auth", "role memberships lookup table", `CREATE TABLE role_members (
		role text, member text, PRIMARY KEY (role, member))`,
		nil, v.authRows("role_members", v.memberRows), false)
	v.define("system_auth", "permissions granted to db roles", `CREATE TABLE role_permissions (
		role text, resource text, permissions set<text>, PRIMARY KEY (role, resource))`,
		nil, v.authRows("role_permissions", v.permissionRows), false)
}

// authRows orders the named cells of each row by the table's columns.
func (v *Backend) authRows(table string, src func(ctx context.Context) ([]map[string]any, error)) func(context.Context, *schema.Catalog) ([][][]byte, error) {
	return func(ctx context.Context, _ *schema.Catalog) ([][][]byte, error) {
		if v.cfg.Coordinator.Auth() == nil {
			return nil, nil
		}
		named, err := src(ctx)
		if err != nil {
			return nil, err
		}
		meta := v.tables["system_auth"][table].meta
		out := make([][][]byte, 0, len(named))
		for _, n := range named {
			row := make([][]byte, len(meta.Columns))
			for i, c := range meta.Columns {
				if val, ok := n[c.Name]; ok {
					b, err := cql.EncodeGo(c.Type, val)
					if err != nil {
						return nil, err
					}
					row[i] = b
				}
			}
			out = append(out, row)
		}
		return out, nil
	}
}

func (v *Backend) roleRows(ctx context.Context) ([]map[string]any, error) {
	roles, err := v.cfg.Coordinator.Auth().Roles(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, 0, len(roles))
	for _, r := range roles {
		m := map[string]any{"role": r.Name, "can_login": r.Login, "is_superuser": r.Super}
		if len(r.MemberOf) > 0 {
			m["member_of"] = r.MemberOf
		}
		if r.Hash != "" {
			m["salted_hash"] = r.Hash
		}
		out = append(out, m)
	}
	return out, nil
}

func (v *Backend) memberRows(ctx context.Context) ([]map[string]any, error) {
	roles, err := v.cfg.Coordinator.Auth().Roles(ctx)
	if err != nil {
		return nil, err
	}
	members := map[string][]string{}
	var parents []string
	for _, r := range roles { // sorted by name, so members come sorted
		for _, p := range r.MemberOf {
			if members[p] == nil {
				parents = append(parents, p)
			}
			members[p] = append(members[p], r.Name)
		}
	}
	slices.Sort(parents)
	var out []map[string]any
	for _, p := range parents {
		for _, m := range members[p] {
			out = append(out, map[string]any{"role": p, "member": m})
		}
	}
	return out, nil
}

func (v *Backend) permissionRows(ctx context.Context) ([]map[string]any, error) {
	grants, err := v.cfg.Coordinator.Auth().Grants(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, 0, len(grants))
	for _, g := range grants {
		perms := make([]string, len(g.Permissions))
		for i, p := range g.Permissions {
			perms[i] = string(p)
		}
		slices.Sort(perms)
		out = append(out, map[string]any{"role": g.Role, "resource": g.Resource.Name(), "permissions": perms})
	}
	return out, nil
}
