package metrics

import "github.com/prometheus/client_golang/prometheus"

// BudgetExceeded registers dohyo_budget_exceeded_total and returns the
// function front ends call for each request (CQL) or statement (GraphQL)
// answered with a ReadTimeout/WriteTimeout because its budget ran out.
// Keyspaces outside known count as "other".
func (m *Metrics) BudgetExceeded(known *KeyspaceSet) (func(endpoint, keyspace string), error) {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "dohyo_budget_exceeded_total",
		Help: "Requests answered with a ReadTimeout/WriteTimeout because their budget (request-timeout, request-timeout-keyspace, or the client's dohyo-budget-ms / X-Dohyo-Budget-Ms) ran out, by front end and keyspace.",
	}, []string{"endpoint", "keyspace"})
	if err := m.reg.Register(c); err != nil {
		return nil, err
	}
	return func(endpoint, keyspace string) {
		c.WithLabelValues(endpoint, keyspaceLabel(known, keyspace)).Inc()
	}, nil
}
