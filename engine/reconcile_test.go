package engine

import (
	"bytes"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/engine/kv"
)

func TestQualifierRoundTrip(t *testing.T) {
	cases := []struct {
		q    []byte
		want parsedQual
	}{
		{qualMarker, parsedQual{kind: qMarker}},
		{qualRowDel, parsedQual{kind: qRowDel}},
		{cellQual("v"), parsedQual{kind: qCell, name: []byte("v")}},
		{collDelQual("m"), parsedQual{kind: qCollDel, name: []byte("m")}},
		{elemQual("m", []byte{0, 1, 2}), parsedQual{kind: qElem, name: []byte("m"), key: []byte{0, 1, 2}}},
		{rangeQual([]byte{1, 2}, []byte{0xff}), parsedQual{kind: qRange, lo: []byte{1, 2}, hi: []byte{0xff}}},
	}
	for _, c := range cases {
		got, err := parseQual(c.q)
		if err != nil {
			t.Fatalf("parseQual(%x): %v", c.q, err)
		}
		if got.kind != c.want.kind || !bytes.Equal(got.name, c.want.name) || !bytes.Equal(got.key, c.want.key) ||
			!bytes.Equal(got.lo, c.want.lo) || !bytes.Equal(got.hi, c.want.hi) {
			t.Errorf("parseQual(%x) = %+v, want %+v", c.q, got, c.want)
		}
	}
	for _, bad := range [][]byte{nil, {0x09}, {qElem, 0x05, 'a'}} {
		if _, err := parseQual(bad); err == nil {
			t.Errorf("parseQual(%x): no error", bad)
		}
	}
}

func TestListKeyOrder(t *testing.T) {
	a1 := listKey(100, 0, false)
	a2 := listKey(100, 1, false)
	a3 := listKey(200, 0, false)
	p1 := listKey(150, 0, true) // prepended at time 150
	p2 := listKey(300, 0, true) // prepended later: goes first
	p2b := listKey(300, 1, true)
	order := [][]byte{p2, p2b, p1, a1, a2, a3}
	for i := 1; i < len(order); i++ {
		if bytes.Compare(order[i-1], order[i]) >= 0 {
			t.Errorf("list key %d (%x) not before key %d (%x)", i-1, order[i-1], i, order[i])
		}
	}
}

func TestReconcileTimestamps(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (k int, c int, v text, PRIMARY KEY (k, c))")

	// Last write wins by timestamp, not by arrival.
	h.exec("INSERT INTO t (k, c, v) VALUES (1, 1, 'new') USING TIMESTAMP 200")
	h.exec("INSERT INTO t (k, c, v) VALUES (1, 1, 'old') USING TIMESTAMP 100")
	h.expectRows("SELECT v, writetime(v) FROM t WHERE k = 1 AND c = 1", "'new' | 200")

	// Equal timestamps: the greater value wins.
	h.exec("INSERT INTO t (k, c, v) VALUES (1, 2, 'a') USING TIMESTAMP 300")
	h.exec("INSERT INTO t (k, c, v) VALUES (1, 2, 'b') USING TIMESTAMP 300")
	h.exec("INSERT INTO t (k, c, v) VALUES (1, 2, 'a') USING TIMESTAMP 300")
	h.expectRows("SELECT v FROM t WHERE k = 1 AND c = 2", "'b'")

	// A tombstone beats a live cell of the same timestamp.
	h.exec("DELETE v FROM t USING TIMESTAMP 300 WHERE k = 1 AND c = 2")
	h.expectRows("SELECT c, v FROM t WHERE k = 1 AND c = 2", "2 | null")

	// A row deletion hides older writes, even ones that arrive later.
	h.exec("DELETE FROM t USING TIMESTAMP 500 WHERE k = 1 AND c = 3")
	h.exec("INSERT INTO t (k, c, v) VALUES (1, 3, 'late') USING TIMESTAMP 400")
	h.expectRows("SELECT * FROM t WHERE k = 1 AND c = 3")
	h.exec("INSERT INTO t (k, c, v) VALUES (1, 3, 'newer') USING TIMESTAMP 501")
	h.expectRows("SELECT * FROM t WHERE k = 1 AND c = 3", "1 | 3 | 'newer'")

	// Partition deletion covers rows at or below its timestamp only.
	h.exec("INSERT INTO t (k, c, v) VALUES (2, 1, 'x') USING TIMESTAMP 100")
	h.exec("INSERT INTO t (k, c, v) VALUES (2, 2, 'y') USING TIMESTAMP 300")
	h.exec("DELETE FROM t USING TIMESTAMP 200 WHERE k = 2")
	h.expectRows("SELECT * FROM t WHERE k = 2", "2 | 2 | 'y'")

	// Range tombstone: c > 1 at 1000; a later write with a lower timestamp
	// stays hidden, a higher one shows.
	h.exec("INSERT INTO t (k, c, v) VALUES (3, 1, 'a') USING TIMESTAMP 900")
	h.exec("INSERT INTO t (k, c, v) VALUES (3, 2, 'b') USING TIMESTAMP 900")
	h.exec("DELETE FROM t USING TIMESTAMP 1000 WHERE k = 3 AND c > 1")
	h.exec("INSERT INTO t (k, c, v) VALUES (3, 5, 'c') USING TIMESTAMP 999")
	h.exec("INSERT INTO t (k, c, v) VALUES (3, 6, 'd') USING TIMESTAMP 1001")
	h.expectRows("SELECT c, v FROM t WHERE k = 3", "1 | 'a'", "6 | 'd'")
}

func TestRowMarkerSemantics(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (k int, c int, v int, w int, PRIMARY KEY (k, c))")
	// UPDATE writes no marker: deleting the only column removes the row.
	h.exec("UPDATE t SET v = 1 WHERE k = 1 AND c = 1")
	h.exec("DELETE v FROM t WHERE k = 1 AND c = 1")
	h.expectRows("SELECT * FROM t WHERE k = 1")
	// INSERT writes a marker: the row stays with null columns.
	h.exec("INSERT INTO t (k, c, v) VALUES (1, 2, 1)")
	h.exec("DELETE v FROM t WHERE k = 1 AND c = 2")
	h.expectRows("SELECT * FROM t WHERE k = 1", "1 | 2 | null | null")
	// Primary-key-only insert.
	h.exec("INSERT INTO t (k, c) VALUES (1, 3)")
	h.expectRows("SELECT c FROM t WHERE k = 1", "2", "3")
}

func TestTTLExpiry(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (k int PRIMARY KEY, v int, w int)")
	h.exec("INSERT INTO t (k, v) VALUES (1, 10) USING TTL 10")
	h.exec("UPDATE t SET w = 5 WHERE k = 1")
	h.expectRows("SELECT v, ttl(v), w, ttl(w) FROM t WHERE k = 1", "10 | 10 | 5 | null")
	h.advance(4 * time.Second)
	h.expectRows("SELECT ttl(v) FROM t WHERE k = 1", "6")
	h.advance(6 * time.Second)
	// v and the row marker expired; w (no TTL) keeps the row alive.
	h.expectRows("SELECT * FROM t WHERE k = 1", "1 | null | 5")

	h.exec("INSERT INTO t (k, v) VALUES (2, 20) USING TTL 5")
	h.advance(5 * time.Second)
	h.expectRows("SELECT * FROM t WHERE k = 2")

	// default_time_to_live applies unless USING TTL says otherwise; TTL 0
	// means no TTL.
	h.exec("CREATE TABLE d (k int PRIMARY KEY, v int) WITH default_time_to_live = 100")
	h.exec("INSERT INTO d (k, v) VALUES (1, 1)")
	h.exec("INSERT INTO d (k, v) VALUES (2, 2) USING TTL 0")
	h.exec("INSERT INTO d (k, v) VALUES (3, 3) USING TTL 7")
	h.expectRows("SELECT k, ttl(v) FROM d WHERE k IN (1, 2, 3)", "1 | 100", "2 | null", "3 | 7")
	h.advance(101 * time.Second)
	h.expectRows("SELECT k FROM d WHERE k IN (1, 2, 3)", "2")
}

func TestCollectionsLayout(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (k int PRIMARY KEY, l list<int>, s set<text>, m map<int, text>)")
	h.exec("INSERT INTO t (k, l, s, m) VALUES (1, [3, 1, 2], {'b', 'a'}, {2: 'x', -1: 'y'})")
	h.expectRows("SELECT l, s, m FROM t WHERE k = 1", "[3, 1, 2] | {'a', 'b'} | {-1: 'y', 2: 'x'}")
	h.exec("UPDATE t SET l = l + [4], l = [0] + l, s = s - {'a'}, m[7] = 'z', m = m - {2} WHERE k = 1")
	h.expectRows("SELECT l, s, m FROM t WHERE k = 1", "[0, 3, 1, 2, 4] | {'b'} | {-1: 'y', 7: 'z'}")
	h.exec("UPDATE t SET l[1] = 30, l = l - [2] WHERE k = 1")
	h.expectRows("SELECT l FROM t WHERE k = 1", "[0, 30, 1, 4]")
	h.exec("DELETE l[0], m[-1] FROM t WHERE k = 1")
	h.expectRows("SELECT l, m FROM t WHERE k = 1", "[30, 1, 4] | {7: 'z'}")
	// Overwrite: the old elements are gone (tombstone at ts-1).
	h.exec("UPDATE t SET l = [9] WHERE k = 1")
	h.expectRows("SELECT l FROM t WHERE k = 1", "[9]")
	// Emptying a collection makes it null.
	h.exec("UPDATE t SET s = s - {'b'} WHERE k = 1")
	h.expectRows("SELECT s FROM t WHERE k = 1", "null")
	h.expectError("UPDATE t SET l[5] = 1 WHERE k = 1", 0x2200, "List index 5 out of bound, list has size 1")
	h.expectError("UPDATE t SET l[0] = 1 WHERE k = 2", 0x2200, "Attempted to set an element on a list which is null")

	// The cells: one per element, a collection tombstone per overwrite.
	ti := h.e.st.Load().tables[tableKey{"ks", "t"}]
	key, _ := ti.codec.PartitionKey([][]byte{{0, 0, 0, 1}})
	rows, _ := h.kv.Get(t.Context(), ti.spec, [][]byte{key})
	var elems, collDels int
	var lDel int64
	for _, c := range rows[0].Cells {
		if q, _ := parseQual(c.Qualifier); q.kind == qCollDel {
			collDels++
			if string(q.name) == "l" {
				lDel = c.Timestamp
			}
		}
	}
	for _, c := range rows[0].Cells {
		q, _ := parseQual(c.Qualifier)
		if q.kind == qElem && string(q.name) == "l" && c.Timestamp > lDel {
			if v, _ := kv.DecodeCellValue(c.Value); v.Live(h.clock().Unix()) {
				elems++
			}
		}
	}
	// One collection tombstone qualifier per collection (l, s, m); the
	// overwrite of l replaced its tombstone with a newer one.
	if elems != 1 || collDels != 3 {
		t.Errorf("unshadowed list element cells = %d, collection tombstones = %d; want 1 and 3", elems, collDels)
	}
}

func TestStaticColumns(t *testing.T) {
	h := newHarness(t)
	h.exec("CREATE TABLE t (k int, c int, s text static, v int, PRIMARY KEY (k, c))")
	h.exec("INSERT INTO t (k, s) VALUES (1, 'static only')")
	h.expectRows("SELECT * FROM t WHERE k = 1", "1 | null | 'static only' | null")
	h.expectRows("SELECT * FROM t WHERE k = 1 AND c = 1")
	h.exec("INSERT INTO t (k, c, v) VALUES (1, 1, 10)")
	h.exec("INSERT INTO t (k, c, v, s) VALUES (1, 2, 20, 'shared')")
	h.expectRows("SELECT * FROM t WHERE k = 1", "1 | 1 | 'shared' | 10", "1 | 2 | 'shared' | 20")
	h.expectRows("SELECT DISTINCT k, s FROM t", "1 | 'shared'")
	h.exec("DELETE FROM t WHERE k = 1 AND c IN (1, 2)")
	h.expectRows("SELECT * FROM t WHERE k = 1", "1 | null | 'shared' | null")
	h.expectRows("SELECT count(*) FROM t", "1")
}

func TestValueCanonical(t *testing.T) {
	// Bound set values are stored in canonical (sorted) order.
	h := newHarness(t)
	h.exec("CREATE TABLE t (k int PRIMARY KEY, fs frozen<set<int>>)")
	b := buildCollection(3, [][]byte{be32(3), be32(1), be32(2)})
	h.exec("INSERT INTO t (k, fs) VALUES (?, ?)", 1, bindings.Value{Bytes: b})
	h.expectRows("SELECT fs FROM t WHERE k = 1", "{1, 2, 3}")
}
