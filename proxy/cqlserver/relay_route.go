package cqlserver

import (
	"context"
	"errors"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/cassandra/relay"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/cql/wire"
	"github.com/dohyo/dohyo/proxy"
	"github.com/dohyo/dohyo/proxy/systemks"
	"github.com/dohyo/dohyo/telemetry"
)

// Client side of the relay: which requests go to Cassandra as raw frames,
// and how their answers come back. A request is relayed when the
// coordinator routes its keyspace to a backend that has a Relay; USE,
// DESCRIBE and the virtual system tables stay with dohyo. Statements
// dohyo's parser does not know (Cassandra-only syntax) are relayed when the
// session's keyspace (or, without one, the default backend) is relayed, so
// Cassandra answers them itself.

// relayPlan is the routing decision for one relayed request.
type relayPlan struct {
	rl *relay.Relay
	// group is the keyspace the backend connection must be using: the
	// session's keyspace for unqualified statements, "" otherwise.
	group string
	// keyspace is the effective session keyspace (for the Tap).
	keyspace string
	// prepared is the statement an EXECUTE runs.
	prepared *relay.Prepared
}

// planRelay returns where req is relayed (a plan without a Relay when
// dohyo executes it), or an error for a BATCH spanning a relayed and a
// local backend. The plan is a value: the fast path keeps it in its
// asyncRelay, so that routing allocates nothing.
func (c *conn) planRelay(req *request) (relayPlan, error) {
	if len(c.srv.relays) == 0 {
		return relayPlan{}, nil
	}
	coord := c.srv.coord
	sessKS, explicit := c.session.Keyspace(), ""
	switch req.op {
	case wire.OpQuery:
		explicit = req.params.keyspace
	case wire.OpPrepare, wire.OpBatch:
		explicit = req.keyspace
	}
	if explicit != "" {
		sessKS = explicit
	}
	plan := func(rl *relay.Relay, needsKS bool) relayPlan {
		p := relayPlan{rl: rl, keyspace: sessKS}
		if needsKS && explicit == "" { // v5 frames may carry their keyspace
			p.group = sessKS
		}
		return p
	}
	switch req.op {
	case wire.OpExecute:
		for _, rl := range c.srv.relays {
			if rp, ok := rl.Prepared(req.id); ok {
				p := plan(rl, false)
				p.keyspace, p.prepared = rp.Keyspace, rp
				return p, nil
			}
		}
		return relayPlan{}, nil
	case wire.OpBatch:
		return c.planBatch(req, sessKS, plan)
	}
	if req.op == wire.OpQuery && systemks.IsDescribe(req.query) {
		return relayPlan{}, nil
	}
	parsed, err := coord.Parse(req.query)
	if err == nil {
		if _, unsupported := parsed.Stmt.(*cql.Unsupported); !unsupported {
			if _, use := parsed.Stmt.(*cql.Use); use {
				return relayPlan{}, nil
			}
			if cql.IsAuthStatement(parsed.Stmt) && coord.ServesAuthStatements() {
				return relayPlan{}, nil // dohyo's roles (proxy/authz.go)
			}
			backend, err := coord.StatementBackend(parsed.Stmt, sessKS)
			if err != nil && cql.IsAuthStatement(parsed.Stmt) {
				return c.planFallback(sessKS, plan), nil // Cassandra's roles
			}
			if err != nil { // dohyo answers it exactly as Cassandra would
				return relayPlan{}, nil
			}
			if rl := c.srv.relays[backend]; rl != nil {
				return plan(rl, proxy.NeedsSessionKeyspace(parsed.Stmt)), nil
			}
			return relayPlan{}, nil
		}
	}
	return c.planFallback(sessKS, plan), nil
}

// planFallback relays a statement dohyo does not route by its text when
// the session's keyspace (or, without one, the default backend) is relayed.
func (c *conn) planFallback(sessKS string, plan func(*relay.Relay, bool) relayPlan) relayPlan {
	if rl := c.srv.relays[c.fallbackBackend(sessKS)]; rl != nil {
		return plan(rl, sessKS != "")
	}
	return relayPlan{}
}

// fallbackBackend serves statements dohyo cannot route by their text.
func (c *conn) fallbackBackend(sessKS string) string {
	if sessKS == "" {
		return c.srv.coord.DefaultBackend()
	}
	return c.srv.coord.Route(sessKS).Backend
}

// planBatch routes a BATCH: every child must be served by one backend.
func (c *conn) planBatch(req *request, sessKS string, plan func(*relay.Relay, bool) relayPlan) (relayPlan, error) {
	coord := c.srv.coord
	var backends, keyspaces []string // per child
	var relayed *relay.Relay
	needsKS := false
	for _, e := range req.batch.Entries {
		if e.PreparedID != nil {
			found := false
			for name, rl := range c.srv.relays {
				if rp, ok := rl.Prepared(e.PreparedID); ok {
					backends, relayed, found = append(backends, name), rl, true
					keyspaces = append(keyspaces, rp.Keyspace)
					break
				}
			}
			if !found {
				ps, err := coord.Lookup(e.PreparedID)
				if err != nil {
					return relayPlan{}, nil // dohyo answers Unprepared
				}
				b, err := coord.StatementBackend(ps.Parsed.Stmt, ps.Keyspace)
				if err != nil {
					return relayPlan{}, nil
				}
				backends = append(backends, b)
				keyspaces = append(keyspaces, proxy.StatementKeyspace(ps.Parsed.Stmt, ps.Keyspace))
			}
			continue
		}
		parsed, err := coord.Parse(e.Query)
		var b string
		if err == nil {
			if _, unsupported := parsed.Stmt.(*cql.Unsupported); unsupported {
				err = errors.New("unsupported")
			}
		}
		ks := sessKS
		if err != nil {
			b = c.fallbackBackend(sessKS)
			needsKS = needsKS || sessKS != ""
		} else {
			if b, err = coord.StatementBackend(parsed.Stmt, sessKS); err != nil {
				return relayPlan{}, nil
			}
			needsKS = needsKS || proxy.NeedsSessionKeyspace(parsed.Stmt)
			ks = proxy.StatementKeyspace(parsed.Stmt, sessKS)
		}
		backends, keyspaces = append(backends, b), append(keyspaces, ks)
		if rl := c.srv.relays[b]; rl != nil {
			relayed = rl
		}
	}
	if relayed == nil {
		return relayPlan{}, nil
	}
	for i := 1; i < len(backends); i++ {
		if backends[i] != backends[0] {
			return relayPlan{}, proxy.SpanningBatch(keyspaces[0], backends[0], keyspaces[i], backends[i])
		}
	}
	return plan(relayed, needsKS), nil
}

// relay runs a relayed request with the connection's in-flight limit,
// request timeout, budgets and tracing, like a local one.
func (c *conn) relay(plan relayPlan, req *request) {
	c.stampRelayed(&plan, req)
	if c.plain(req) && c.relayAsync(&plan, req) {
		return
	}
	p := new(relayPlan) // kept by the general path's closures
	*p = plan
	run := func(ctx context.Context, req *request) []byte { return c.relayRun(ctx, p, req) }
	c.dispatch(req.stream, c.srv.timeoutFor(req),
		func(ctx context.Context) []byte {
			if c.plain(req) {
				return run(ctx, req)
			}
			return c.traced(ctx, req, run)
		},
		func() error { return c.timeoutError(req) })
}

func (c *conn) relayRun(ctx context.Context, p *relayPlan, req *request) []byte {
	start := c.srv.coord.Now()
	creds := c.relayCreds(p.rl)
	ks := p.keyspace
	bctx, cancel, exceeded := ctx, func() {}, func(error) bool { return false }
	if req.op != wire.OpPrepare && !(req.op == wire.OpQuery && isSchemaStatement(req.query)) {
		bctx, cancel, exceeded = proxy.Bound(ctx, ks)
	}
	defer cancel()
	sctx, sp := telemetry.StartClient(bctx, "relay round trip")
	if sp.Exporting() {
		sp.SetStatement(telemetry.Statement{System: "cassandra", Namespace: ks, Operation: wire.OpName(req.op)})
	}
	resp, err := p.rl.Do(sctx, relay.Request{Version: c.version, Flags: req.flags, Op: req.op, Body: req.body, Creds: creds, Group: p.group})
	if err != nil && exceeded(err) {
		err = c.timeoutError(req)
	}
	if err != nil {
		sp.Fail(bindings.AsError(err).Code.String(), err)
	} else {
		sp.Event("Relayed to Cassandra node " + resp.Node)
		if resp.Header.Flags&wire.FlagTracing != 0 && len(resp.Body) >= 16 {
			c.srv.relayTraces.link(ctx, p.rl, resp.Body[:16])
		}
	}
	sp.End()
	return c.relayAnswer(ctx, start, p, creds, req, resp, err)
}

// relayAnswer turns Cassandra's response (or the error that stands for
// it) into the client's frame, with what dohyo keeps from it: prepared
// statements, schema changes, and the Tap's observation.
func (c *conn) relayAnswer(ctx context.Context, start time.Time, p *relayPlan, creds *relay.Credentials, req *request, resp relay.Response, err error) []byte {
	var frame []byte
	var out proxy.Relayed
	if err != nil {
		frame = c.failFrame(ctx, req, err)
		out.Err = bindings.AsError(err)
	} else {
		frame = wire.StartFrame(getBuf(), c.version, resp.Header.Flags&^wire.FlagCompressed, req.stream, resp.Header.Op)
		frame = append(frame, resp.Body...)
		out = summarize(resp, c.srv.coord.TapWantsRows())
		if req.op == wire.OpPrepare {
			// Re-prepared on a connection using the keyspace it was
			// prepared under (a v5 PREPARE may carry its own), so that
			// Cassandra computes the same id.
			group := p.group
			if group == "" {
				group = req.keyspace
			}
			p.rl.Remember(relay.Request{Version: c.version, Creds: creds, Group: group}, req.query, p.keyspace, resp)
		}
		p.rl.Answered(resp) // the catalog is fresh before the client goes on
	}
	c.observeRelayed(start, p, req, out)
	return frame
}

// relayCreds are the credentials relayed requests of this client use: its
// own when Cassandra requires authentication, none otherwise (one pool for
// every client).
func (c *conn) relayCreds(rl *relay.Relay) *relay.Credentials {
	if !rl.RequiresAuth() {
		return nil
	}
	return c.creds
}

// observeRelayed hands a relayed request to the Tap (PREPARE is not a
// request the Tap records, as for local requests).
func (c *conn) observeRelayed(start time.Time, p *relayPlan, req *request, out proxy.Relayed) {
	switch req.op {
	case wire.OpQuery, wire.OpExecute:
		query := req.query
		if req.op == wire.OpExecute {
			query = p.prepared.Query
		}
		r := bindingsRequest(query, &req.params)
		r.Keyspace = p.keyspace
		if req.params.lazy != nil && c.srv.coord.TapWantsValues() {
			r.Values, r.Names = req.params.lazyValues(c.version)
		}
		c.session.ObserveRelayed(start, r, req.op == wire.OpExecute, out, 0, 0, 0)
	case wire.OpBatch:
		b := req.batch
		for i, e := range b.Entries {
			r := &bindings.Request{Query: e.Query, Values: e.Values, Names: e.Names, Keyspace: p.keyspace,
				Consistency: b.Consistency, SerialConsistency: b.SerialConsistency,
				Timestamp: b.Timestamp, HasTimestamp: b.HasTimestamp}
			if e.PreparedID != nil {
				if rp, ok := p.rl.Prepared(e.PreparedID); ok {
					r.Query, r.Keyspace = rp.Query, rp.Keyspace
				}
			}
			c.session.ObserveRelayed(start, r, e.PreparedID != nil, out, i, len(b.Entries), uint8(b.Type))
		}
	}
}
