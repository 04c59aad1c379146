package graphql

import (
	"net/http"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"

	"github.com/dohyo/dohyo/httpsec"
	"github.com/dohyo/dohyo/proxy"
	"github.com/dohyo/dohyo/telemetry"
)

// begin sets up a request's budget (DML only: keyspace != "") and its
// root span, whose trace context comes from the traceparent/tracestate
// headers. ok is false when the request was answered already (a
// malformed budget header). Untraced requests without budgets get r back
// unchanged.
func (s *Server) begin(w http.ResponseWriter, r *http.Request, route, keyspace string) (_ *http.Request, _ *telemetry.Request, ok bool) {
	start := time.Now()
	ctx := r.Context()
	// The guard's request deadline bounds every statement of a DML
	// request: folded into the budget's ctx, which statements derive
	// anyway under dohyo serve's default request-timeout (serveDDL
	// bounds a schema request with it as a whole).
	deadline, hasDeadline := httpsec.RequestDeadline(ctx)
	if keyspace != "" {
		var client time.Duration
		if v := r.Header.Get(proxy.BudgetHeader); v != "" {
			d, err := proxy.ParseClientBudget(v)
			if err != nil {
				writeError(w, http.StatusBadRequest, "Invalid "+proxy.BudgetHeader+" header: "+err.Error())
				return r, nil, false
			}
			client = d
		}
		b := &s.cfg.Budgets
		if client > 0 || b.Default > 0 || b.PerKeyspace() || hasDeadline {
			ctx = proxy.WithBudget(ctx, &proxy.Budget{Budgets: b, Client: client, Start: start,
				Deadline: deadline, OnExceeded: s.cfg.OnBudgetExceeded})
		}
	}
	var rt *telemetry.Request
	if s.cfg.Tracer.Exporting() {
		ctx, rt = s.cfg.Tracer.StartRequest(ctx, telemetry.RequestStart{
			Name:    r.Method + " " + route,
			Carrier: propagation.HeaderCarrier(r.Header),
		})
		if rt.Exporting() {
			rt.SetAttributes(attribute.String("http.request.method", r.Method),
				attribute.String("http.route", route), attribute.String("url.path", r.URL.Path))
			if keyspace != "" {
				rt.SetAttributes(attribute.String("db.namespace", keyspace))
			}
		}
	}
	if ctx != r.Context() {
		r = r.WithContext(ctx)
	}
	return r, rt, true
}
