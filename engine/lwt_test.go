package engine

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// expectCAS checks an LWT result: column names and rows.
func (h *harness) expectCAS(q string, cols string, rows ...string) {
	h.t.Helper()
	res := h.exec(q)
	if got := columnNames(res); got != cols {
		h.t.Errorf("%s: columns %q, want %q", q, got, cols)
	}
	got := formatRows(res)
	if strings.Join(got, "\n") != strings.Join(rows, "\n") {
		h.t.Errorf("%s:\ngot  %q\nwant %q", q, got, rows)
	}
}

func TestLWTResults(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (k int, c int, s int static, v text, w int, PRIMARY KEY (k, c))")
	h.expectCAS("INSERT INTO t (k, c, v) VALUES (1, 1, 'a') IF NOT EXISTS", "[applied]", "true")
	// Not applied: [applied] then every column of the existing row.
	h.expectCAS("INSERT INTO t (k, c, v) VALUES (1, 1, 'b') IF NOT EXISTS", "[applied],k,c,s,v,w", "false | 1 | 1 | null | 'a' | null")
	h.expectRows("SELECT v FROM t WHERE k = 1 AND c = 1", "'a'")

	// Conditions: [applied] then the condition columns.
	h.expectCAS("UPDATE t SET v = 'c' WHERE k = 1 AND c = 1 IF v = 'x'", "[applied],v", "false | 'a'")
	h.expectCAS("UPDATE t SET v = 'c' WHERE k = 1 AND c = 1 IF v = 'a' AND w = null", "[applied]", "true")
	h.expectCAS("UPDATE t SET v = 'd' WHERE k = 1 AND c = 1 IF v IN ('x', 'y') AND w = 3", "[applied],v,w", "false | 'c' | null")
	h.expectCAS("UPDATE t SET v = 'd' WHERE k = 1 AND c = 1 IF v > 'b'", "[applied]", "true")
	// Row missing: only [applied].
	h.expectCAS("UPDATE t SET v = 'z' WHERE k = 1 AND c = 9 IF v = 'a'", "[applied]", "false")
	h.expectCAS("UPDATE t SET v = 'z' WHERE k = 1 AND c = 9 IF EXISTS", "[applied]", "false")
	h.expectRows("SELECT * FROM t WHERE k = 1 AND c = 9")
	h.expectCAS("DELETE FROM t WHERE k = 1 AND c = 1 IF EXISTS", "[applied]", "true")
	h.expectRows("SELECT * FROM t WHERE k = 1")

	// Static conditions are checked against the partition's static row.
	h.expectCAS("UPDATE t SET s = 1 WHERE k = 2 IF s = null", "[applied]", "true")
	h.expectCAS("UPDATE t SET s = 2 WHERE k = 2 IF s = 5", "[applied],s", "false | 1")

	h.expectError("UPDATE t SET v = 'a' WHERE k = 1 AND c = 1 IF v > null", bindings.CodeInvalid, "Invalid comparison with null")
	h.expectError("UPDATE t USING TIMESTAMP 5 SET v = 'a' WHERE k = 1 AND c = 1 IF v = 'a'", bindings.CodeInvalid, "Cannot provide custom timestamp for conditional updates")
	h.expectError("UPDATE t SET v = 'a' WHERE k IN (1, 2) AND c = 1 IF v = 'a'", bindings.CodeInvalid, "IN on the partition key is not supported with conditional updates")
}

func TestLWTBatch(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (k int, c int, v int, PRIMARY KEY (k, c))")
	h.exec("INSERT INTO t (k, c, v) VALUES (1, 1, 10)")
	h.exec("INSERT INTO t (k, c, v) VALUES (1, 2, 20)")
	// Not applied: batches add the primary key columns, one row per
	// conditioned row.
	h.expectCAS("BEGIN BATCH UPDATE t SET v = 11 WHERE k = 1 AND c = 1 IF v = 10; UPDATE t SET v = 21 WHERE k = 1 AND c = 2 IF v = 99; APPLY BATCH",
		"[applied],k,c,v", "false | 1 | 1 | 10", "false | 1 | 2 | 20")
	h.expectRows("SELECT v FROM t WHERE k = 1", "10", "20")
	h.expectCAS("BEGIN BATCH UPDATE t SET v = 11 WHERE k = 1 AND c = 1 IF v = 10; INSERT INTO t (k, c, v) VALUES (1, 3, 30); APPLY BATCH",
		"[applied]", "true")
	h.expectRows("SELECT v FROM t WHERE k = 1", "11", "20", "30")
	h.expectError("BEGIN BATCH UPDATE t SET v = 1 WHERE k = 1 AND c = 1 IF v = 10; UPDATE t SET v = 1 WHERE k = 2 AND c = 1; APPLY BATCH",
		bindings.CodeInvalid, "Batch with conditions cannot span multiple partitions")
}

func TestLWTConcurrentInsertIfNotExists(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (k int PRIMARY KEY, v int)")
	var wg sync.WaitGroup
	var mu sync.Mutex
	applied := 0
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			res, err := h.e.Execute(context.Background(), &bindings.Request{Keyspace: "ks",
				Query: "INSERT INTO t (k, v) VALUES (1, " + string(rune('0'+i%10)) + ") IF NOT EXISTS"})
			if err != nil {
				t.Error(err)
				return
			}
			if res.Rows[0][0][0] == 1 {
				mu.Lock()
				applied++
				mu.Unlock()
			}
		}(i)
	}
	wg.Wait()
	if applied != 1 {
		t.Errorf("%d concurrent IF NOT EXISTS applied, want exactly 1", applied)
	}
}

func TestBatches(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (k int, c int, v int, PRIMARY KEY (k, c))")
	before := h.kv.applies
	h.exec("BEGIN BATCH INSERT INTO t (k, c, v) VALUES (1, 1, 1); INSERT INTO t (k, c, v) VALUES (2, 1, 2); UPDATE t SET v = 3 WHERE k = 1 AND c = 2; APPLY BATCH")
	if n := h.kv.applies - before; n != 1 {
		t.Errorf("batch used %d KV.Apply calls, want 1", n)
	}
	// Every child shares the batch timestamp.
	got := h.rows("SELECT writetime(v) FROM t WHERE k IN (1, 2)")
	if len(got) != 3 || got[0] != got[1] || got[1] != got[2] {
		t.Errorf("batch write times %v, want three equal values", got)
	}
	h.exec("BEGIN BATCH USING TIMESTAMP 42 DELETE FROM t WHERE k = 2 AND c = 1; APPLY BATCH")
	h.expectRows("SELECT k, c FROM t WHERE k = 2", "2 | 1") // written later than 42
	h.expectError("BEGIN BATCH USING TIMESTAMP 1 INSERT INTO t (k, c, v) VALUES (1, 1, 1) USING TIMESTAMP 2; APPLY BATCH",
		bindings.CodeInvalid, "Timestamp must be set either on BATCH or individual statements")

	// Protocol batch with prepared entries and bound values.
	res, err := h.e.Batch(context.Background(), &bindings.BatchRequest{Keyspace: "ks", Type: cql.BatchUnlogged, Entries: []bindings.BatchEntry{
		{Query: "INSERT INTO t (k, c, v) VALUES (?, ?, ?)", Values: vals(t, 5, 1, 50)},
		{Query: "UPDATE t SET v = ? WHERE k = ? AND c = ?", Values: vals(t, 51, 5, 2)},
	}})
	if err != nil || res.Kind != bindings.ResultVoid {
		t.Fatalf("protocol batch: %v %v", res, err)
	}
	h.expectRows("SELECT c, v FROM t WHERE k = 5", "1 | 50", "2 | 51")

	h.exec("CREATE TABLE cnt (k int PRIMARY KEY, n counter)")
	h.exec("BEGIN COUNTER BATCH UPDATE cnt SET n = n + 2 WHERE k = 1; UPDATE cnt SET n = n + 3 WHERE k = 1; APPLY BATCH")
	h.expectRows("SELECT n FROM cnt WHERE k = 1", "5")
	h.expectError("BEGIN BATCH UPDATE cnt SET n = n + 1 WHERE k = 1; APPLY BATCH", bindings.CodeInvalid, "Cannot include a counter statement in a logged batch")
	h.expectError("BEGIN COUNTER BATCH INSERT INTO t (k, c, v) VALUES (1, 1, 1); APPLY BATCH", bindings.CodeInvalid, "Cannot include non-counter statement in a counter batch")
}

func vals(t *testing.T, ints ...int) []bindings.Value {
	t.Helper()
	out := make([]bindings.Value, len(ints))
	for i, v := range ints {
		out[i] = bindings.Value{Bytes: be32(int32(v))}
	}
	return out
}

func TestCountersConcurrent(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE c (k int PRIMARY KEY, n counter, m counter)")
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 25; j++ {
				if _, err := h.e.Execute(context.Background(), &bindings.Request{Keyspace: "ks", Query: "UPDATE c SET n = n + 1, m = m - 2 WHERE k = 7"}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	h.expectRows("SELECT n, m FROM c WHERE k = 7", "200 | -400")
	h.expectError("UPDATE c SET n = 1 WHERE k = 1", bindings.CodeInvalid, "Cannot set the value of counter column n")
	h.expectError("INSERT INTO c (k, n) VALUES (1, 1)", bindings.CodeInvalid, "INSERT statements are not allowed on counter tables")
	h.expectError("UPDATE c USING TIMESTAMP 5 SET n = n + 1 WHERE k = 1", bindings.CodeInvalid, "Cannot provide custom timestamp for counter updates")
}
