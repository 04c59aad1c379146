package cqlserver

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// checkGocqlWarnings runs statements Cassandra 5.0.9 answers with client
// warnings through gocql on addr and compares Iter.Warnings: protocol v4
// carries them (the WARNING flag, as v5 does), v3 has no such flag.
func checkGocqlWarnings(t *testing.T, addr, ks string) {
	t.Helper()
	for _, proto := range []int{3, 4} { // gocql 1.7 speaks v3 and v4
		t.Run(fmt.Sprintf("v%d", proto), func(t *testing.T) {
			sess := gocqlSession(t, addr, proto)
			pks := fmt.Sprintf("%s_%d", ks, proto)
			setup := []string{
				"DROP KEYSPACE IF EXISTS " + pks,
				"CREATE KEYSPACE " + pks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
				"CREATE TABLE " + pks + ".t (k int, c int, v int, PRIMARY KEY (k, c))",
				"INSERT INTO " + pks + ".t (k, c, v) VALUES (1, 1, 1)",
			}
			for _, q := range setup {
				if err := sess.Query(q).Exec(); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			t.Cleanup(func() { _ = sess.Query("DROP KEYSPACE IF EXISTS " + pks).Exec() })
			want := func(w ...string) []string {
				if proto < 4 {
					return nil
				}
				return w
			}
			check := func(what string, iter *gocql.Iter, want []string) {
				t.Helper()
				got := iter.Warnings()
				if err := iter.Close(); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s: warnings %q, want %q", what, got, want)
				}
			}
			check("count without key", sess.Query("SELECT count(*) FROM "+pks+".t").Iter(),
				want("Aggregation query used without partition key"))
			check("prepared count over IN", sess.Query("SELECT count(*) FROM "+pks+".t WHERE k IN ?", []int{1, 2}).Iter(),
				want("Aggregation query used on multiple partition keys (IN restriction)"))
			check("count of a partition", sess.Query("SELECT count(*) FROM "+pks+".t WHERE k = ?", 1).Iter(), nil)

			var b strings.Builder
			b.WriteString("BEGIN UNLOGGED BATCH ")
			for k := range 11 {
				fmt.Fprintf(&b, "INSERT INTO %s.t (k, c, v) VALUES (%d, 1, 1); ", pks, k)
			}
			b.WriteString("APPLY BATCH")
			check("unlogged batch", sess.Query(b.String()).Iter(), want("Unlogged batch covering 11 partitions detected against table ["+pks+
				".t]. You should use a logged batch for atomicity, or asynchronous writes for performance."))

			// Two partitions: 2 * 29 + 112 rows of 49 bytes (25 + an int cell
			// of 24) = 5546 bytes, Cassandra's PartitionUpdate.dataSize.
			b.Reset()
			b.WriteString("BEGIN BATCH ")
			for k := range 2 {
				fmt.Fprintf(&b, "INSERT INTO %s.t (k, c, v) VALUES (%d, 2, 1); ", pks, k)
			}
			for c := range 110 {
				fmt.Fprintf(&b, "UPDATE %s.t SET v = 2 WHERE k = 0 AND c = %d; ", pks, 10+c)
			}
			b.WriteString("APPLY BATCH")
			check("large batch", sess.Query(b.String()).Iter(),
				want("Batch for ["+pks+".t] is of size 5546, exceeding specified threshold of 5120 by 426."))
		})
	}
}

// TestGocqlWarnings: the engine's warnings reach gocql through the CQL
// server, on the embedded store and on HBase (when configured).
func TestGocqlWarnings(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server and a driver")
	}
	for _, sb := range storeBackends(t) {
		t.Run(sb.name, func(t *testing.T) {
			addr := newTestServerWith(t, sb.open(t), nil, nil).listen(t)
			checkGocqlWarnings(t, addr, "warn_"+sb.name)
		})
	}
}

// TestGocqlWarningsRelay: a relayed node's warnings pass through the
// relay unchanged (the node here is dohyo over an embedded store).
func TestGocqlWarningsRelay(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers and a driver")
	}
	r := newRelayRig(t, rigOptions{})
	checkGocqlWarnings(t, r.addr, "warn_relay")
}

// TestGocqlWarningsCassandra runs the same checks against the reference
// Cassandra named by DOHYO_TEST_CASSANDRA (skipped without it), so the
// expected warnings are Cassandra's.
func TestGocqlWarningsCassandra(t *testing.T) {
	addr := os.Getenv("DOHYO_TEST_CASSANDRA")
	if addr == "" || testing.Short() {
		t.Skip("DOHYO_TEST_CASSANDRA is not set")
	}
	checkGocqlWarnings(t, addr, fmt.Sprintf("warn_%d", time.Now().UnixNano()%1e6))
}
