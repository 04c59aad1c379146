package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/dohyo/dohyo/bindings"
)

// FuzzExecute runs arbitrary statements against a small schema: every
// outcome must be a result or a CQL error, never an internal error (a
// recovered panic).
func FuzzExecute(f *testing.F) {
	seeds := []string{
		"SELECT * FROM t WHERE k = 1 AND c > 2 ORDER BY c DESC LIMIT 3",
		"SELECT k, c, writetime(v), ttl(v), token(k) FROM t WHERE k IN (1, 2) AND c IN (3, 1)",
		"SELECT DISTINCT k, s FROM t",
		"SELECT count(*), max(v), min(c), sum(c), avg(c) FROM t WHERE k = 1",
		"SELECT * FROM t WHERE (c, d) > (1, 2) AND (c) < (5) AND k = 1",
		"SELECT * FROM t WHERE v > 3 ALLOW FILTERING",
		"SELECT * FROM t WHERE token(k) > 0 AND token(k) <= 1000",
		"INSERT INTO t (k, c, d, v, l, m, st) VALUES (1, 2, 3, 4, [1], {1: 'a'}, {'x'}) USING TTL 10",
		"UPDATE t SET l = l + [2], m[3] = 'b', st = st - {'x'}, l[0] = 7 WHERE k = 1 AND c = 2 AND d = 3",
		"UPDATE t SET v = 1 WHERE k = 1 AND c = 2 AND d = 3 IF v = 4 AND l[0] = 1 AND m[1] IN ('a', 'b')",
		"DELETE l[0], m[1] FROM t WHERE k = 1 AND c = 2 AND d = 3",
		"DELETE FROM t WHERE k = 1 AND c > 1 AND c < 5",
		"DELETE FROM t WHERE k = 1 AND (c, d) >= (1, 2)",
		"INSERT INTO t (k, s) VALUES (5, 9) IF NOT EXISTS",
		"BEGIN BATCH INSERT INTO t (k, c, d) VALUES (1, 1, 1); DELETE FROM t WHERE k = 2; APPLY BATCH",
		"BEGIN UNLOGGED BATCH UPDATE t SET v = 2 WHERE k = 1 AND c = 1 AND d = 1 IF EXISTS; APPLY BATCH",
		"UPDATE n SET x = x + 1 WHERE k = 1",
		"SELECT * FROM t WHERE k = 1 PER PARTITION LIMIT 1",
		"SELECT DISTINCT k, s FROM t WHERE s = 1 ALLOW FILTERING",
		"SELECT k, count(*) FROM t GROUP BY k, c LIMIT 2",
		"INSERT INTO u (k, v, s) VALUES (1, 2, {3}) IF NOT EXISTS",
		"SELECT * FROM u WHERE s CONTAINS 3 ALLOW FILTERING",
		"UPDATE u SET s = s + {4} WHERE k IN (1, 2)",
		"DELETE FROM u WHERE k = 1 IF v = 2",
		"SELECT v, writetime(s), ttl(s) FROM u WHERE token(k) > token(0)",
		"TRUNCATE t",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	h := newHarness(f)
	h.exec("CREATE TABLE t (k int, c int, d int, s int static, v int, l list<int>, m map<int, text>, st set<text>, PRIMARY KEY (k, c, d)) WITH CLUSTERING ORDER BY (c DESC, d ASC)")
	h.exec("CREATE TABLE n (k int PRIMARY KEY, x counter)")
	h.exec("CREATE TABLE u (k int PRIMARY KEY, v int, s set<int>)")
	for _, s := range seeds {
		h.run(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if strings.Contains(strings.ToUpper(q), "DROP") || strings.Contains(strings.ToUpper(q), "ALTER") {
			return // keep the schema
		}
		for _, size := range []int32{0, 2} {
			res, err := h.e.Execute(context.Background(), &bindings.Request{Keyspace: "ks", Query: q, PageSize: size})
			if err != nil {
				if be := bindings.AsError(err); be.Code == bindings.CodeServerError {
					t.Fatalf("%q: %v", q, err)
				}
				continue
			}
			if res.PagingState != nil {
				if _, err := h.e.Execute(context.Background(), &bindings.Request{Keyspace: "ks", Query: q, PageSize: size, PagingState: res.PagingState}); err != nil {
					if be := bindings.AsError(err); be.Code == bindings.CodeServerError {
						t.Fatalf("%q page 2: %v", q, err)
					}
				}
			}
		}
	})
}
