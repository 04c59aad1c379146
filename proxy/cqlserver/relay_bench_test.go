package cqlserver

import (
	"net"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// BenchmarkRelay compares point reads through the relay with the same
// reads sent straight to the relayed node (an in-process dohyo over an
// in-memory store standing in for Cassandra), in one run:
//
//	go test -run '^$' -bench Relay -benchtime 20000x ./proxy/cqlserver/
//
// The relay's cost is the difference per operation.
func BenchmarkRelay(b *testing.B) {
	r := newRelayRig(b, rigOptions{})
	setup := r.sessionTB(b, r.addr)
	for _, q := range []string{"CREATE KEYSPACE rk" + rf1, "CREATE TABLE rk.t (k int PRIMARY KEY, v text)"} {
		if err := setup.Query(q).Exec(); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < 1000; i++ {
		if err := setup.Query("INSERT INTO rk.t (k, v) VALUES (?, ?)", i, "value-"+strconv.Itoa(i)).Exec(); err != nil {
			b.Fatal(err)
		}
	}
	for _, tc := range []struct{ name, addr string }{{"direct", r.nodeAddr}, {"relay", r.addr}} {
		b.Run(tc.name, func(b *testing.B) {
			s := r.sessionTB(b, tc.addr)
			var n atomic.Int64
			b.SetParallelism(4)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				var v string
				for pb.Next() {
					k := int(n.Add(1) % 1000)
					if err := s.Query("SELECT v FROM rk.t WHERE k = ?", k).Scan(&v); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// sessionTB connects gocql to addr.
func (r *relayRig) sessionTB(tb testing.TB, addr string, mods ...func(*gocql.ClusterConfig)) *gocql.Session {
	tb.Helper()
	host, portText, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(portText)
	cluster := gocql.NewCluster(host)
	cluster.Port = port
	cluster.Timeout = 5 * time.Second
	cluster.Consistency = gocql.One
	cluster.DisableInitialHostLookup = true
	for _, m := range mods {
		m(cluster)
	}
	sess, err := cluster.CreateSession()
	if err != nil {
		tb.Fatalf("session: %v", err)
	}
	tb.Cleanup(sess.Close)
	return sess
}
