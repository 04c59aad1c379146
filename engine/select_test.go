package engine

import (
	"testing"

	"github.com/dohyo/dohyo/bindings"
)

func TestSelectClusteringSlices(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (k int, a int, b int, v int, PRIMARY KEY (k, a, b)) WITH CLUSTERING ORDER BY (a ASC, b DESC)")
	for a := 1; a <= 3; a++ {
		for b := 1; b <= 3; b++ {
			h.exec("INSERT INTO t (k, a, b, v) VALUES (1, ?, ?, ?)", a, b, a*10+b)
		}
	}
	h.expectRows("SELECT v FROM t WHERE k = 1 AND a = 2", "23", "22", "21")
	h.expectRows("SELECT v FROM t WHERE k = 1 AND a = 2 AND b > 1", "23", "22")
	h.expectRows("SELECT v FROM t WHERE k = 1 AND a = 2 AND b < 3 ORDER BY a DESC, b ASC", "21", "22")
	// Tuple comparison in value order, across mixed clustering orders.
	h.expectRows("SELECT v FROM t WHERE k = 1 AND (a, b) > (2, 2)", "23", "33", "32", "31")
	h.expectRows("SELECT v FROM t WHERE k = 1 AND (a, b) >= (2, 2) AND (a, b) < (3, 2)", "23", "22", "31")
	h.expectRows("SELECT v FROM t WHERE k = 1 AND (a, b) IN ((3, 1), (1, 3), (3, 1))", "13", "31")
	h.expectRows("SELECT v FROM t WHERE k = 1 AND a IN (3, 1) AND b IN (1, 2)", "12", "11", "32", "31")
	h.expectRows("SELECT v FROM t WHERE k = 1 AND a IN (3, 1) AND b >= 2 ORDER BY a DESC", "32", "33", "12", "13")
	h.expectRows("SELECT v FROM t WHERE k = 1 AND b = 1 ALLOW FILTERING", "11", "21", "31")
	h.expectError("SELECT v FROM t WHERE k = 1 AND b = 1", bindings.CodeInvalid, `PRIMARY KEY column "b" cannot be restricted as preceding column "a" is not restricted`)
	h.expectError("SELECT v FROM t WHERE k = 1 AND a > 1 AND b = 1", bindings.CodeInvalid, `Clustering column "b" cannot be restricted (preceding column "a" is restricted by a non-EQ relation)`)
	h.expectError("SELECT v FROM t WHERE k = 1 ORDER BY b", bindings.CodeInvalid, "Order by currently only supports the ordering of columns following their declared order in the PRIMARY KEY")
	h.expectError("SELECT v FROM t WHERE k = 1 ORDER BY a ASC, b ASC", bindings.CodeInvalid, "Unsupported order by relation")
}

func TestSelectINOrderBy(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (k int, c int, PRIMARY KEY (k, c))")
	h.exec("INSERT INTO t (k, c) VALUES (1, 5)")
	h.exec("INSERT INTO t (k, c) VALUES (1, 1)")
	h.exec("INSERT INTO t (k, c) VALUES (2, 3)")
	h.exec("INSERT INTO t (k, c) VALUES (-1, 4)")
	// IN partitions come back in partition key order, deduplicated.
	h.expectRows("SELECT k, c FROM t WHERE k IN (2, 1, -1, 2)", "-1 | 4", "1 | 1", "1 | 5", "2 | 3")
	// ORDER BY with IN sorts across partitions.
	h.expectRows("SELECT k, c FROM t WHERE k IN (2, 1, -1) ORDER BY c DESC", "1 | 5", "-1 | 4", "2 | 3", "1 | 1")
	h.expectRows("SELECT k, c FROM t WHERE k IN (2, 1, -1) ORDER BY c LIMIT 2", "1 | 1", "2 | 3")
}

func TestGroupBy(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (k int, a int, b int, v int, PRIMARY KEY (k, a, b))")
	for k := 1; k <= 2; k++ {
		for a := 1; a <= 2; a++ {
			for b := 1; b <= a+k; b++ {
				h.exec("INSERT INTO t (k, a, b, v) VALUES (?, ?, ?, ?)", k, a, b, b)
			}
		}
	}
	h.expectRows("SELECT k, a, count(*), max(v) FROM t GROUP BY k, a", "1 | 1 | 2 | 2", "1 | 2 | 3 | 3", "2 | 1 | 3 | 3", "2 | 2 | 4 | 4")
	h.expectRows("SELECT k, count(*) FROM t GROUP BY k", "1 | 5", "2 | 7")
	h.expectRows("SELECT a, b FROM t WHERE k = 2 GROUP BY a", "1 | 1", "2 | 1")
	h.expectRows("SELECT k, a, count(*) FROM t GROUP BY k, a LIMIT 3", "1 | 1 | 2", "1 | 2 | 3", "2 | 1 | 3")
	h.expectError("SELECT count(*) FROM t GROUP BY a", bindings.CodeInvalid, "Group by currently only support groups of columns following their declared order in the PRIMARY KEY")
	h.expectError("SELECT count(*) FROM t GROUP BY v", bindings.CodeInvalid, "Group by is currently only supported on the columns of the PRIMARY KEY, got v")
}

func TestAggregates(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (k int, c int, i int, d double, x text, PRIMARY KEY (k, c))")
	h.exec("INSERT INTO t (k, c, i, d, x) VALUES (1, 1, 2, 1.5, 'b')")
	h.exec("INSERT INTO t (k, c, i, d, x) VALUES (1, 2, 5, 2.5, 'a')")
	h.exec("INSERT INTO t (k, c) VALUES (1, 3)")
	h.expectRows("SELECT count(*), count(i), sum(i), avg(i), min(x), max(d), sum(d) FROM t WHERE k = 1",
		"3 | 2 | 7 | 3 | 'a' | 2.5 | 4")
	h.expectRows("SELECT count(*), sum(i), max(x) FROM t WHERE k = 9", "0 | 0 | null")
	h.expectError("SELECT nosuch(i) FROM t", bindings.CodeInvalid, "Unknown function 'nosuch'")
}
