package proxy

import (
	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// Routing of request frames: which last hop serves a request, dohyo's own
// execution or a backend's raw-frame relay (bindings.FrameRelayer, DESIGN
// D2). The CQL server asks before it decodes more of the frame; the
// decision uses the coordinator's parser cache and routes, as execution
// does. USE, DESCRIBE and the system keyspaces stay with dohyo, and so do
// role statements when dohyo keeps the roles. Statements dohyo's parser
// does not know (Cassandra-only syntax) are relayed when the session's
// keyspace (or, without one, the default backend) is relayed, so that the
// relayed server answers them itself.

// FrameKind is the kind of a request frame.
type FrameKind uint8

// Request frames that are routed.
const (
	FrameQuery FrameKind = iota + 1
	FramePrepare
	FrameExecute
	FrameBatch
)

// FrameRequest is what routing reads of a decoded request frame.
type FrameRequest struct {
	Kind FrameKind
	// Query is a QUERY's or PREPARE's text.
	Query string
	// Keyspace is the keyspace the frame carries itself (protocol v5
	// QUERY, PREPARE and BATCH), "" for none.
	Keyspace string
	// PreparedID is an EXECUTE's statement id.
	PreparedID []byte
	// Batch is a BATCH's children.
	Batch *BatchRequest
	// HasTimestamp says the frame carries a client timestamp (a QUERY's
	// or EXECUTE's default timestamp; a BATCH's is Batch.HasTimestamp).
	HasTimestamp bool
}

// FrameRoute is the last hop of a request: dohyo executes it when Relayer
// is nil. It is a value, so that the CQL server keeps it in its
// per-request state without allocating.
type FrameRoute struct {
	Relayer bindings.FrameRelayer
	// Group is the keyspace the backend connection must be using: the
	// session's keyspace for unqualified statements, "" otherwise.
	Group string
	// Keyspace is the effective session keyspace (for the Tap).
	Keyspace string
	// Prepared is the statement an EXECUTE runs.
	Prepared bindings.RelayPrepared
	// Idempotent: the relayer may send the request again to another node
	// when its connection is lost (StatementIdempotent).
	Idempotent bool
}

// RouteFrame returns the last hop of r among relays (backend name to its
// relayer), or an error for a BATCH spanning a relayed and another
// backend (SpanningBatch).
func (s *Session) RouteFrame(relays map[string]bindings.FrameRelayer, r *FrameRequest) (FrameRoute, error) {
	if len(relays) == 0 {
		return FrameRoute{}, nil
	}
	fr := frameRouter{c: s.c, relays: relays, sessKS: s.Keyspace(), explicit: r.Keyspace}
	if fr.explicit != "" {
		fr.sessKS = fr.explicit
	}
	switch r.Kind {
	case FrameExecute:
		for _, rl := range relays {
			if rp, ok := PreparedBy(rl, r.PreparedID); ok {
				rt := fr.route(rl, false)
				rt.Keyspace, rt.Prepared, rt.Group = rp.Keyspace, rp, rp.Group
				if parsed, err := s.c.parse(rp.Query); err == nil {
					rt.Idempotent = StatementIdempotent(parsed.Stmt, r.HasTimestamp)
				}
				return rt, nil
			}
		}
		return FrameRoute{}, nil
	case FrameBatch:
		return fr.batch(r.Batch)
	}
	parsed, err := s.c.parse(r.Query)
	if err != nil {
		return fr.fallback(), nil
	}
	switch parsed.Stmt.(type) {
	case *cql.Unsupported:
		return fr.fallback(), nil
	case *cql.Use, *cql.Describe:
		return FrameRoute{}, nil // dohyo's: the session, and its catalog
	}
	auth := cql.IsAuthStatement(parsed.Stmt)
	if auth && s.c.ServesAuthStatements() {
		return FrameRoute{}, nil // dohyo's roles (authz.go)
	}
	route, err := s.c.statementRoute(parsed.Stmt, fr.sessKS)
	switch {
	case err != nil && auth:
		return fr.fallback(), nil // the relayed server's roles
	case err != nil: // dohyo answers it exactly as Cassandra would
		return FrameRoute{}, nil
	}
	if rl := relays[route.Name]; rl != nil {
		rt := fr.route(rl, needsSessionKeyspace(parsed.Stmt))
		rt.Idempotent = StatementIdempotent(parsed.Stmt, r.HasTimestamp)
		return rt, nil
	}
	return FrameRoute{}, nil
}

// PreparedBy returns the statement prepared with id through rl, if rl
// remembers them (bindings.PreparedFinder).
func PreparedBy(rl bindings.FrameRelayer, id []byte) (bindings.RelayPrepared, bool) {
	if f, ok := rl.(bindings.PreparedFinder); ok {
		return f.PreparedStatement(id)
	}
	return bindings.RelayPrepared{}, false
}

// frameRouter is one routing decision's state.
type frameRouter struct {
	c        *Coordinator
	relays   map[string]bindings.FrameRelayer
	sessKS   string // the effective session keyspace
	explicit string // the frame's own keyspace
}

// route relays to rl; needsKS: the statement names a table without a
// keyspace (a frame's own keyspace stands in for the connection's USE).
func (fr *frameRouter) route(rl bindings.FrameRelayer, needsKS bool) FrameRoute {
	rt := FrameRoute{Relayer: rl, Keyspace: fr.sessKS}
	if needsKS && fr.explicit == "" {
		rt.Group = fr.sessKS
	}
	return rt
}

// fallback relays a statement dohyo does not route by its text when the
// session's keyspace (or, without one, the default backend) is relayed.
func (fr *frameRouter) fallback() FrameRoute {
	if rl := fr.relays[fr.fallbackBackend()]; rl != nil {
		return fr.route(rl, fr.sessKS != "")
	}
	return FrameRoute{}
}

// fallbackBackend serves statements dohyo cannot route by their text.
func (fr *frameRouter) fallbackBackend() string {
	if fr.sessKS == "" {
		return fr.c.def
	}
	return fr.c.Route(fr.sessKS).Name
}

// batch routes a BATCH: every child must be served by one backend, as on
// the executed path (oneBackend).
func (fr *frameRouter) batch(b *BatchRequest) (FrameRoute, error) {
	n := len(b.Entries)
	backends, keyspaces := make([]string, 0, n), make([]string, 0, n)
	var relayed bindings.FrameRelayer
	needsKS := false
	for _, e := range b.Entries {
		var bk, ks string
		var ok bool
		if e.PreparedID != nil {
			var rl bindings.FrameRelayer
			if bk, ks, rl, ok = fr.preparedChild(e.PreparedID); !ok {
				return FrameRoute{}, nil // dohyo answers it (Unprepared, ...)
			}
			if rl != nil {
				relayed = rl
			}
		} else {
			var childNeedsKS bool
			if bk, ks, childNeedsKS, ok = fr.queryChild(e.Query); !ok {
				return FrameRoute{}, nil
			}
			needsKS = needsKS || childNeedsKS
			if rl := fr.relays[bk]; rl != nil {
				relayed = rl
			}
		}
		backends, keyspaces = append(backends, bk), append(keyspaces, ks)
	}
	if relayed == nil {
		return FrameRoute{}, nil
	}
	if _, err := oneBackend(n, func(i int) (string, string) { return keyspaces[i], backends[i] }); err != nil {
		return FrameRoute{}, err
	}
	rt := fr.route(relayed, needsKS)
	rt.Idempotent = fr.batchIdempotent(relayed, b)
	return rt, nil
}

// batchIdempotent tells whether a relayed BATCH may be sent twice: not a
// counter batch, and every statement idempotent (StatementIdempotent).
func (fr *frameRouter) batchIdempotent(rl bindings.FrameRelayer, b *BatchRequest) bool {
	if b.Type == cql.BatchCounter {
		return false
	}
	for _, e := range b.Entries {
		text := e.Query
		if e.PreparedID != nil {
			rp, ok := PreparedBy(rl, e.PreparedID)
			if !ok {
				return false
			}
			text = rp.Query
		}
		parsed, err := fr.c.parse(text)
		if err != nil || !StatementIdempotent(parsed.Stmt, b.HasTimestamp) {
			return false
		}
	}
	return true
}

// preparedChild routes a BATCH child by its prepared id: a statement
// prepared through a relayer, or one of dohyo's (rl nil); ok=false when
// neither knows it, or dohyo's cannot be routed.
func (fr *frameRouter) preparedChild(id []byte) (backend, ks string, rl bindings.FrameRelayer, ok bool) {
	for name, rl := range fr.relays {
		if rp, found := PreparedBy(rl, id); found {
			return name, rp.Keyspace, rl, true
		}
	}
	ps, err := fr.c.Lookup(id)
	if err != nil {
		return "", "", nil, false
	}
	route, err := fr.c.statementRoute(ps.Parsed.Stmt, ps.Keyspace)
	if err != nil {
		return "", "", nil, false
	}
	return route.Name, keyspaceOrSession(ps.Parsed.Stmt, ps.Keyspace), nil, true
}

// queryChild routes a BATCH child by its text; one dohyo cannot parse
// goes where fallback would send it. ok=false when dohyo answers the
// BATCH itself.
func (fr *frameRouter) queryChild(query string) (backend, ks string, needsKS, ok bool) {
	parsed, err := fr.c.parse(query)
	if err == nil {
		if _, unsupported := parsed.Stmt.(*cql.Unsupported); !unsupported {
			route, err := fr.c.statementRoute(parsed.Stmt, fr.sessKS)
			if err != nil {
				return "", "", false, false
			}
			return route.Name, keyspaceOrSession(parsed.Stmt, fr.sessKS), needsSessionKeyspace(parsed.Stmt), true
		}
	}
	return fr.fallbackBackend(), fr.sessKS, fr.sessKS != "", true
}
