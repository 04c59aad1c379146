package cassandra_test

import (
	"fmt"
	"testing"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/bindings/embedded"
)

func TestZZScratch(t *testing.T) {
	b := openBackend(t, testConfig(t))
	ks := testKeyspace(t, b, 1)
	e, _ := embedded.Open(t.Context(), embedded.Config{})
	defer e.Close()
	exec(t, e, "", "CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	for _, q := range []string{
		"CREATE TABLE t (k int, c int, d double, f float, PRIMARY KEY (k, c))",
		"CREATE TABLE a (k int, c int, s int static, PRIMARY KEY (k, c))",
		"CREATE TABLE d (k int, c int, s int static, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC)",
		"INSERT INTO a (k, c) VALUES (1, 1)", "INSERT INTO a (k, s) VALUES (2, 2)", "INSERT INTO a (k, c) VALUES (3, 3)",
		"INSERT INTO d (k, c) VALUES (1, 1)", "INSERT INTO d (k, s) VALUES (2, 2)", "INSERT INTO d (k, c) VALUES (3, 3)",
		"INSERT INTO t (k, c, d, f) VALUES (1, 1, NaN, NaN)",
		"INSERT INTO t (k, c, d, f) VALUES (1, 2, -NaN, -NaN)",
		"INSERT INTO t (k, c) VALUES (2, 1)",
	} {
		exec(t, b, ks, q)
		exec(t, e, ks, q)
	}
	for _, q := range []struct {
		q    string
		page int32
	}{
		{"SELECT d, f FROM t WHERE k = 1", 0},
		{"SELECT k, c FROM a WHERE k IN (1, 2, 3) ORDER BY c ASC", 0},
		{"SELECT k, c FROM a WHERE k IN (1, 2, 3) ORDER BY c DESC", 0},
		{"SELECT k, c FROM d WHERE k IN (1, 2, 3) ORDER BY c ASC", 0},
		{"SELECT k, c FROM d WHERE k IN (1, 2, 3) ORDER BY c DESC", 0},
		{"SELECT * FROM t WHERE k IN (1) ORDER BY c DESC", 5},
		{"SELECT * FROM t WHERE k IN (1, 1) ORDER BY c DESC", 5},
		{"SELECT * FROM t WHERE k IN (1, 2) ORDER BY c DESC", 5},
		{"SELECT * FROM t WHERE k IN (1, 2) ORDER BY c DESC LIMIT 2", 5},
		{"SELECT * FROM t WHERE k IN (1, 2) AND c > 5 AND c < 2 ORDER BY c DESC", 5},
		{"SELECT * FROM t WHERE k IN (1, 2) AND c > 5 AND c < 6 ORDER BY c DESC", 5},
		{"SELECT * FROM t WHERE k IN (1, 2) AND c IN () ORDER BY c DESC", 5},
		{"SELECT * FROM t WHERE k IN (1, 2) AND c IN (1) ORDER BY c DESC", 5},
		{"SELECT * FROM t WHERE k IN (1, 2) AND c = 1 ORDER BY c DESC", 5},
		{"SELECT COUNT(*) FROM t WHERE k IN (1, 2) ORDER BY c DESC", 5},
	} {
		for _, be := range []bindings.Backend{b, e} {
			res, err := be.Execute(t.Context(), &bindings.Request{Keyspace: ks, Query: q.q, Consistency: bindings.One, PageSize: q.page})
			if err != nil {
				fmt.Printf("%-70s page %d: %v\n", q.q, q.page, err)
				continue
			}
			fmt.Printf("%-70s page %d: %d rows %x ps=%v\n", q.q, q.page, len(res.Rows), res.Rows, res.PagingState != nil)
		}
	}
}
