package cqlserver

import (
	"context"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/proxy"
	"github.com/dohyo/dohyo/telemetry"
)

// serverTelemetry is the server's tracing and request-budget state,
// read-only after New.
type serverTelemetry struct {
	tracer   *telemetry.Tracer
	budgets  proxy.Budgets
	onBudget func(keyspace string)
	// exceeded counts a budget a session found exhausted.
	exceeded func(keyspace string)
	// slow is set when requests need more than the plain dispatch:
	// OpenTelemetry on, or per-keyspace budgets.
	slow bool
}

// initTelemetry sets up tracing, budgets and the system_traces tables.
func (s *Server) initTelemetry() {
	tr := s.cfg.Tracer
	if tr == nil {
		// CQL request tracing (the TRACING flag) works without
		// OpenTelemetry: this tracer only records trace sessions.
		tr = telemetry.New(telemetry.Options{Clock: s.cfg.Clock})
	}
	s.tel = &serverTelemetry{
		tracer:   tr,
		budgets:  proxy.Budgets{Default: s.cfg.RequestTimeout, Keyspaces: s.cfg.KeyspaceTimeouts},
		onBudget: s.cfg.OnBudgetExceeded,
	}
	s.tel.exceeded = func(keyspace string) {
		s.timedOut.Add(1)
		s.budgetExceeded(keyspace)
	}
	s.tel.slow = tr.Exporting() || s.tel.budgets.PerKeyspace()
}

// budgetExceeded counts a request answered with a timeout.
func (s *Server) budgetExceeded(keyspace string) {
	if s.tel.onBudget != nil {
		s.tel.onBudget(keyspace)
	}
}

// clientBudget is the budget the client set in the custom payload (0 when
// none).
func clientBudget(req *request) (time.Duration, error) {
	v, ok := req.payload[proxy.BudgetPayloadKey]
	if !ok {
		return 0, nil
	}
	return proxy.ParseClientBudget(string(v))
}

// withBudget puts the request's budgets in ctx for the session, when it
// has per-keyspace budgets to apply; without them the dispatch deadline
// (timeoutFor) is the whole budget.
func (c *conn) withBudget(ctx context.Context, req *request, client time.Duration, start time.Time) context.Context {
	if !budgeted(req) || !c.srv.tel.budgets.PerKeyspace() {
		return ctx
	}
	return proxy.WithBudget(ctx, &proxy.Budget{Budgets: &c.srv.tel.budgets, Client: client, Start: start,
		OnExceeded: c.srv.tel.exceeded})
}

// failFrame encodes err for the request and marks the traced request
// failed.
func (c *conn) failFrame(ctx context.Context, req *request, err error) []byte {
	if rt := telemetry.FromContext(ctx); rt != nil {
		e := bindings.AsError(err)
		rt.Fail(e.Code.String(), e.Message)
	}
	return c.errorFrame(req.stream, err)
}
