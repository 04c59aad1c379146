package metrics

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func TestBudgetExceeded(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := New(reg, "test")
	if err != nil {
		t.Fatal(err)
	}
	known := &KeyspaceSet{}
	known.Set([]string{"ks"})
	count, err := m.BudgetExceeded(known)
	if err != nil {
		t.Fatal(err)
	}
	count("cql", "ks")
	count("cql", "ks")
	count("graphql", "nope")
	count("cql", "")
	for _, tc := range []struct {
		endpoint, keyspace string
		want               float64
	}{
		{"cql", "ks", 2}, {"graphql", KeyspaceOther, 1}, {"cql", KeyspaceNone, 1}, {"graphql", "ks", 0},
	} {
		if got, _ := value(t, reg, "dohyo_budget_exceeded_total", map[string]string{"endpoint": tc.endpoint, "keyspace": tc.keyspace}); got != tc.want {
			t.Errorf("%s/%s: got %v, want %v", tc.endpoint, tc.keyspace, got, tc.want)
		}
	}
}
