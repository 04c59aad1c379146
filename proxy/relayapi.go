package proxy

import (
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// Hooks for the CQL server's raw-frame relay (DESIGN D2): the relay sends
// frames for Cassandra keyspaces to Cassandra without executing them, but
// routes them with the coordinator's parser and routes, and reports them
// to the Tap like every other request.

// Parse returns the parsed statement for text from the coordinator's
// bounded cache, or a SyntaxError.
func (c *Coordinator) Parse(text string) (*cql.Parsed, error) { return c.parse(text) }

// statementRoute returns the route of stmt for a session whose keyspace is
// sessionKS (the executed path and RouteFrame). A BATCH whose children
// route to different backends is an Invalid error (SpanningBatch); an
// empty one goes to the default backend.
func (c *Coordinator) statementRoute(stmt cql.Statement, sessionKS string) (Route, error) {
	if b, ok := stmt.(*cql.Batch); ok {
		kss, err := batchKeyspaces(b, sessionKS)
		if err != nil {
			return Route{}, err
		}
		if len(kss) == 0 {
			return c.table().route("", c.def), nil
		}
		return c.routeAll(kss)
	}
	ks, err := statementKeyspace(stmt, sessionKS)
	if err != nil {
		return Route{}, err
	}
	return c.Route(ks), nil
}

// NotifySchemaChange tells every subscriber (the CQL server's registered
// connections) about a schema change made outside the coordinator, e.g.
// on a relayed Cassandra cluster.
func (c *Coordinator) NotifySchemaChange(ch *bindings.SchemaChange) { c.notify(ch) }

// Relayed is the outcome of a relayed request as the relay decoded it.
type Relayed struct {
	Kind    bindings.ResultKind
	Rows    int
	Digest  uint64
	HasMore bool
	Err     *bindings.Error // nil on success
}

// ObserveRelayed reports a relayed request to the Tap. req carries what the
// client sent (the prepared text for EXECUTE); batch children are reported
// one by one with batchIndex and batchSize.
func (s *Session) ObserveRelayed(start time.Time, req *bindings.Request, prepared bool, out Relayed, batchIndex, batchSize int, batchType uint8) {
	o := s.observation(start, req, prepared, batchIndex, batchSize, batchType)
	if out.Err != nil {
		o.Err = true
		o.ErrCode = out.Err.Code
	} else {
		o.ResultKind, o.Rows, o.Digest, o.HasMore = out.Kind, out.Rows, out.Digest, out.HasMore
	}
	s.c.tap.Observe(o)
	*o = bindings.Observation{} // taps keep no reference (Tap)
	observationPool.Put(o)
}

// stamps tells whether a write of keyspace ks that arrives without a
// client timestamp gets the coordinator's (Config.Stamp: a mirrored
// keyspace's plain writes), on the executed path and the relay alike.
func (c *Coordinator) stamps(ks string, stmt cql.Statement) bool {
	return c.stamp != nil && c.stamp(ks, stmt)
}

// StampsQuery tells whether the statement query, run in session keyspace
// ks, gets the coordinator's timestamp when it arrives without a client
// timestamp (Config.Stamp: a mirrored keyspace's plain writes), as on the
// executed path; for the relay, which stamps the frame.
func (c *Coordinator) StampsQuery(query, ks string) bool {
	if c.stamp == nil {
		return false
	}
	parsed, err := c.parse(query)
	return err == nil && c.stamps(keyspaceOrSession(parsed.Stmt, ks), parsed.Stmt)
}

// Stamping tells whether any write may get the coordinator's timestamp
// (Config.Stamp is set), so that the relay skips looking otherwise.
func (c *Coordinator) Stamping() bool { return c.stamp != nil }

// Now is the coordinator's clock.
func (c *Coordinator) Now() time.Time { return c.now() }

// keyspaceOrSession is the keyspace stmt names, or sessionKS when it
// names none.
func keyspaceOrSession(stmt cql.Statement, sessionKS string) string {
	ks, err := statementKeyspace(stmt, sessionKS)
	if err != nil {
		return sessionKS
	}
	return ks
}

// needsSessionKeyspace tells whether stmt (or a child of a BATCH) names a
// table without a keyspace, so that it runs in the session's keyspace.
func needsSessionKeyspace(stmt cql.Statement) bool {
	if b, ok := stmt.(*cql.Batch); ok {
		for _, st := range b.Statements {
			if needsSessionKeyspace(st) {
				return true
			}
		}
		return false
	}
	_, err := statementKeyspace(stmt, "")
	return err != nil
}

// TapWantsValues tells whether the Tap uses requests' bound values, so
// that the relay decodes them only then (bindings.ValuesWanter).
func (c *Coordinator) TapWantsValues() bool { return bindings.WantsValues(c.tap) }

// TapWantsRows tells whether the Tap uses result rows (row counts and
// digests), so that the relay decodes Cassandra's rows only then. A Tap
// says so as a bindings.RowsWanter; without it, it is assumed to.
func (c *Coordinator) TapWantsRows() bool { return bindings.WantsRows(c.tap) }
