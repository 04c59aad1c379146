package proxy

import (
	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

const noKeyspaceMsg = "No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename"

// statementKeyspace returns the keyspace a statement addresses, falling back
// to the session's keyspace for unqualified table names.
func statementKeyspace(stmt cql.Statement, session string) (string, error) {
	var ks string
	switch s := stmt.(type) {
	case *cql.CreateKeyspace:
		return s.Name, nil
	case *cql.AlterKeyspace:
		return s.Name, nil
	case *cql.DropKeyspace:
		return s.Name, nil
	case *cql.Use:
		return s.Keyspace, nil
	case *cql.CreateTable:
		ks = s.Keyspace
	case *cql.AlterTable:
		ks = s.Keyspace
	case *cql.DropTable:
		ks = s.Keyspace
	case *cql.CreateView:
		ks = s.Keyspace
	case *cql.AlterView:
		ks = s.Keyspace
	case *cql.DropView:
		ks = s.Keyspace
	case *cql.CreateIndex:
		ks = s.Keyspace
	case *cql.DropIndex:
		ks = s.Keyspace
	case *cql.CreateType:
		ks = s.Keyspace
	case *cql.AlterUserType:
		ks = s.Keyspace
	case *cql.DropType:
		ks = s.Keyspace
	case *cql.CreateFunction:
		ks = s.Keyspace
	case *cql.DropFunction:
		ks = s.Keyspace
	case *cql.CreateAggregate:
		ks = s.Keyspace
	case *cql.DropAggregate:
		ks = s.Keyspace
	case *cql.Truncate:
		ks = s.Keyspace
	case *cql.Insert:
		ks = s.Keyspace
	case *cql.Update:
		ks = s.Keyspace
	case *cql.Delete:
		ks = s.Keyspace
	case *cql.Select:
		ks = s.Keyspace
	case *cql.Batch:
		return batchKeyspace(s, session)
	case *cql.Unsupported:
		return "", bindings.Unsupported("%s is not supported by dohyo", s.What)
	default:
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

// routeAll resolves the backend for a set of keyspaces and rejects a request
// that would span two backends: dohyo never splits one statement or batch.
func (c *Coordinator) routeAll(keyspaces []string) (string, error) {
	backend := ""
	first := ""
	for _, ks := range keyspaces {
		b := c.Route(ks).Backend
		if backend == "" {
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
