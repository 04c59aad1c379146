package kvtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/dohyo/dohyo/engine/kv"
)

func testTables(t *testing.T, h *harness) {
	ts := h.table("tables")
	if err := h.kv.CreateTable(h.ctx, ts); err != nil {
		t.Fatalf("CreateTable of an existing table: got %v, want nil", err)
	}
	h.apply(mut(ts, "r1", cell("a", baseTS, live("1"))), mut(ts, "r2", cell("a", baseTS, live("2"))))
	if got := h.scan(ts, kv.ScanRange{}); len(got) != 2 {
		t.Fatalf("before truncate: got %d rows, want 2: %s", len(got), fmtRows(got))
	}

	if err := h.kv.TruncateTable(h.ctx, ts); err != nil {
		t.Fatalf("TruncateTable: %v", err)
	}
	checkRows(t, "scan after truncate", h.scan(ts, kv.ScanRange{}), nil)
	if got := h.get(ts, "r1"); len(got[0].Cells) != 0 {
		t.Errorf("get after truncate: got %s, want no cells", fmtRow(got[0]))
	}
	// The table is still usable, and old versions do not come back (the
	// new cell has a lower timestamp than the truncated one).
	h.apply(mut(ts, "r1", cell("a", baseTS-1, live("after"))))
	checkRows(t, "get after truncate+write", h.get(ts, "r1"),
		[]kv.Row{row("r1", cell("a", baseTS-1, live("after")))})

	if err := h.kv.DropTable(h.ctx, ts); err != nil {
		t.Fatalf("DropTable: %v", err)
	}
	h.tables = h.tables[:0]
	// A re-created table is a new incarnation (new ID): it starts empty.
	again := h.table("tables")
	checkRows(t, "scan of re-created table", h.scan(again, kv.ScanRange{}), nil)
}

func testApplyGet(t *testing.T, h *harness) {
	ts := h.table("applyget")
	big := bytes.Repeat([]byte{'x'}, 100<<10)
	h.apply(
		mut(ts, "k1", cell("", baseTS, live("")), cell("c1", baseTS, live("v1")), cell("c2", baseTS+1, live("v2"))),
		mut(ts, "k2", cell("c1", baseTS, kv.CellValue{Data: big}.Encode())),
	)
	// A later call adds cells to an existing row and overwrites one.
	h.apply(mut(ts, "k1", cell("c3", baseTS, live("v3")), cell("c1", baseTS+5, live("v1b"))))
	want := []kv.Row{
		row("k1", cell("", baseTS, live("")), cell("c1", baseTS+5, live("v1b")),
			cell("c2", baseTS+1, live("v2")), cell("c3", baseTS, live("v3"))),
		row("k2", cell("c1", baseTS, kv.CellValue{Data: big}.Encode())),
	}
	checkRows(t, "Get", h.get(ts, "k1", "k2"), want)
	checkRows(t, "Scan", h.scan(ts, kv.ScanRange{}), want)

	// Tombstones are cells like any other: the store keeps the winner.
	h.apply(mut(ts, "k2", cell("c1", baseTS+9, tomb(42))))
	checkRows(t, "Get after tombstone", h.get(ts, "k2"),
		[]kv.Row{row("k2", cell("c1", baseTS+9, tomb(42)))})

	// Returned slices belong to the caller: mutating them changes nothing.
	got := h.get(ts, "k1")
	got[0].Cells[1].Value[1] = 'Z'
	checkRows(t, "Get after mutating a returned value", h.get(ts, "k1"), want[:1])
}

// testCellOrder uses qualifiers where one is a prefix of another, which
// naive key concatenations misorder.
func testCellOrder(t *testing.T, h *harness) {
	ts := h.table("cellorder")
	quals := []string{"b", "a\x00\x00", "a", "a\x00", "", "\xff", "a\x01"}
	cells := make([]kv.Cell, len(quals))
	for i, q := range quals {
		cells[i] = cell(q, baseTS, live(fmt.Sprint(i)))
	}
	h.apply(mut(ts, "k", cells...))
	want := row("k",
		cell("", baseTS, live("4")), cell("a", baseTS, live("2")), cell("a\x00", baseTS, live("3")),
		cell("a\x00\x00", baseTS, live("1")), cell("a\x01", baseTS, live("6")),
		cell("b", baseTS, live("0")), cell("\xff", baseTS, live("5")))
	checkRows(t, "Get", h.get(ts, "k"), []kv.Row{want})
	checkRows(t, "Scan", h.scan(ts, kv.ScanRange{}), []kv.Row{want})
	checkRows(t, "reverse Scan", h.scan(ts, kv.ScanRange{Reverse: true}), []kv.Row{want})
}

func testHigherTimestampWins(t *testing.T, h *harness) {
	ts := h.table("lww")
	newer := cell("c", baseTS+10, live("newer"))
	older := cell("c", baseTS, live("older"))
	newTomb := cell("c", baseTS+10, tomb(7))

	// Separate calls, both arrival orders, plus both versions in one call.
	h.apply(mut(ts, "new-then-old", newer))
	h.apply(mut(ts, "new-then-old", older))
	h.apply(mut(ts, "old-then-new", older))
	h.apply(mut(ts, "old-then-new", newer))
	h.apply(mut(ts, "one-call-fwd", older, newer), mut(ts, "one-call-rev", newer), mut(ts, "one-call-rev", older))
	// A newer tombstone beats an older live cell; an older tombstone loses.
	h.apply(mut(ts, "tomb-new", older))
	h.apply(mut(ts, "tomb-new", newTomb))
	h.apply(mut(ts, "tomb-old", newer))
	h.apply(mut(ts, "tomb-old", cell("c", baseTS, tomb(7))))

	want := []kv.Row{
		row("new-then-old", newer), row("old-then-new", newer),
		row("one-call-fwd", newer), row("one-call-rev", newer),
		row("tomb-new", newTomb), row("tomb-old", newer),
	}
	checkRows(t, "Get", h.get(ts, "new-then-old", "old-then-new", "one-call-fwd", "one-call-rev", "tomb-new", "tomb-old"), want)
	checkRows(t, "Scan", h.scan(ts, kv.ScanRange{}), want)
}

func testEqualTimestampTies(t *testing.T, h *harness) {
	ts := h.table("ties")
	cases := []struct {
		name string
		a, b []byte
	}{
		{"tombstone-beats-live", live("zzz"), tomb(1)},
		{"greater-value-wins", live("aaa"), live("bbb")},
		{"longer-value-wins", live("abc"), live("abcd")},
		{"later-expiry-wins", kv.CellValue{Data: []byte("v"), TTL: 10, Expiry: 100}.Encode(),
			kv.CellValue{Data: []byte("v"), TTL: 10, Expiry: 200}.Encode()},
	}
	var keys []string
	var want []kv.Row
	for _, c := range cases {
		ca, cb := cell("c", baseTS, c.a), cell("c", baseTS, c.b)
		winner := kv.Resolve(ca, cb)
		if w2 := kv.Resolve(cb, ca); !bytes.Equal(winner.Value, w2.Value) {
			t.Fatalf("%s: Resolve is order-dependent for this case; fix the test", c.name)
		}
		h.apply(mut(ts, c.name+"/ab", ca))
		h.apply(mut(ts, c.name+"/ab", cb))
		h.apply(mut(ts, c.name+"/ba", cb))
		h.apply(mut(ts, c.name+"/ba", ca))
		keys = append(keys, c.name+"/ab", c.name+"/ba")
		want = append(want, row(c.name+"/ab", winner), row(c.name+"/ba", winner))
	}
	checkRows(t, "Get", h.get(ts, keys...), want)
}

func testGetMissing(t *testing.T, h *harness) {
	ts := h.table("missing")
	h.apply(mut(ts, "b", cell("c", baseTS, live("B"))), mut(ts, "d", cell("c", baseTS, live("D"))))
	keys := []string{"a", "b", "c", "d", "e", "b"}
	got := h.get(ts, keys...)
	for i, k := range keys {
		present := k == "b" || k == "d"
		switch {
		case present && !rowEqual(got[i], row(k, cell("c", baseTS, live(string(bytes.ToUpper([]byte(k))))))):
			t.Errorf("row %d (%q): got %s, want the written row", i, k, fmtRow(got[i]))
		case !present && len(got[i].Cells) != 0:
			t.Errorf("row %d (%q): got %s, want no cells", i, k, fmtRow(got[i]))
		case !present && got[i].Key != nil && string(got[i].Key) != k:
			t.Errorf("row %d: got key %q, want %q (or nil)", i, got[i].Key, k)
		}
	}
	if rows, err := h.kv.Get(h.ctx, ts, nil); err != nil || len(rows) != 0 {
		t.Errorf("Get(no keys): got %d rows, %v; want 0, nil", len(rows), err)
	}
}

func testScan(t *testing.T, h *harness) {
	ts := h.table("scan")
	const n = 20
	all := make([]kv.Row, n)
	var muts []kv.Mutation
	for i := range n {
		k := fmt.Sprintf("row%03d", i) // fixed width: prefix-free
		cs := []kv.Cell{cell("a", baseTS, live(k)), cell("b", baseTS+int64(i), live("b"))}
		muts = append(muts, mut(ts, k, cs...))
		all[i] = row(k, cs...)
	}
	// Written out of order, in several calls.
	for i := n - 1; i >= 0; i -= 3 {
		h.apply(muts[i])
	}
	for i := range n {
		if (n-1-i)%3 != 0 {
			h.apply(muts[i])
		}
	}
	rev := func(rs []kv.Row) []kv.Row {
		out := make([]kv.Row, len(rs))
		for i, r := range rs {
			out[len(rs)-1-i] = r
		}
		return out
	}
	k := func(i int) []byte { return []byte(fmt.Sprintf("row%03d", i)) }
	cases := []struct {
		name string
		r    kv.ScanRange
		want []kv.Row
	}{
		{"all", kv.ScanRange{}, all},
		{"all-reverse", kv.ScanRange{Reverse: true}, rev(all)},
		{"start", kv.ScanRange{Start: k(15)}, all[15:]},
		{"stop", kv.ScanRange{Stop: k(5)}, all[:5]},
		{"start-stop", kv.ScanRange{Start: k(3), Stop: k(8)}, all[3:8]},
		{"start-stop-reverse", kv.ScanRange{Start: k(3), Stop: k(8), Reverse: true}, rev(all[3:8])},
		{"start-reverse", kv.ScanRange{Start: k(17), Reverse: true}, rev(all[17:])},
		{"stop-reverse", kv.ScanRange{Stop: k(2), Reverse: true}, rev(all[:2])},
		{"between-rows", kv.ScanRange{Start: []byte("row0045"), Stop: []byte("row0075")}, all[5:8]},
		{"before-first", kv.ScanRange{Start: []byte("a"), Stop: []byte("row001")}, all[:1]},
		{"after-last", kv.ScanRange{Start: []byte("s")}, nil},
		{"empty", kv.ScanRange{Start: k(4), Stop: k(4)}, nil},
		{"inverted", kv.ScanRange{Start: k(9), Stop: k(4)}, nil},
		{"inverted-reverse", kv.ScanRange{Start: k(9), Stop: k(4), Reverse: true}, nil},
		// Limit is a hint: it never truncates a scan.
		{"limit-hint", kv.ScanRange{Start: k(2), Limit: 3}, all[2:]},
		{"limit-hint-reverse", kv.ScanRange{Stop: k(10), Limit: 1, Reverse: true}, rev(all[:10])},
	}
	for _, c := range cases {
		checkRows(t, "Scan "+c.name+" ("+fmtRange(c.r)+")", h.scan(ts, c.r), c.want)
	}

	// Reading only the first rows and closing early is fine.
	it, err := h.kv.Scan(h.ctx, ts, kv.ScanRange{Limit: 2})
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	for i := range 2 {
		r, ok := it.Next(h.ctx)
		if !ok || !rowEqual(r, all[i]) {
			t.Errorf("limited scan row %d: got %s (ok=%v), want %s", i, fmtRow(r), ok, fmtRow(all[i]))
		}
	}
	if err := it.Close(); err != nil {
		t.Errorf("Close after partial scan: %v", err)
	}
}

// testScanStraddle uses row keys of different lengths (prefix-free, as the
// engine makes them; every row key in this suite is) and bounds that extend
// a row key, as paging does.
func testScanStraddle(t *testing.T, h *harness) {
	ts := h.table("straddle")
	keys := []string{"a\x00", "ab\x00", "abc\x00", "b\x00"}
	var all []kv.Row
	for _, k := range keys {
		cs := []kv.Cell{cell("", baseTS, live("")), cell("\x01x", baseTS, live(k)), cell("\xffz", baseTS, live(k))}
		h.apply(mut(ts, k, cs...))
		all = append(all, row(k, cs...))
	}
	succ := func(k string) []byte { return []byte(k + "\x00") } // smallest key after k
	cases := []struct {
		name string
		r    kv.ScanRange
		want []kv.Row
	}{
		{"after-first", kv.ScanRange{Start: succ("a\x00")}, all[1:]},
		{"after-second", kv.ScanRange{Start: succ("ab\x00")}, all[2:]},
		{"through-second", kv.ScanRange{Stop: succ("ab\x00")}, all[:2]},
		{"through-second-reverse", kv.ScanRange{Stop: succ("ab\x00"), Reverse: true}, []kv.Row{all[1], all[0]}},
		{"after-first-reverse", kv.ScanRange{Start: succ("a\x00"), Reverse: true}, []kv.Row{all[3], all[2], all[1]}},
		{"only-third", kv.ScanRange{Start: succ("ab\x00"), Stop: succ("abc\x00")}, all[2:3]},
		{"only-third-reverse", kv.ScanRange{Start: succ("ab\x00"), Stop: succ("abc\x00"), Reverse: true}, all[2:3]},
		// Bounds that fall between a row's own cells in a concatenated layout.
		{"mid-first", kv.ScanRange{Stop: []byte("a\x00\x01")}, all[:1]},
		{"mid-first-reverse", kv.ScanRange{Stop: []byte("a\x00\x01"), Reverse: true}, all[:1]},
		{"from-mid-first", kv.ScanRange{Start: []byte("a\x00\x01")}, all[1:]},
		{"from-mid-first-reverse", kv.ScanRange{Start: []byte("a\x00\x01"), Reverse: true}, []kv.Row{all[3], all[2], all[1]}},
		{"prefix-a", kv.ScanRange{Start: []byte("a"), Stop: []byte("b")}, all[:3]},
		{"prefix-ab-reverse", kv.ScanRange{Start: []byte("ab"), Stop: []byte("ac"), Reverse: true}, []kv.Row{all[2], all[1]}},
	}
	for _, c := range cases {
		checkRows(t, "Scan "+c.name+" ("+fmtRange(c.r)+")", h.scan(ts, c.r), c.want)
	}
}

func testIsolation(t *testing.T, h *harness) {
	t1, t2 := h.table("iso1"), h.table("iso2")
	for i := range 5 {
		k := fmt.Sprintf("k%d", i)
		h.apply(mut(t1, k, cell("c", baseTS, live("t1"))), mut(t2, k, cell("c", baseTS, live("t2"))))
	}
	check := func(what string, ts *kv.TableSpec, n int, val string) {
		t.Helper()
		for _, rev := range []bool{false, true} {
			rows := h.scan(ts, kv.ScanRange{Reverse: rev})
			if len(rows) != n {
				t.Errorf("%s: scan %s (reverse=%v): got %d rows, want %d: %s", what, ts.Name, rev, len(rows), n, fmtRows(rows))
			}
			for _, r := range rows {
				if len(r.Cells) != 1 || !bytes.Equal(r.Cells[0].Value, live(val)) {
					t.Errorf("%s: scan %s: got %s, want only %q cells", what, ts.Name, fmtRow(r), val)
				}
			}
		}
	}
	check("both", t1, 5, "t1")
	check("both", t2, 5, "t2")
	if err := h.kv.TruncateTable(h.ctx, t1); err != nil {
		t.Fatalf("TruncateTable: %v", err)
	}
	check("after truncating iso1", t1, 0, "t1")
	check("after truncating iso1", t2, 5, "t2")
	if got := h.get(t2, "k3"); len(got[0].Cells) != 1 {
		t.Errorf("get iso2 after truncating iso1: got %s, want 1 cell", fmtRow(got[0]))
	}
}

func testMeta(t *testing.T, h *harness) {
	key := "kvtest/" + h.run
	if v, err := h.kv.GetMeta(h.ctx, key); err != nil || v != nil {
		t.Fatalf("GetMeta(missing): got %q, %v; want nil, nil", v, err)
	}
	for _, val := range [][]byte{[]byte("v1"), bytes.Repeat([]byte{0, 1, 2}, 1000)} {
		if err := h.kv.PutMeta(h.ctx, key, val); err != nil {
			t.Fatalf("PutMeta: %v", err)
		}
		got, err := h.kv.GetMeta(h.ctx, key)
		if err != nil || !bytes.Equal(got, val) {
			t.Errorf("GetMeta after PutMeta: got %d bytes (%v), want %d bytes", len(got), err, len(val))
		}
	}
	// Meta keys are not table data.
	ts := h.table("meta")
	checkRows(t, "scan of a table after PutMeta", h.scan(ts, kv.ScanRange{}), nil)
	if v, err := h.kv.GetMeta(h.ctx, key+"-other"); err != nil || v != nil {
		t.Errorf("GetMeta(other key): got %q, %v; want nil, nil", v, err)
	}
}

func testCancel(t *testing.T, h *harness) {
	ts := h.table("cancel")
	for i := range 3 {
		h.apply(mut(ts, fmt.Sprintf("k%d", i), cell("c", baseTS, live("v"))))
	}
	done, cancel := context.WithCancel(h.ctx)
	cancel()
	isCtx := func(err error) bool {
		return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
	}
	if err := h.kv.Apply(done, []kv.Mutation{mut(ts, "k9", cell("c", baseTS, live("v")))}); !isCtx(err) {
		t.Errorf("Apply with cancelled ctx: got %v, want context.Canceled", err)
	}
	if got := h.get(ts, "k9"); len(got[0].Cells) != 0 {
		t.Errorf("Apply with cancelled ctx wrote %s", fmtRow(got[0]))
	}
	if _, err := h.kv.Get(done, ts, [][]byte{[]byte("k1")}); !isCtx(err) {
		t.Errorf("Get with cancelled ctx: got %v, want context.Canceled", err)
	}
	if it, err := h.kv.Scan(done, ts, kv.ScanRange{}); err == nil {
		_, ok := it.Next(done)
		if ok || !isCtx(it.Err()) {
			t.Errorf("Scan with cancelled ctx: Next ok=%v, Err=%v; want false, context.Canceled", ok, it.Err())
		}
		_ = it.Close()
	} else if !isCtx(err) {
		t.Errorf("Scan with cancelled ctx: got %v, want context.Canceled", err)
	}

	// Cancelling between rows stops the scan with the ctx error.
	ctx, stop := context.WithCancel(h.ctx)
	defer stop()
	it, err := h.kv.Scan(ctx, ts, kv.ScanRange{})
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	defer it.Close()
	if _, ok := it.Next(ctx); !ok {
		t.Fatalf("first Next: got false (%v), want a row", it.Err())
	}
	stop()
	if r, ok := it.Next(ctx); ok || !isCtx(it.Err()) {
		t.Errorf("Next after cancel: got %s ok=%v Err=%v; want false, context.Canceled", fmtRow(r), ok, it.Err())
	}
}
