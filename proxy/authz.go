package proxy

import (
	"context"

	"github.com/dohyo/dohyo/auth"
	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// Authorization: the one place where statements are checked against the
// session's role, after parsing and routing and before execution (Query,
// Prepare, Execute and every BATCH child). Role and permission statements
// run on the coordinator's auth.Manager. Backends named in
// Config.AuthExempt (relayed Cassandra clusters) keep their own checks.

// SetRole sets the role the session acts as (after authentication). CQL
// sessions without a role are refused every statement while enforcement
// is on; sessions of other front ends without a role are not checked here
// (their front end authenticates and authorizes them, and may SetRole to
// have the same checks).
func (s *Session) SetRole(role string) {
	s.mu.Lock()
	s.role = role
	s.mu.Unlock()
}

// Role is the session's role ("" before authentication or without it).
func (s *Session) Role() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.role
}

// Auth is the coordinator's role manager (nil: none configured).
func (c *Coordinator) Auth() *auth.Manager { return c.auth }

// ServesAuthStatements tells whether dohyo answers role and permission
// statements itself (otherwise a relay may send them to Cassandra).
func (c *Coordinator) ServesAuthStatements() bool { return c.auth != nil }

// check is one permission a statement needs.
type check struct {
	perm auth.Permission
	res  auth.Resource
}

// requiredPermissions appends what a statement needs to out, as
// Cassandra's statements' authorize methods do. USE needs nothing.
func requiredPermissions(out []check, stmt cql.Statement, sessionKS string) []check {
	ks := func(k string) string {
		if k == "" {
			return sessionKS
		}
		return k
	}
	table := func(k, t string) auth.Resource { return auth.TableResource(ks(k), t) }
	switch s := stmt.(type) {
	case *cql.Insert:
		return modify(out, table(s.Keyspace, s.Table), s.IfNotExists)
	case *cql.Update:
		return modify(out, table(s.Keyspace, s.Table), s.IfExists || len(s.If) > 0)
	case *cql.Delete:
		return modify(out, table(s.Keyspace, s.Table), s.IfExists || len(s.If) > 0)
	case *cql.Batch:
		for _, child := range s.Statements {
			out = requiredPermissions(out, child, sessionKS)
		}
		return out
	case *cql.CreateView:
		return append(out, check{auth.Alter, table(s.BaseKeyspace, s.Base)})
	}
	t := cql.TargetOf(stmt)
	need, ok := kindPermissions[t.Kind]
	if !ok {
		return out // USE, DESCRIBE (a read of the system tables every role may read), roles
	}
	var res auth.Resource
	switch need.on {
	case onTable:
		res = table(t.Keyspace, t.Table)
	case onKeyspace:
		res = auth.KeyspaceResource(ks(t.Keyspace))
	default:
		res = auth.AllKeyspaces()
	}
	return append(out, check{need.perm, res})
}

// scope is the resource a permission is checked on.
type scope uint8

const (
	onTable scope = iota
	onKeyspace
	onAllKeyspaces
)

// kindPermissions is what each statement kind needs (Cassandra's
// statements' authorize methods), for the kinds whose need depends on
// nothing but their kind and target.
var kindPermissions = map[cql.StmtKind]struct {
	perm auth.Permission
	on   scope
}{
	cql.StmtSelect:          {auth.Select, onTable},
	cql.StmtTruncate:        {auth.Modify, onTable},
	cql.StmtCreateKeyspace:  {auth.Create, onAllKeyspaces},
	cql.StmtAlterKeyspace:   {auth.Alter, onKeyspace},
	cql.StmtDropKeyspace:    {auth.Drop, onKeyspace},
	cql.StmtCreateTable:     {auth.Create, onKeyspace},
	cql.StmtAlterTable:      {auth.Alter, onTable},
	cql.StmtDropTable:       {auth.Drop, onTable},
	cql.StmtAlterView:       {auth.Alter, onTable},
	cql.StmtDropView:        {auth.Drop, onTable},
	cql.StmtCreateIndex:     {auth.Alter, onTable},
	cql.StmtDropIndex:       {auth.Alter, onKeyspace},
	cql.StmtCreateType:      {auth.Create, onKeyspace},
	cql.StmtAlterType:       {auth.Alter, onKeyspace},
	cql.StmtDropType:        {auth.Drop, onKeyspace},
	cql.StmtCreateFunction:  {auth.Create, onKeyspace},
	cql.StmtCreateAggregate: {auth.Create, onKeyspace},
	cql.StmtDropFunction:    {auth.Drop, onKeyspace},
	cql.StmtDropAggregate:   {auth.Drop, onKeyspace},
}

// modify is MODIFY, plus SELECT for conditional (LWT) writes.
func modify(out []check, res auth.Resource, conditional bool) []check {
	out = append(out, check{auth.Modify, res})
	if conditional {
		out = append(out, check{auth.Select, res})
	}
	return out
}

// readableSystem tells the system tables every logged-in role may read
// (Cassandra's READABLE_SYSTEM_RESOURCES: drivers and tools need them).
func readableSystem(res auth.Resource) bool {
	switch res.Keyspace {
	case "system_schema", "system_virtual_schema":
		return true
	case "system":
		return res.Table == "local" || res.Table == "peers" || res.Table == "peers_v2"
	}
	return false
}

// authorize checks stmt for the session's role on backend.
func (s *Session) authorize(ctx context.Context, stmt cql.Statement, sessionKS, backend string) error {
	c := s.c
	if !c.enforce || c.authExempt[backend] {
		return nil
	}
	role := s.Role()
	if role == "" {
		if s.source == bindings.SourceCQL {
			return bindings.Errorf(bindings.CodeUnauthorized, "You have not logged in")
		}
		return nil
	}
	var buf [2]check
	for _, ch := range requiredPermissions(buf[:0], stmt, sessionKS) {
		if ch.perm == auth.Select && ch.res.Table != "" && readableSystem(ch.res) {
			continue
		}
		if err := c.auth.Authorize(ctx, role, ch.perm, ch.res); err != nil {
			return err
		}
	}
	return nil
}

// authStatement runs a role or permission statement.
func (s *Session) authStatement(ctx context.Context, stmt cql.Statement, sessionKS string) (*bindings.Result, error) {
	if s.c.auth == nil {
		return nil, bindings.Errorf(bindings.CodeInvalid,
			"dohyo keeps roles in an embedded or HBase backend, and none is configured")
	}
	role := s.Role()
	if s.c.enforce && role == "" && s.source == bindings.SourceCQL {
		return nil, bindings.Errorf(bindings.CodeUnauthorized, "You have to be logged in and not anonymous to perform this request")
	}
	return s.c.auth.Execute(ctx, role, stmt, sessionKS)
}

// schemaChanged keeps grants in step with the schema: the creator of a
// keyspace or table gets every permission on it, and dropping one revokes
// every grant on it (Cassandra's AuthSchemaChangeListener). A failure is
// logged: the schema change itself happened.
func (s *Session) schemaChanged(ctx context.Context, backend string, ch *bindings.SchemaChange) {
	c := s.c
	if c.auth == nil || ch == nil || c.authExempt[backend] || backend == VirtualBackendName {
		return
	}
	var res auth.Resource
	switch ch.Target {
	case bindings.TargetKeyspace:
		res = auth.KeyspaceResource(ch.Keyspace)
	case bindings.TargetTable:
		res = auth.TableResource(ch.Keyspace, ch.Object)
	default:
		return
	}
	var err error
	switch ch.Type {
	case bindings.Created:
		err = c.auth.GrantCreator(ctx, s.Role(), res)
	case bindings.Dropped:
		err = c.auth.ResourceDropped(ctx, res)
	}
	if err != nil {
		c.log.Warn("updating grants after a schema change", "resource", res.String(), "err", err)
	}
}

// redactPasswords returns the text the Tap records for a statement: role
// statements that carry a password are rendered with the password
// replaced, as Cassandra's audit log obfuscates them, so that capture files
// never hold one.
func redactPasswords(stmt cql.Statement, text string) string {
	const mask = "*******"
	switch s := stmt.(type) {
	case *cql.CreateRole:
		if s.Options.Password != nil || s.Options.HashedPassword != nil {
			c := *s
			c.Options = maskOptions(c.Options, mask)
			return c.String()
		}
	case *cql.AlterRole:
		if s.Options.Password != nil || s.Options.HashedPassword != nil {
			c := *s
			c.Options = maskOptions(c.Options, mask)
			return c.String()
		}
	}
	return text
}

func maskOptions(o cql.RoleOptions, mask string) cql.RoleOptions {
	if o.Password != nil {
		o.Password = &mask
	}
	if o.HashedPassword != nil {
		o.HashedPassword = &mask
	}
	return o
}
