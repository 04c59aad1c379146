package cqlserver

import (
	"strings"
	"time"

	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/cql/wire"
	"github.com/dohyo/dohyo/proxy"
)

// Request budgets (Config.RequestTimeout, Config.KeyspaceTimeouts, the
// client's dohyo-budget-ms custom payload entry). A request that runs out
// of time is answered the way a Cassandra coordinator answers one:
// ReadTimeout for reads, WriteTimeout for writes (with the write type
// drivers' retry policies look at), so that drivers apply their usual
// retry decisions instead of waiting for their own client-side timeout.
//
// The connection's dispatch enforces the outer bound computed here (it
// answers even if the backend ignores its ctx). With per-keyspace budgets
// the keyspace is only known once the statement is parsed and routed: the
// outer bound is then the longest budget, and the session bounds each
// statement by its keyspace's own budget through the ctx (budget.go).

// timeoutFor returns the deadline of a request: schema changes and PREPARE
// have none (a half-applied DDL is worse than a slow one).
func (s *Server) timeoutFor(req *request) time.Duration {
	if !budgeted(req) {
		return 0
	}
	b := &s.tel.budgets
	d := b.Default
	if b.PerKeyspace() {
		d = b.Max()
	}
	if client, err := clientBudget(req); err == nil {
		d = proxy.Tighten(d, client)
	}
	return d
}

// budgeted reports whether a request has a budget at all.
func budgeted(req *request) bool {
	switch req.op {
	case wire.OpPrepare:
		return false
	case wire.OpQuery:
		return !isSchemaStatement(req.query)
	}
	return true
}

// isSchemaStatement tells DDL from other statements by its first keyword.
func isSchemaStatement(query string) bool {
	switch firstKeyword(query) {
	case "create", "alter", "drop", "truncate", "grant", "revoke":
		return true
	}
	return false
}

// firstKeyword returns the first word of a statement, lower-cased, skipping
// white space and comments.
func firstKeyword(q string) string {
	for i := 0; i < len(q); {
		switch ch := q[i]; {
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f':
			i++
		case strings.HasPrefix(q[i:], "--") || strings.HasPrefix(q[i:], "//"):
			nl := strings.IndexByte(q[i:], '\n')
			if nl < 0 {
				return ""
			}
			i += nl + 1
		case strings.HasPrefix(q[i:], "/*"):
			end := strings.Index(q[i+2:], "*/")
			if end < 0 {
				return ""
			}
			i += end + 4
		default:
			j := i
			for j < len(q) && (q[j] == '_' || q[j] >= 'a' && q[j] <= 'z' || q[j] >= 'A' && q[j] <= 'Z') {
				j++
			}
			return strings.ToLower(q[i:j])
		}
	}
	return ""
}

// timeoutError builds the error for a request whose budget passed (the
// dispatch timer's answer) and counts it.
func (c *conn) timeoutError(req *request) error {
	msg := proxy.TimeoutMessage(c.srv.timeoutFor(req))
	c.srv.budgetExceeded(c.requestKeyspace(req))
	var stmt cql.Statement
	switch req.op {
	case wire.OpBatch:
		return proxy.BatchTimeoutError(req.batch.Type, req.batch.Consistency, msg)
	case wire.OpExecute:
		if ps, err := c.srv.coord.Lookup(req.id); err == nil {
			stmt = ps.Parsed.Stmt
		}
	case wire.OpQuery:
		if p, err := c.srv.coord.Parse(req.query); err == nil {
			stmt = p.Stmt
		}
	}
	return proxy.TimeoutError(stmt, req.params.consistency, req.params.serial, msg)
}

// requestKeyspace is the keyspace a request addresses, for metrics labels
// on the (rare) timeout path.
func (c *conn) requestKeyspace(req *request) string {
	switch req.op {
	case wire.OpQuery:
		if ks, ok := c.srv.coord.StatementKeyspace(req.query); ok {
			return ks
		}
		if req.params.keyspace != "" {
			return req.params.keyspace
		}
	case wire.OpExecute:
		if ps, err := c.srv.coord.Lookup(req.id); err == nil {
			if ks, ok := c.srv.coord.StatementKeyspace(ps.Query); ok {
				return ks
			}
			return ps.Keyspace
		}
	case wire.OpBatch:
		if req.keyspace != "" {
			return req.keyspace
		}
		if len(req.batch.Entries) > 0 && req.batch.Entries[0].PreparedID == nil {
			if ks, ok := c.srv.coord.StatementKeyspace(req.batch.Entries[0].Query); ok {
				return ks
			}
		}
	}
	return c.session.Keyspace()
}
