package engine

import (
	"context"
	"testing"

	"github.com/dohyo/dohyo/bindings"
)

func TestBasicInsertSelect(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (k int, c int, v text, PRIMARY KEY (k, c))")
	h.exec("INSERT INTO t (k, c, v) VALUES (1, 2, 'a')")
	h.exec("INSERT INTO t (k, c, v) VALUES (1, 1, 'b')")
	h.exec("INSERT INTO t (k, c, v) VALUES (2, 1, 'c')")
	h.expectRows("SELECT * FROM t WHERE k = 1", "1 | 1 | 'b'", "1 | 2 | 'a'")
	h.expectRows("SELECT v FROM t WHERE k = 1 AND c = 2", "'a'")
	h.expectRows("SELECT c, v FROM t WHERE k = 1 ORDER BY c DESC", "2 | 'a'", "1 | 'b'")
	h.expectRows("SELECT count(*) FROM t", "3")
	h.expectRows("SELECT k, c FROM t WHERE k IN (2, 1)", "1 | 1", "1 | 2", "2 | 1")
}

func TestReopenFindsTables(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (k int PRIMARY KEY, v int)")
	h.exec("INSERT INTO t (k, v) VALUES (1, 10)")
	if err := h.e.Close(); err != nil {
		t.Fatal(err)
	}
	e2, err := New(context.Background(), h.kv.reopen(), Options{Clock: h.clock})
	if err != nil {
		t.Fatal(err)
	}
	h.e = e2
	h.expectRows("SELECT * FROM t WHERE k = 1", "1 | 10")
	cat, _ := e2.Catalog(context.Background())
	if cat.Table("ks", "t") == nil {
		t.Fatalf("reopened catalog lacks ks.t")
	}
}

func TestErrors(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (k int, c int, v int, PRIMARY KEY (k, c))")
	cases := []struct {
		q    string
		code bindings.ErrorCode
		msg  string
	}{
		{"SELECT * FROM nope", bindings.CodeInvalid, "table nope does not exist"},
		{"SELECT * FROM t WHERE x = 1", bindings.CodeInvalid, "Undefined column name x"},
		{"SELECT * FROM t WHERE v = 1", bindings.CodeInvalid, "ALLOW FILTERING"},
		{"INSERT INTO t (c, v) VALUES (1, 1)", bindings.CodeInvalid, "Some partition key parts are missing: k"},
		{"INSERT INTO t (k, v) VALUES (1, 1)", bindings.CodeInvalid, "Some clustering keys are missing: c"},
		{"UPDATE t SET v = 1 WHERE k = 1", bindings.CodeInvalid, "Some clustering keys are missing: c"},
		{"SELECT * FROM t WHERE k = 1 ORDER BY v", bindings.CodeInvalid, "Order by is currently only supported on the clustered columns"},
		{"SELEC * FROM t", bindings.CodeSyntaxError, ""},
		{"INSERT INTO t (k, c, v) VALUES (null, 1, 1)", bindings.CodeInvalid, "Invalid null value"},
		{"INSERT INTO t (k, c, v) VALUES ('a', 1, 1)", bindings.CodeInvalid, ""},
		{"CREATE INDEX ON t (nope)", bindings.CodeInvalid, "Undefined column name nope"},
	}
	for _, c := range cases {
		h.expectError(c.q, c.code, c.msg)
	}
	h.ks = ""
	h.expectError("SELECT * FROM t", bindings.CodeInvalid, "No keyspace has been specified")
}
