package cql

import "strings"

// Grammar of the role and permission statements (Cassandra's Cql.g:
// createRoleStatement, roleOptions, permissionOrAll, resource, ...).

// roleName parses userOrRoleName: an identifier (unquoted ones
// lower-cased), a quoted identifier or a string literal (kept as written).
func (p *parser) roleName() string {
	if p.is(tString) {
		return unquote(p.text(p.next()))
	}
	return p.ident()
}

// createRole parses CREATE ROLE / CREATE USER (the CREATE is current).
func (p *parser) createRole(user bool) Statement {
	p.next()
	p.next()
	s := &CreateRole{User: user, IfNotExists: p.acceptKws("if", "not", "exists")}
	s.Name = p.roleName()
	if user {
		s.Options = p.userOptions()
		return s
	}
	if p.acceptKw("with") {
		s.Options = p.roleOptions()
	}
	return s
}

// alterRole parses ALTER ROLE / ALTER USER.
func (p *parser) alterRole(user bool) Statement {
	p.next()
	p.next()
	s := &AlterRole{User: user, Name: p.roleName()}
	if user {
		s.Options = p.userOptions()
		return s
	}
	p.expectKw("with")
	s.Options = p.roleOptions()
	return s
}

// dropRole parses DROP ROLE / DROP USER.
func (p *parser) dropRole(user bool) Statement {
	p.next()
	p.next()
	s := &DropRole{User: user, IfExists: p.acceptKws("if", "exists")}
	s.Name = p.roleName()
	return s
}

// userOptions parses the legacy ( WITH [HASHED] PASSWORD 'x' )?
// ( SUPERUSER | NOSUPERUSER )?
func (p *parser) userOptions() RoleOptions {
	var o RoleOptions
	if p.acceptKw("with") {
		hashed := p.acceptKw("hashed")
		p.expectKw("password")
		if !p.is(tString) {
			p.mismatch("STRING_LITERAL")
			return o
		}
		v := unquote(p.text(p.next()))
		if hashed {
			o.HashedPassword = &v
		} else {
			o.Password = &v
		}
	}
	switch {
	case p.acceptKw("superuser"):
		t := true
		o.Superuser = &t
	case p.acceptKw("nosuperuser"):
		f := false
		o.Superuser = &f
	}
	return o
}

// roleOptions parses roleOption (AND roleOption)*.
func (p *parser) roleOptions() RoleOptions {
	var o RoleOptions
	for p.err == nil {
		p.roleOption(&o)
		if !p.acceptKw("and") {
			break
		}
	}
	return o
}

func (p *parser) roleOption(o *RoleOptions) {
	t := p.tok()
	dup := func(name string) { p.failAt(t, "Multiple definition for property "+name) }
	switch {
	case p.acceptKw("password"):
		if o.Password != nil {
			dup("PASSWORD")
		}
		o.Password = p.optionString()
	case p.acceptKw("hashed"):
		p.expectKw("password")
		if o.HashedPassword != nil {
			dup("HASHED_PASSWORD")
		}
		o.HashedPassword = p.optionString()
	case p.acceptKw("login"):
		if o.Login != nil {
			dup("LOGIN")
		}
		o.Login = p.optionBool()
	case p.acceptKw("superuser"):
		if o.Superuser != nil {
			dup("SUPERUSER")
		}
		o.Superuser = p.optionBool()
	case p.acceptKw("options"):
		if o.Options != nil {
			dup("OPTIONS")
		}
		o.Options = p.optionMap()
	default:
		p.noViable()
	}
}

func (p *parser) optionString() *string {
	p.expect(tEq)
	if !p.is(tString) {
		p.mismatch("STRING_LITERAL")
		return nil
	}
	v := unquote(p.text(p.next()))
	return &v
}

func (p *parser) optionBool() *bool {
	p.expect(tEq)
	switch {
	case p.acceptKw("true"):
		v := true
		return &v
	case p.acceptKw("false"):
		v := false
		return &v
	}
	p.mismatch("BOOLEAN")
	return nil
}

// optionMap parses OPTIONS' map literal of string keys and values.
func (p *parser) optionMap() map[string]string {
	p.expect(tEq)
	p.expect(tLBrace)
	m := map[string]string{}
	for p.err == nil && !p.is(tRBrace) {
		k := p.optionText()
		p.expect(tColon)
		m[k] = p.optionText()
		if !p.accept(tComma) {
			break
		}
	}
	p.expect(tRBrace)
	return m
}

func (p *parser) optionText() string {
	if !p.is(tString) {
		p.mismatch("STRING_LITERAL")
		return ""
	}
	return unquote(p.text(p.next()))
}

// grantOrRevoke parses GRANT/REVOKE of a role or of permissions.
func (p *parser) grantOrRevoke(grant bool) Statement {
	p.next()
	to := "from"
	if grant {
		to = "to"
	}
	if p.startsPermissions() {
		perms := p.permissions()
		p.expectKw("on")
		res := p.authResource()
		p.expectKw(to)
		who := p.roleName()
		if grant {
			return &GrantPermissions{Permissions: perms, Resource: res, Grantee: who}
		}
		return &RevokePermissions{Permissions: perms, Resource: res, Revokee: who}
	}
	role := p.roleName()
	p.expectKw(to)
	who := p.roleName()
	if grant {
		return &GrantRole{Role: role, Grantee: who}
	}
	return &RevokeRole{Role: role, Revokee: who}
}

// startsPermissions tells `ALL [PERMISSIONS] ON` or `<permission>
// [PERMISSION] ON` from a role name.
func (p *parser) startsPermissions() bool {
	t := p.tok()
	if t.kind != tIdent {
		return false
	}
	word := strings.ToUpper(p.text(t))
	next := p.peek(1)
	if word == "ALL" {
		return p.isWord(next, "on") || p.isWord(next, "permissions") || p.isWord(next, "of") ||
			next.kind == tEOF || next.kind == tSemi
	}
	if !isPermissionName(word) {
		return false
	}
	return p.isWord(next, "on") || p.isWord(next, "permission") || p.isWord(next, "of") ||
		p.isWord(next, "norecursive") || next.kind == tEOF || next.kind == tSemi
}

func isPermissionName(word string) bool {
	for _, n := range PermissionNames {
		if n == word {
			return true
		}
	}
	return false
}

// permissions parses permissionOrAll.
func (p *parser) permissions() Permissions {
	if p.acceptKw("all") {
		p.acceptKw("permissions")
		return Permissions{All: true}
	}
	t := p.next()
	name := strings.ToUpper(p.text(t))
	if !isPermissionName(name) {
		p.failAt(t, noViableMsg(t.display(p.src)))
	}
	p.acceptKw("permission")
	return Permissions{Name: name}
}

// authResource parses a data or role resource.
func (p *parser) authResource() AuthResource {
	switch {
	case p.isKw("all"):
		p.next()
		switch {
		case p.acceptKw("keyspaces"):
			return AuthResource{Kind: ResAllKeyspaces}
		case p.acceptKw("roles"):
			return AuthResource{Kind: ResAllRoles}
		}
		p.noViable()
		return AuthResource{}
	case p.acceptKw("keyspace"):
		return AuthResource{Kind: ResKeyspace, Keyspace: p.ident()}
	case p.isKw("role") && p.peek(1).kind != tDot:
		p.next()
		return AuthResource{Kind: ResRole, Role: p.roleName()}
	case p.isKw("table") && p.peek(1).kind != tDot:
		p.next()
	}
	ks, name := p.qualifiedName()
	return AuthResource{Kind: ResTable, Keyspace: ks, Table: name}
}

// list parses LIST ROLES, LIST USERS and LIST <permissions>.
func (p *parser) list() Statement {
	p.next()
	switch {
	case p.acceptKw("users"):
		return &ListRoles{Users: true}
	case p.acceptKw("roles"):
		s := &ListRoles{}
		if p.acceptKw("of") {
			s.Of = p.roleName()
		}
		s.NoRecursive = p.acceptKw("norecursive")
		return s
	}
	if !p.startsPermissions() {
		p.noViable()
		return nil
	}
	s := &ListPermissions{Permissions: p.permissions()}
	if p.acceptKw("on") {
		r := p.authResource()
		s.Resource = &r
	}
	if p.acceptKw("of") {
		s.Of = p.roleName()
	}
	s.NoRecursive = p.acceptKw("norecursive")
	return s
}
