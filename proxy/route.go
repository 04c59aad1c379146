package proxy

import (
	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

const noKeyspaceMsg = "No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename"

// statementKeyspace returns the keyspace a statement addresses, falling back
// to the session's keyspace for unqualified table names.
func statementKeyspace(stmt cql.Statement, session string) (string, error) {
	switch s := stmt.(type) {
	case *cql.Batch:
		return batchKeyspace(s, session)
	case *cql.Unsupported:
		return "", bindings.Unsupported("%s is not supported by dohyo", s.What)
	}
	ks, ok := cql.KeyspaceOf(stmt)
	if !ok {
		return "", bindings.Unsupported("statement %T is not supported by dohyo", stmt)
	}
	if ks == "" {
		ks = session
	}
	if ks == "" {
		return "", bindings.Errorf(bindings.CodeInvalid, noKeyspaceMsg)
	}
	return ks, nil
}

// batchKeyspace returns the keyspace of a batch's first child; routing of the
// others is checked by the caller (all children must share one backend).
func batchKeyspace(b *cql.Batch, session string) (string, error) {
	if len(b.Statements) == 0 {
		if session == "" {
			return "", bindings.Errorf(bindings.CodeInvalid, noKeyspaceMsg)
		}
		return session, nil
	}
	return statementKeyspace(b.Statements[0], session)
}

// routeAll resolves the backend for a set of keyspaces (at least one) and
// rejects a request that would span two backends: dohyo never splits one
// statement or batch.
func (c *Coordinator) routeAll(keyspaces []string) (Route, error) {
	tbl := c.table()
	if _, err := oneBackend(len(keyspaces), func(i int) (string, string) {
		return keyspaces[i], tbl.route(keyspaces[i], c.def).Name
	}); err != nil {
		return Route{}, err
	}
	return tbl.route(keyspaces[0], c.def), nil
}

// oneBackend returns the one backend that serves a BATCH's n children
// (child(i) is child i's keyspace and backend), or SpanningBatch: the
// rule for the executed path (routeAll) and the relay (frameRouter.batch).
func oneBackend(n int, child func(i int) (ks, backend string)) (string, error) {
	backend, first := "", ""
	for i := range n {
		ks, b := child(i)
		if i == 0 {
			backend, first = b, ks
			continue
		}
		if b != backend {
			return "", SpanningBatch(first, backend, ks, b)
		}
	}
	return backend, nil
}

// SpanningBatch is the error for a BATCH whose children are served by two
// backends (the local path and the relay both answer it): first and other
// name the children's keyspaces, firstBackend and otherBackend their
// backends.
func SpanningBatch(first, firstBackend, other, otherBackend string) error {
	return bindings.Errorf(bindings.CodeInvalid,
		"dohyo cannot execute a batch spanning backends: %s (%s) and %s (%s) are on different backends, and a BATCH must stay on one",
		first, firstBackend, other, otherBackend)
}

// batchKeyspaces lists the keyspaces of every child of a parsed BATCH.
func batchKeyspaces(b *cql.Batch, session string) ([]string, error) {
	out := make([]string, 0, len(b.Statements))
	for _, st := range b.Statements {
		ks, err := statementKeyspace(st, session)
		if err != nil {
			return nil, err
		}
		out = append(out, ks)
	}
	return out, nil
}
