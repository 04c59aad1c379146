package proxy

import (
	"context"
	"encoding/binary"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/dohyo/dohyo/auth"
	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/embedded"
	"github.com/dohyo/dohyo/bindings/stores"
	"github.com/dohyo/dohyo/engine"
)

// BenchmarkSessionAuthorization is the coordinator's share of
// authorization: a prepared point read on the in-memory embedded store
// through Session.Execute, with enforcement off and on (a role holding
// SELECT through an inherited role), in alternating rounds within one run
// so machine noise hits both alike. (Authentication itself is one SASL
// exchange per connection, not per request.)
//
//	go test -run '^$' -bench BenchmarkSessionAuthorization -benchmem ./proxy/
func BenchmarkSessionAuthorization(b *testing.B) {
	type side struct {
		s    *Session
		id   []byte
		took time.Duration
		n    int
	}
	ctx := context.Background()
	// One store under both coordinators: they differ only in enforcement.
	be, err := stores.Embedded(ctx, embedded.Config{}, engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	mk := func(enforce bool) *side {
		h, _ := bcrypt.GenerateFromPassword([]byte("pw"), bcrypt.MinCost)
		m, err := auth.New(auth.Config{Bootstrap: map[string]string{"admin": string(h)}})
		if err != nil {
			b.Fatal(err)
		}
		c, err := New(Config{Backends: map[string]bindings.Backend{"e": be}, Default: "e", Auth: m, EnforceAuth: enforce})
		if err != nil {
			b.Fatal(err)
		}
		admin := c.NewSession(bindings.SourceCQL)
		admin.SetRole("admin")
		for _, q := range []string{
			"CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
			"CREATE TABLE IF NOT EXISTS ks.t (k int PRIMARY KEY, v text)",
			"INSERT INTO ks.t (k, v) VALUES (1, 'one')",
			"CREATE ROLE IF NOT EXISTS readers", "CREATE ROLE IF NOT EXISTS app WITH LOGIN = true",
			"GRANT readers TO app", "GRANT SELECT ON KEYSPACE ks TO readers",
		} {
			if _, err := admin.Query(ctx, &bindings.Request{Query: q}); err != nil {
				b.Fatal(err)
			}
		}
		s := c.NewSession(bindings.SourceCQL)
		s.SetRole("app")
		ps, err := s.Prepare(ctx, "SELECT v FROM ks.t WHERE k = ?")
		if err != nil {
			b.Fatal(err)
		}
		return &side{s: s, id: ps.ID}
	}
	off, on := mk(false), mk(true)
	req := &bindings.Request{Values: []bindings.Value{{Bytes: binary.BigEndian.AppendUint32(nil, 1)}}, Consistency: bindings.One}
	run := func(sd *side, n int) {
		t0 := time.Now()
		for i := 0; i < n; i++ {
			res, err := sd.s.Execute(ctx, sd.id, req)
			if err != nil || len(res.Rows) != 1 {
				b.Fatalf("%v %v", res, err)
			}
		}
		sd.took += time.Since(t0)
		sd.n += n
	}
	run(off, 1000) // warm up
	run(on, 1000)
	off.took, off.n, on.took, on.n = 0, 0, 0, 0
	const rounds = 20
	per := max(b.N/(2*rounds), 1)
	b.ReportAllocs()
	b.ResetTimer()
	for r := 0; r < rounds; r++ {
		if r%2 == 0 {
			run(off, per)
			run(on, per)
		} else {
			run(on, per)
			run(off, per)
		}
	}
	offNs := float64(off.took.Nanoseconds()) / float64(off.n)
	onNs := float64(on.took.Nanoseconds()) / float64(on.n)
	b.ReportMetric(offNs, "enforce-off-ns/op")
	b.ReportMetric(onNs, "enforce-on-ns/op")
	b.ReportMetric(onNs/offNs, "on/off")
}

// BenchmarkAuthorizeCheck is the per-statement check alone (what
// enforcement adds to every request), for a role holding SELECT through
// an inherited keyspace grant.
//
//	go test -run '^$' -bench BenchmarkAuthorizeCheck -benchmem ./proxy/
func BenchmarkAuthorizeCheck(b *testing.B) {
	ctx := context.Background()
	be, err := stores.Embedded(ctx, embedded.Config{}, engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	h, _ := bcrypt.GenerateFromPassword([]byte("pw"), bcrypt.MinCost)
	m, err := auth.New(auth.Config{Bootstrap: map[string]string{"admin": string(h)}})
	if err != nil {
		b.Fatal(err)
	}
	c, err := New(Config{Backends: map[string]bindings.Backend{"e": be}, Default: "e", Auth: m, EnforceAuth: true})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	admin := c.NewSession(bindings.SourceCQL)
	admin.SetRole("admin")
	for _, q := range []string{
		"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE ks.t (k int PRIMARY KEY, v text)",
		"CREATE ROLE readers", "CREATE ROLE app WITH LOGIN = true",
		"GRANT readers TO app", "GRANT SELECT ON KEYSPACE ks TO readers",
	} {
		if _, err := admin.Query(ctx, &bindings.Request{Query: q}); err != nil {
			b.Fatal(err)
		}
	}
	s := c.NewSession(bindings.SourceCQL)
	s.SetRole("app")
	p, err := c.parse("SELECT v FROM ks.t WHERE k = ?")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := s.authorize(ctx, p.Stmt, "", "e"); err != nil {
			b.Fatal(err)
		}
	}
}
