package proxy

import (
	"context"
	"encoding/binary"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/dohyo/dohyo/auth"
	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/embedded"
)

// BenchmarkSessionAuthorization is the coordinator's share of
// authorization: a prepared point read on the in-memory embedded store
// through Session.Execute, with enforcement off and on (a role holding
// SELECT through an inherited role).
//
//	go test -run '^$' -bench BenchmarkSessionAuthorization -benchmem ./proxy/
func BenchmarkSessionAuthorization(b *testing.B) {
	for _, enforce := range []bool{false, true} {
		name := map[bool]string{false: "off", true: "on"}[enforce]
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			be, err := embedded.Open(ctx, embedded.Config{})
			if err != nil {
				b.Fatal(err)
			}
			h, _ := bcrypt.GenerateFromPassword([]byte("pw"), bcrypt.MinCost)
			m, err := auth.New(auth.Config{Bootstrap: map[string]string{"admin": string(h)}})
			if err != nil {
				b.Fatal(err)
			}
			c, err := New(Config{Backends: map[string]bindings.Backend{"e": be}, Default: "e", Auth: m, EnforceAuth: enforce})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			admin := c.NewSession(bindings.SourceCQL)
			admin.SetRole("admin")
			for _, q := range []string{
				"CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
				"CREATE TABLE ks.t (k int PRIMARY KEY, v text)",
				"INSERT INTO ks.t (k, v) VALUES (1, 'one')",
				"CREATE ROLE readers", "CREATE ROLE app WITH LOGIN = true",
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
			key := binary.BigEndian.AppendUint32(nil, 1)
			req := &bindings.Request{Values: []bindings.Value{{Bytes: key}}, Consistency: bindings.One}
			b.ReportAllocs()
			for b.Loop() {
				res, err := s.Execute(ctx, ps.ID, req)
				if err != nil || len(res.Rows) != 1 {
					b.Fatalf("%v %v", res, err)
				}
			}
		})
	}
}
