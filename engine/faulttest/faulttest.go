package faulttest

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/engine"
	"github.com/dohyo/dohyo/engine/kv"
	"github.com/dohyo/dohyo/engine/kv/kvfault"
)

// Run runs every case on a fresh store from open (closed by the engine
// when the case ends), with the engine configured by opts. An operation
// that failed after its commit point holds its partition until its lease
// ends (opts.LWTLease, default 5 s), which the counter and LWT cases wait
// out; a shorter lease would let a slow operation on a busy machine lose
// its partition mid-way and fail a case that tests something else.
func Run(t *testing.T, open func(t *testing.T) kv.KV, opts engine.Options) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, open(t), opts)
			c.run(h)
		})
	}
}

type tcase struct {
	name string
	run  func(h *harness)
}

var cases = []tcase{
	{"read_fails", readFails},
	{"scan_fails_midway", scanFailsMidway},
	{"write_fails", writeFails},
	{"batch_all_or_nothing", batchAllOrNothing},
	{"index_agrees_with_base", indexAgreesWithBase},
	{"counter_counts_once", counterCountsOnce},
	{"lwt_swap_fails", lwtSwapFails},
	{"ddl_fails", ddlFails},
}

// harness is an engine on a wrapped store, with the fault switch.
type harness struct {
	t   *testing.T
	e   *engine.Engine
	sw  *kvfault.Switch
	ks  string
	ctx context.Context
}

func newHarness(t *testing.T, st kv.KV, opts engine.Options) *harness {
	t.Helper()
	sw := &kvfault.Switch{}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	e, err := engine.Open(ctx, kvfault.Wrap(st, sw), opts)
	if err != nil {
		t.Fatalf("engine.Open: %v", err)
	}
	t.Cleanup(func() {
		sw.Set(nil)
		if err := e.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	h := &harness{t: t, e: e, sw: sw, ks: "faults", ctx: ctx}
	h.must("CREATE KEYSPACE IF NOT EXISTS faults WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	return h
}

func (h *harness) exec(q string) (*bindings.Result, error) {
	return h.e.Execute(h.ctx, &bindings.Request{Keyspace: h.ks, Query: q, Consistency: bindings.One, SerialConsistency: bindings.Serial})
}

func (h *harness) must(q string) *bindings.Result {
	h.t.Helper()
	res, err := h.exec(q)
	if err != nil {
		h.t.Fatalf("%s: %v", q, err)
	}
	return res
}

// fails runs q with in installed and checks that it failed cleanly: a
// *bindings.Error, and in did fail at least one call.
func (h *harness) fails(q string, r *kvfault.Rule) *bindings.Error {
	h.t.Helper()
	h.sw.Set(r)
	res, err := h.exec(q)
	h.sw.Set(nil)
	if r.Hits() == 0 {
		h.t.Fatalf("%s: the fault (%v) was never hit (%d calls matched): the case tests nothing", q, r.Ops, r.Seen())
	}
	if err == nil {
		h.t.Fatalf("%s: succeeded (%d rows) although the store failed %d calls", q, rowCount(res), r.Hits())
	}
	var be *bindings.Error
	if !errors.As(err, &be) {
		h.t.Fatalf("%s: error %T %v is not a protocol-level *bindings.Error", q, err, err)
	}
	if res != nil {
		h.t.Errorf("%s: failed but returned a result too", q)
	}
	if be.Message == "" {
		h.t.Errorf("%s: error without a message: %+v", q, be)
	}
	return be
}

// texts returns the rows of q as strings "a|b".
func (h *harness) texts(q string) []string {
	h.t.Helper()
	res := h.must(q)
	out := make([]string, 0, len(res.Rows))
	for _, r := range res.Rows {
		cells := make([]string, len(r))
		for i, c := range r {
			if c == nil {
				cells[i] = "null"
			} else {
				cells[i] = string(c)
			}
		}
		out = append(out, strings.Join(cells, "|"))
	}
	sort.Strings(out)
	return out
}

func rowCount(res *bindings.Result) int {
	if res == nil {
		return 0
	}
	return len(res.Rows)
}

func same(a, b []string) bool {
	return fmt.Sprint(a) == fmt.Sprint(b)
}

func readFails(h *harness) {
	h.must("CREATE TABLE r (k text PRIMARY KEY, v text)")
	h.must("INSERT INTO r (k, v) VALUES ('a', 'x')")
	h.fails("SELECT v FROM r WHERE k = 'a'", &kvfault.Rule{Ops: kvfault.OpGet | kvfault.OpScan, Table: "faults.r"})
	if got := h.texts("SELECT v FROM r WHERE k = 'a'"); !same(got, []string{"x"}) {
		h.t.Fatalf("after the fault: %v, want [x]", got)
	}
}

func scanFailsMidway(h *harness) {
	h.must("CREATE TABLE s (k text PRIMARY KEY, v text)")
	want := make([]string, 0, 40)
	for i := range 40 {
		h.must(fmt.Sprintf("INSERT INTO s (k, v) VALUES ('k%02d', 'v%02d')", i, i))
		want = append(want, fmt.Sprintf("k%02d|v%02d", i, i))
	}
	sort.Strings(want)
	for _, skip := range []int{0, 1, 17, 39} {
		// A scan step fails after skip rows were read: the client gets the
		// error, not the rows read so far as if they were all.
		h.fails("SELECT k, v FROM s", &kvfault.Rule{Ops: kvfault.OpNext, Table: "faults.s", Skip: skip, Count: 1})
	}
	if got := h.texts("SELECT k, v FROM s"); !same(got, want) {
		h.t.Fatalf("after the faults: %d rows, want %d", len(got), len(want))
	}
}

func writeFails(h *harness) {
	h.must("CREATE TABLE w (k text PRIMARY KEY, v text, l list<text>)")
	h.fails("INSERT INTO w (k, v) VALUES ('a', 'x')", &kvfault.Rule{Ops: kvfault.OpApply})
	if got := h.texts("SELECT k, v FROM w"); len(got) != 0 {
		h.t.Fatalf("a failed INSERT left rows: %v", got)
	}
	h.must("INSERT INTO w (k, v, l) VALUES ('b', 'x', ['1'])")
	h.fails("UPDATE w SET v = 'y', l = l + ['2'] WHERE k = 'b'", &kvfault.Rule{Ops: kvfault.OpApply})
	h.fails("DELETE FROM w WHERE k = 'b'", &kvfault.Rule{Ops: kvfault.OpApply})
	if got := h.texts("SELECT k, v FROM w"); !same(got, []string{"b|x"}) {
		h.t.Fatalf("after failed UPDATE and DELETE: %v, want [b|x]", got)
	}
	res := h.must("SELECT l FROM w WHERE k = 'b'")
	if len(res.Rows) != 1 || len(res.Rows[0][0]) == 0 {
		h.t.Fatalf("list after a failed append: %v", res.Rows)
	}
}

func batchAllOrNothing(h *harness) {
	h.must("CREATE TABLE b1 (k text PRIMARY KEY, v text)")
	h.must("CREATE TABLE b2 (k text PRIMARY KEY, v text)")
	for n, skip := range []int{0, 1} {
		q := fmt.Sprintf("BEGIN BATCH INSERT INTO b1 (k, v) VALUES ('p%d', 'x'); INSERT INTO b1 (k, v) VALUES ('q%d', 'x'); INSERT INTO b2 (k, v) VALUES ('p%d', 'x'); APPLY BATCH", n, n, n)
		r := &kvfault.Rule{Ops: kvfault.OpApply, Skip: skip, Count: 1}
		h.sw.Set(r)
		_, err := h.exec(q)
		h.sw.Set(nil)
		if r.Hits() == 0 {
			// The batch took fewer calls than skip+1: nothing failed, so
			// all of it must be there.
			if err != nil {
				h.t.Fatalf("batch without a fault failed: %v", err)
			}
			continue
		}
		var be *bindings.Error
		if err == nil || !errors.As(err, &be) {
			h.t.Fatalf("batch with the store failing call %d: %v, want a *bindings.Error", skip+1, err)
		}
		if skip > 0 {
			// An earlier call went through: a logged batch that reported
			// failure may have applied in part only when the engine says so
			// by its error class (a write timeout: the outcome is unknown).
			if be.Code != bindings.CodeWriteTimeout && be.Code != bindings.CodeServerError {
				h.t.Errorf("partly written batch answered %v", be.Code)
			}
		}
		got := append(h.texts(fmt.Sprintf("SELECT k FROM b1 WHERE k IN ('p%d', 'q%d')", n, n)), h.texts(fmt.Sprintf("SELECT k FROM b2 WHERE k = 'p%d'", n))...)
		if skip == 0 && len(got) != 0 {
			h.t.Fatalf("batch whose first store call failed left rows: %v", got)
		}
	}
}

func indexAgreesWithBase(h *harness) {
	h.must("CREATE TABLE ix (k text PRIMARY KEY, v text)")
	h.must("CREATE INDEX ON ix (v)")
	for i := range 4 {
		h.must(fmt.Sprintf("INSERT INTO ix (k, v) VALUES ('k%d', 'old')", i))
	}
	for i, skip := range []int{0, 1, 2, 3} {
		q := fmt.Sprintf("UPDATE ix SET v = 'new' WHERE k = 'k%d'", i)
		r := &kvfault.Rule{Ops: kvfault.OpApply, Skip: skip, Count: 1}
		h.sw.Set(r)
		_, err := h.exec(q)
		h.sw.Set(nil)
		if r.Hits() > 0 && err == nil {
			h.t.Fatalf("%s: succeeded although call %d failed", q, skip+1)
		}
	}
	// Whatever each failure left, a read through the index answers what
	// the base table holds.
	for _, v := range []string{"old", "new"} {
		byIndex := h.texts("SELECT k FROM ix WHERE v = '" + v + "'")
		var byBase []string
		for _, row := range h.texts("SELECT k, v FROM ix") {
			if k, val, _ := strings.Cut(row, "|"); val == v {
				byBase = append(byBase, k)
			}
		}
		sort.Strings(byBase)
		if !same(byIndex, byBase) {
			h.t.Errorf("v = %q: the index answers %v, the base table %v", v, byIndex, byBase)
		}
	}
}

// unknownOutcome checks that err says the outcome is unknown: a
// WriteTimeout of the given write type (the operation was committed and
// the next holder of its partition completes it).
func (h *harness) unknownOutcome(q string, be *bindings.Error, writeType string) {
	h.t.Helper()
	if be.Code != bindings.CodeWriteTimeout || be.WriteType != writeType {
		h.t.Fatalf("%s: failed after its commit point with %v (write type %q), want a WriteTimeout of type %s (outcome unknown)", q, be.Code, be.WriteType, writeType)
	}
}

func (h *harness) counter(k string) []byte {
	h.t.Helper()
	res := h.must("SELECT n FROM c WHERE k = '" + k + "'")
	if len(res.Rows) != 1 {
		return nil
	}
	return res.Rows[0][0]
}

func counterCountsOnce(h *harness) {
	if _, ok := h.e.KV().(kv.CondKV); !ok {
		h.t.Skip("the store coordinates counters in process only (no CondKV)")
	}
	h.must("CREATE TABLE c (k text PRIMARY KEY, n counter)")
	const q = "UPDATE c SET n = n + 1 WHERE k = 'a'"
	// The write fails after the commit point: the client hears that the
	// outcome is unknown, and the update is not lost: the next update of
	// the partition completes it first.
	be := h.fails(q, &kvfault.Rule{Ops: kvfault.OpApply, Count: 1})
	h.unknownOutcome(q, be, "COUNTER")
	h.must(q)
	if got := h.counter("a"); !bytesEqual(got, []byte{0, 0, 0, 0, 0, 0, 0, 2}) {
		h.t.Fatalf("counter after a committed-but-unwritten and a good update: %v, want 2", got)
	}
	// Taking the partition fails: nothing was committed, nothing counts.
	h.fails(q, &kvfault.Rule{Ops: kvfault.OpCellSwap, Count: 1})
	h.must(q)
	if got := h.counter("a"); !bytesEqual(got, []byte{0, 0, 0, 0, 0, 0, 0, 3}) {
		h.t.Fatalf("counter after an update that could not take its partition and a good one: %v, want 3", got)
	}
}

func (h *harness) applied(q string, want bool) {
	h.t.Helper()
	res := h.must(q)
	if len(res.Rows) != 1 || bytesEqual(res.Rows[0][0], []byte{1}) != want {
		h.t.Fatalf("%s: %v, want applied=%v", q, res.Rows, want)
	}
}

func lwtSwapFails(h *harness) {
	if _, ok := h.e.KV().(kv.CondKV); !ok {
		h.t.Skip("the store coordinates LWTs in process only (no CondKV)")
	}
	h.must("CREATE TABLE l (k text PRIMARY KEY, v text)")
	const qa = "INSERT INTO l (k, v) VALUES ('a', 'x') IF NOT EXISTS"
	// Before the commit point (reading or taking the partition's cell):
	// nothing applied.
	for _, ops := range []kvfault.Op{kvfault.OpCellSwap, kvfault.OpCellGet} {
		h.fails(qa, &kvfault.Rule{Ops: ops, Count: 1})
		if got := h.texts("SELECT k FROM l"); len(got) != 0 {
			h.t.Fatalf("an LWT that failed before its commit left %v", got)
		}
	}
	// The commit swap fails: outcome unknown to the client; here it was
	// not made, so the same LWT applies once the partition is free.
	be := h.fails(qa, &kvfault.Rule{Ops: kvfault.OpCellSwap, Skip: 1, Count: 1})
	h.unknownOutcome(qa, be, "CAS")
	h.applied(qa, true)
	h.applied("INSERT INTO l (k, v) VALUES ('a', 'y') IF NOT EXISTS", false)
	// The write after the commit fails: outcome unknown, and the
	// committed LWT is not lost: the next one on the partition completes it
	// and sees its row.
	const qb = "INSERT INTO l (k, v) VALUES ('b', 'x') IF NOT EXISTS"
	be = h.fails(qb, &kvfault.Rule{Ops: kvfault.OpApply, Count: 1})
	h.unknownOutcome(qb, be, "CAS")
	h.applied("INSERT INTO l (k, v) VALUES ('b', 'y') IF NOT EXISTS", false)
	if got := h.texts("SELECT k, v FROM l"); !same(got, []string{"a|x", "b|x"}) {
		h.t.Fatalf("rows after the LWT faults: %v, want [a|x b|x]", got)
	}
}

func ddlFails(h *harness) {
	for _, ops := range []kvfault.Op{kvfault.OpCreateTable, kvfault.OpPutMeta | kvfault.OpSchema} {
		name := fmt.Sprintf("d%d", ops)
		r := &kvfault.Rule{Ops: ops}
		h.sw.Set(r)
		_, err := h.exec("CREATE TABLE " + name + " (k text PRIMARY KEY, v text)")
		h.sw.Set(nil)
		if r.Hits() == 0 {
			continue // this store does not make that call for DDL
		}
		if err == nil {
			h.t.Fatalf("CREATE TABLE %s succeeded although %v failed", name, ops)
		}
		// Either the table does not exist, or it is whole: usable.
		_, ierr := h.exec("INSERT INTO " + name + " (k, v) VALUES ('a', 'x')")
		if ierr != nil {
			var be *bindings.Error
			if !errors.As(ierr, &be) || be.Code != bindings.CodeInvalid {
				h.t.Fatalf("after a failed CREATE TABLE %s: INSERT: %v, want success or unknown table", name, ierr)
			}
			h.must("CREATE TABLE " + name + " (k text PRIMARY KEY, v text)")
			h.must("INSERT INTO " + name + " (k, v) VALUES ('a', 'x')")
		}
		if got := h.texts("SELECT k, v FROM " + name); !same(got, []string{"a|x"}) {
			h.t.Fatalf("table %s after a failed create: %v", name, got)
		}
	}
}

func bytesEqual(a, b []byte) bool { return string(a) == string(b) }
