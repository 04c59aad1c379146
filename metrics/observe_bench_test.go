package metrics

import (
	"testing"
	"time"
)

// BenchmarkObserveRequest is the per-request cost of the request metrics
// (a counter and a histogram for one label combination), as every
// relayed or executed request pays it.
func BenchmarkObserveRequest(b *testing.B) {
	m, err := New(NewRegistry(), "bench")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.ObserveRequest("cql", "ycsb", "select", "cassandra", StatusOK, 300*time.Microsecond)
		}
	})
}
