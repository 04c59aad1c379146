package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dohyo/dohyo/bindings"
)

func specText(specs []bindings.ColumnSpec) string {
	parts := make([]string, len(specs))
	for i, s := range specs {
		parts[i] = s.Name + " " + s.Type.String()
	}
	return strings.Join(parts, ", ")
}

func TestPrepareSpecs(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (a int, b text, c int, v bigint, m map<text, int>, l list<int>, PRIMARY KEY ((a, b), c))")
	cases := []struct {
		q      string
		bind   string
		pk     string
		result string
	}{
		{"SELECT * FROM t WHERE a = ? AND b = ? AND c IN ? LIMIT ?",
			"a int, b text, in(c) list<int>, [limit] int", "[0 1]",
			"a int, b text, c int, l list<int>, m map<text, int>, v bigint"},
		{"SELECT c, count(*), writetime(v) AS wt FROM t WHERE b = ? AND a = ? AND c > ?",
			"b text, a int, c int", "[1 0]", "c int, count bigint, wt bigint"},
		{"INSERT INTO t (a, b, c, v) VALUES (?, ?, ?, ?) USING TTL ? AND TIMESTAMP ?",
			"a int, b text, c int, v bigint, [ttl] int, [timestamp] bigint", "[0 1]", ""},
		{"UPDATE t SET m[?] = ?, l[?] = ? WHERE a = ? AND b = ? AND c = ?",
			"key(m) text, value(m) int, idx(l) int, value(l) int, a int, b text, c int", "[4 5]", ""},
		{"UPDATE t SET v = :val WHERE a = :a AND b = 'x' AND c = 1 IF v = ?",
			"val bigint, a int, v bigint", "", ""},
		{"DELETE m[?] FROM t WHERE a = ? AND b = ? AND (c) IN ((?), (?))",
			"key(m) text, a int, b text, c int, c int", "[1 2]", ""},
	}
	for _, c := range cases {
		p, err := h.e.Prepare(context.Background(), "ks", c.q)
		if err != nil {
			t.Errorf("%s: %v", c.q, err)
			continue
		}
		if got := specText(p.Bind); got != c.bind {
			t.Errorf("%s:\nbind   %q\nwant   %q", c.q, got, c.bind)
		}
		pk := ""
		if p.PKIndexes != nil {
			pk = fmt.Sprint(p.PKIndexes)
		}
		if pk != c.pk {
			t.Errorf("%s: pk indexes %s, want %s", c.q, pk, c.pk)
		}
		if got := specText(p.Result); got != c.result {
			t.Errorf("%s:\nresult %q\nwant   %q", c.q, got, c.result)
		}
		if p.Keyspace != "ks" || p.Table != "t" {
			t.Errorf("%s: keyspace/table %s/%s", c.q, p.Keyspace, p.Table)
		}
	}
}

func TestBoundValues(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (k int PRIMARY KEY, v text, w int)")
	h.exec("INSERT INTO t (k, v, w) VALUES (?, ?, ?)", 1, "a", 5)
	// Unset leaves the column untouched; null deletes it.
	h.exec("INSERT INTO t (k, v, w) VALUES (?, ?, ?)", 1, bindings.Value{Unset: true}, bindings.Value{})
	h.expectRows("SELECT v, w FROM t WHERE k = 1", "'a' | null")

	// Named values bind by marker name, in any order.
	res, err := h.e.Execute(context.Background(), &bindings.Request{Keyspace: "ks",
		Query:  "UPDATE t SET v = :v WHERE k = :key",
		Names:  []string{"key", "v"},
		Values: []bindings.Value{{Bytes: be32(1)}, {Bytes: []byte("named")}}})
	if err != nil || res.Kind != bindings.ResultVoid {
		t.Fatalf("named values: %v %v", res, err)
	}
	h.expectRows("SELECT v FROM t WHERE k = 1", "'named'")

	h.expectError("SELECT * FROM t WHERE k = ?", bindings.CodeInvalid, "Invalid unset value for column k", bindings.Value{Unset: true})
	h.expectError("INSERT INTO t (k, v) VALUES (?, ?)", bindings.CodeInvalid, "", bindings.Value{Bytes: []byte{1, 2}}, "x")
	_, err = h.e.Execute(context.Background(), &bindings.Request{Keyspace: "ks", Query: "SELECT * FROM t WHERE k = ?"})
	if be := bindings.AsError(err); be == nil || !strings.Contains(be.Message, "1 markers(?) in CQL but 0 bound variables") {
		t.Errorf("missing values: %v", err)
	}
}

func TestPlanCache(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (k int PRIMARY KEY, v int)")
	q := "SELECT v FROM t WHERE k = ?"
	h.exec(q, 1)
	cp1, _ := h.e.plans.Get(planKey{"ks", q})
	h.exec(q, 2)
	cp2, _ := h.e.plans.Get(planKey{"ks", q})
	if cp1 == nil || cp1 != cp2 {
		t.Fatalf("plan not reused: %p %p", cp1, cp2)
	}
	// A QUERY whose plan is kept is not parsed again.
	parsed := h.e.parsed.Stats()
	if _, err := h.e.Execute(context.Background(), &bindings.Request{Keyspace: "ks", Query: q,
		Values: []bindings.Value{{Bytes: be32(3)}}}); err != nil {
		t.Fatal(err)
	}
	if got := h.e.parsed.Stats(); got.Hits+got.Misses != parsed.Hits+parsed.Misses {
		t.Errorf("a QUERY with a kept plan parsed its text: parse cache %+v, then %+v", parsed, got)
	}
	// DDL invalidates: the next execution re-plans against the new schema.
	h.exec("ALTER TABLE t ADD w int")
	h.exec("INSERT INTO t (k, v, w) VALUES (1, 1, 1)")
	h.expectRows("SELECT * FROM t WHERE k = 1", "1 | 1 | 1")
	h.exec(q, 1)
	cp3, _ := h.e.plans.Get(planKey{"ks", q})
	if cp3 == cp1 {
		t.Errorf("plan not rebuilt after DDL")
	}
}

func TestDDLLifecycle(t *testing.T) {
	h := newHarness(t)
	res := h.exec("CREATE TABLE t (k int PRIMARY KEY, v int)")
	if res.Kind != bindings.ResultSchemaChange || res.Change.Target != bindings.TargetTable || res.Change.Object != "t" {
		t.Fatalf("create table result %+v", res)
	}
	if res := h.exec("CREATE TABLE IF NOT EXISTS t (k int PRIMARY KEY, v int)"); res.Kind != bindings.ResultVoid {
		t.Errorf("CREATE IF NOT EXISTS on an existing table: %+v", res)
	}
	h.exec("INSERT INTO t (k, v) VALUES (1, 1)")
	h.exec("TRUNCATE t")
	h.expectRows("SELECT * FROM t")
	h.exec("INSERT INTO t (k, v) VALUES (1, 1)")
	// Dropped then re-added column: old data stays invisible.
	h.exec("ALTER TABLE t DROP v")
	h.advance(1e9)
	h.exec("ALTER TABLE t ADD v int")
	h.expectRows("SELECT * FROM t", "1 | null")
	// Drop and re-create: a new table id, no old data.
	h.exec("DROP TABLE t")
	h.exec("CREATE TABLE t (k int PRIMARY KEY, v int)")
	h.expectRows("SELECT * FROM t")
	if res := h.exec("USE ks"); res.Kind != bindings.ResultSetKeyspace || res.Keyspace != "ks" {
		t.Errorf("USE result %+v", res)
	}
	h.expectError("USE nope", bindings.CodeInvalid, "Keyspace 'nope' does not exist")
	h.exec("DROP KEYSPACE ks")
	if len(h.kv.tables) != 0 {
		t.Errorf("%d KV tables left after DROP KEYSPACE", len(h.kv.tables))
	}
}
