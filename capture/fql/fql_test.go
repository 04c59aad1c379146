package fql

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/capture"
)

// The files under testdata were written by a real Cassandra 5.0.9 with the
// full query log enabled through nodetool: cqlsh-v5 by cqlsh (protocol
// v5), mix by TestFQLImportCassandra's gocql mix (protocol v4), python-v5
// by cqlsh and the Python driver (a batch and a statement with null and
// unset values), rolled by cqlsh across a minute with the MINUTELY roll
// cycle (the first file ends with Chronicle's end-of-data marker). They
// are cut after their last entry (the files Cassandra writes are sparse
// and 80 MiB long).
const (
	cqlshDir  = "testdata/cqlsh-v5"
	mixDir    = "testdata/mix"
	pythonDir = "testdata/python-v5"
	rolledDir = "testdata/rolled"
)

func find(t *testing.T, es []*Entry, substr string) *Entry {
	t.Helper()
	for _, e := range es {
		if strings.Contains(e.Query, substr) || (len(e.Queries) > 0 && strings.Contains(e.Queries[0], substr)) {
			return e
		}
	}
	t.Fatalf("no entry with %q", substr)
	return nil
}

func TestReadCqlshV5(t *testing.T) {
	es, st := readAll(t, cqlshDir)
	if st.Entries != 30 || st.Decoded != 30 || st.SkippedTotal() != 0 || len(st.Tails) != 0 {
		t.Fatalf("stats %+v; want 30 entries, all decoded, no tails", st)
	}
	e := find(t, es, "INSERT INTO k1.t (k,v) VALUES (1,'hello')")
	if e.ProtocolVersion != 5 || e.Type != TypeSingle || e.Keyspace != "" || e.Options.Consistency != bindings.One {
		t.Errorf("entry %+v; want v5 single query, no keyspace, ONE", e)
	}
	if e.GeneratedTimestamp != noValue || !e.Options.HasTimestamp || e.Options.PageSize != 100 {
		t.Errorf("timestamps/page size: generated %d, client %d (%v), page %d", e.GeneratedTimestamp, e.Options.Timestamp, e.Options.HasTimestamp, e.Options.PageSize)
	}
	if e.StartTime < 1_700_000_000_000 || e.Options.Timestamp/1000 > e.StartTime+10 || e.Options.Timestamp/1000 < e.StartTime-1000 {
		t.Errorf("start %d ms vs client timestamp %d µs", e.StartTime, e.Options.Timestamp)
	}
	ddl := find(t, es, "CREATE TABLE IF NOT EXISTS k1.t")
	if ddl.GeneratedNowInSeconds != noValue {
		t.Errorf("DDL now-in-seconds %d, want none", ddl.GeneratedNowInSeconds)
	}
}

func TestReadMix(t *testing.T) {
	es, st := readAll(t, mixDir)
	if st.SkippedTotal() != 0 || len(st.Tails) != 0 || st.Decoded != st.Entries || st.Entries < 60 {
		t.Fatalf("stats %+v", st)
	}
	for _, e := range es {
		if e.ProtocolVersion != 4 {
			t.Fatalf("protocol version %d, want 4 (gocql)", e.ProtocolVersion)
		}
	}
	// A prepared statement: its text and its bound values.
	e := find(t, es, ".kv (k, v, n) VALUES (?, ?, ?)")
	if len(e.Options.Values) != 3 || len(e.Options.Values[0].Bytes) != 4 || len(e.Options.Values[2].Bytes) != 8 {
		t.Errorf("values %+v; want int, text, bigint", e.Options.Values)
	}
	var null *Entry
	for _, e := range es {
		if len(e.Options.Values) == 3 && bytes.Equal(e.Options.Values[0].Bytes, []byte{0, 0, 0, 21}) {
			null = e
		}
	}
	if null == nil || null.Options.Values[1].Bytes != nil || null.Options.Values[1].Unset {
		t.Errorf("the null value was not read as null: %+v", null)
	}
	// gocql's UnsetValue (k = 22): logged as an empty value.
	var unset *Entry
	for _, e := range es {
		if len(e.Options.Values) == 3 && bytes.Equal(e.Options.Values[0].Bytes, []byte{0, 0, 0, 22}) {
			unset = e
		}
	}
	if unset == nil || unset.Options.Values[1].Bytes == nil || len(unset.Options.Values[1].Bytes) != 0 {
		t.Errorf("the unset value was not logged as empty: %+v", unset)
	}
	var clientTS bool
	for _, e := range es {
		clientTS = clientTS || (e.Options.HasTimestamp && e.Options.Timestamp == 1_600_000_000_000_000)
	}
	if !clientTS {
		t.Error("no entry with the client timestamp 1600000000000000")
	}
	// Batches: type, children's texts (a literal child has no values).
	var logged, counter *Entry
	for _, e := range es {
		switch {
		case e.Type == TypeBatch && e.BatchType == "LOGGED":
			logged = e
		case e.Type == TypeBatch && e.BatchType == "COUNTER":
			counter = e
		}
	}
	if logged == nil || len(logged.Queries) != 4 || len(logged.Values[0]) != 3 || len(logged.Values[2]) != 0 ||
		!strings.Contains(logged.Queries[2], "'b3-literal'") {
		t.Fatalf("logged batch %+v", logged)
	}
	if counter == nil || len(counter.Queries) != 2 {
		t.Fatalf("counter batch %+v", counter)
	}
	// The keyspace of a session with one.
	ks := find(t, es, "INSERT INTO kv (k, v, n) VALUES (31")
	if !strings.HasPrefix(ks.Keyspace, "fql") {
		t.Errorf("keyspace %q, want the session's", ks.Keyspace)
	}
	// The paged read: page size 2, and later pages carry a paging state.
	var pages, withState int
	for _, e := range es {
		if strings.Contains(e.Query, "FROM") && strings.Contains(e.Query, ".ck WHERE p = ?") {
			pages++
			if e.Options.PageSize != 2 {
				t.Errorf("page size %d, want 2", e.Options.PageSize)
			}
			if e.Options.PagingState != nil {
				withState++
			}
		}
	}
	if pages != 4 || withState != 3 {
		t.Errorf("paged read: %d pages, %d with a paging state; want 4, 3", pages, withState)
	}
	// LWTs carry a serial consistency only when it is not SERIAL.
	lwt := find(t, es, "IF NOT EXISTS")
	if lwt.Options.Flags&0x10 != 0 && lwt.Options.SerialConsistency != bindings.LocalSerial {
		t.Errorf("serial consistency %v", lwt.Options.SerialConsistency)
	}
}

func TestRecords(t *testing.T) {
	es, _ := readAll(t, mixDir)
	for _, e := range es {
		recs := e.Records()
		if e.Type == TypeBatch {
			if len(recs) != len(e.Queries) {
				t.Fatalf("%d records for a batch of %d", len(recs), len(e.Queries))
			}
			for i, r := range recs {
				if r.BatchIndex != i || r.BatchSize != len(e.Queries) || r.BatchType != batchTypes[e.BatchType] {
					t.Errorf("batch child %d: %+v", i, r)
				}
				if r.Timestamp != e.Options.Timestamp || !r.HasTimestamp {
					t.Errorf("batch child timestamp %d, want %d", r.Timestamp, e.Options.Timestamp)
				}
			}
			continue
		}
		r := recs[0]
		if r.Time != e.StartTime*1e6 || r.Query != e.Query || r.Prepared != (len(e.Options.Values) > 0) || r.Consistency != e.Options.Consistency {
			t.Errorf("record %+v from %+v", r, e)
		}
		if (e.Options.PagingState != nil) != r.Paging {
			t.Errorf("paging %v with paging state %x", r.Paging, e.Options.PagingState)
		}
	}
}

func TestImportIntoCapture(t *testing.T) {
	ctx := context.Background()
	m, err := Merge(ctx, 0, mixDir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	cfg := capture.DefaultWriterConfig()
	cfg.Dir, cfg.NodeID = filepath.Join(t.TempDir(), "cap"), "fql"
	w, err := capture.NewWriter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	st, err := Import(ctx, m, w, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if st.Entries != m.Stats().Decoded || st.Batches != 3 || st.Records != st.Entries+4+4+2-3 {
		t.Fatalf("import stats %+v (entries read %d)", st, m.Stats().Decoded)
	}
	cm, err := capture.Merge(ctx, cfg.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer cm.Close()
	var n uint64
	var last int64
	for {
		r, err := cm.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
		if r.Time < last {
			t.Fatalf("record %d at %d before %d", n, r.Time, last)
		}
		last = r.Time
		if r.Session != 1 || r.Seq != n || r.Fingerprint == "" {
			t.Fatalf("record %d: session %d seq %d fingerprint %q", n, r.Session, r.Seq, r.Fingerprint)
		}
	}
	if n != st.Records {
		t.Fatalf("read back %d records, wrote %d", n, st.Records)
	}
}

func TestMergeNodes(t *testing.T) {
	m, err := Merge(context.Background(), 0, cqlshDir, cqlshDir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var prev *Sourced
	counts := map[int]int{}
	for {
		e, err := m.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		counts[e.Source]++
		if prev != nil && less(e, prev) {
			t.Fatalf("out of order: %d/%d/%d after %d/%d/%d", e.StartTime, e.Source, e.Seq, prev.StartTime, prev.Source, prev.Seq)
		}
		prev = e
	}
	if counts[0] != 30 || counts[1] != 30 || m.Stats().Entries != 60 {
		t.Fatalf("per node %v, stats %+v", counts, m.Stats())
	}
}

// TestTruncated cuts a real file at every offset inside its last entries:
// the entries before the cut are read, the tail is reported, never an
// error.
func TestTruncated(t *testing.T) {
	b := mustRead(t, filepath.Join(cqlshDir, "20261207-03.cq4"))
	full, _ := readAll(t, cqlshDir)
	prevAt, lastAt := full[len(full)-2].Offset, full[len(full)-1].Offset
	prevEnd := prevAt + 4 + int64(binary.LittleEndian.Uint32(b[prevAt:])&hdrLengthMask)
	for cut := prevAt + 1; cut < int64(len(b)); cut++ {
		dir := writeFile(t, "20261207-03.cq4", b[:cut])
		es, st := readAll(t, dir)
		want := len(full) - 2
		if cut >= prevEnd {
			want++
		}
		if len(es) != want {
			t.Fatalf("cut at %d: %d entries, want %d", cut, len(es), want)
		}
		if cut >= prevEnd && cut <= lastAt {
			// Cut between entries: indistinguishable from a clean end.
			continue
		}
		if len(st.Tails) != 1 || st.Tails[0].State != tailTruncated.String() {
			t.Fatalf("cut at %d: tails %+v", cut, st.Tails)
		}
	}
}

// TestIncompleteTail marks the last entry as still being written (a live
// log): it is not read, and the tail says why.
func TestIncompleteTail(t *testing.T) {
	b := mustRead(t, filepath.Join(cqlshDir, "20261207-03.cq4"))
	full, _ := readAll(t, cqlshDir)
	at := full[len(full)-1].Offset
	b = append([]byte(nil), b...)
	h := binary.LittleEndian.Uint32(b[at:])
	binary.LittleEndian.PutUint32(b[at:], h|hdrNotComplete)
	es, st := readAll(t, writeFile(t, "x.cq4", b))
	if len(es) != len(full)-1 || len(st.Tails) != 1 || st.Tails[0].State != tailIncomplete.String() || st.Tails[0].Offset != at {
		t.Fatalf("%d entries, tails %+v", len(es), st.Tails)
	}
}

// TestFlippedBytes flips bytes of a real file: never a panic; entries
// that no longer decode are counted with an example naming the offset.
func TestFlippedBytes(t *testing.T) {
	b := mustRead(t, filepath.Join(cqlshDir, "20261207-03.cq4"))
	full, _ := readAll(t, cqlshDir)
	rng := rand.New(rand.NewSource(1))
	var skipped uint64
	for i := 0; i < 300; i++ {
		c := append([]byte(nil), b...)
		for j := 0; j < 1+rng.Intn(3); j++ {
			p := int(full[0].Offset) + rng.Intn(len(c)-int(full[0].Offset))
			c[p] ^= byte(1 + rng.Intn(255))
		}
		es, st := readAll(t, writeFile(t, "x.cq4", c))
		if uint64(len(es)) != st.Decoded || st.Decoded+st.SkippedTotal() != st.Entries {
			t.Fatalf("counts do not add up: %+v", st)
		}
		skipped += st.SkippedTotal()
		for reason, ex := range st.Examples {
			if !strings.Contains(ex, "at offset") {
				t.Fatalf("%s: example %q names no offset", reason, ex)
			}
		}
	}
	if skipped == 0 {
		t.Fatal("no flipped byte made an entry undecodable")
	}
}

func TestSkipReasons(t *testing.T) {
	audit := (&docWriter{}).field(fieldVersion).int64v(0).field(fieldType).text("audit").field("message").text("x").b
	good := singleDoc(1000, "SELECT * FROM t WHERE k = ?")
	// A field from a newer Cassandra, holding a list (a count and bare
	// values), in the middle of an entry: skipped.
	future := singleDoc(2000, "SELECT 2").field("future-list").int64v(2).text("a").bytes([]byte{1}).
		field("future-number").int64v(1 << 40)
	badOpts := (&docWriter{}).field(fieldVersion).int64v(0).field(fieldType).text(TypeSingle).
		field(fieldStartTime).int64v(3).field(fieldProtocolVersion).int64v(4).
		field(fieldQueryOptions).bytes([]byte{0, 1, 0x01, 0, 9}).field(fieldQuery).text("x")
	v2 := (&docWriter{}).field(fieldType).text(TypeSingle).field(fieldStartTime).int64v(3).
		field(fieldProtocolVersion).int64v(2).field(fieldQueryOptions).bytes([]byte{0, 1, 0}).field(fieldQuery).text("x")
	noQuery := (&docWriter{}).field(fieldType).text(TypeSingle).field(fieldStartTime).int64v(3).
		field(fieldProtocolVersion).int64v(4).field(fieldQueryOptions).bytes([]byte{0, 1, 0})
	garbage := []byte{0xC4, 't', 'y', 'p', 'e', 0x8B, 0x01}
	dir := writeFile(t, "a.cq4", queueBytes(audit, good.b, future.b, badOpts.b, v2.b, noQuery.b, garbage))
	es, st := readAll(t, dir)
	if len(es) != 2 || es[0].Query != "SELECT * FROM t WHERE k = ?" || es[1].Query != "SELECT 2" {
		t.Fatalf("entries %+v", es)
	}
	if v := es[0].Options.Values; len(v) != 1 || !bytes.Equal(v[0].Bytes, []byte{0, 0, 0, 7}) || !es[0].Options.HasTimestamp || es[0].Options.Timestamp != 42 {
		t.Fatalf("options %+v", es[0].Options)
	}
	want := map[string]uint64{"unknown type audit": 1, "bad query options": 1, "protocol version 2": 1, "malformed entry": 2}
	for k, v := range want {
		if st.Skipped[k] != v {
			t.Errorf("skipped[%q] = %d, want %d (all: %v)", k, st.Skipped[k], v, st.Skipped)
		}
	}
	if st.Entries != 7 {
		t.Errorf("entries %d, want 7", st.Entries)
	}
}

func TestWireNumbers(t *testing.T) {
	cases := []struct {
		b    []byte
		want int64
	}{
		{[]byte{0x05}, 5},
		{[]byte{codeUint8, 0xFF}, 255},
		{[]byte{codeInt16, 0x00, 0x80}, -32768},
		{[]byte{codeUint16, 0xFF, 0xFF}, 65535},
		{[]byte{codeInt32, 0xFF, 0xFF, 0xFF, 0xFF}, -1},
		{[]byte{codeUint32, 0xFF, 0xFF, 0xFF, 0xFF}, 1<<32 - 1},
		{[]byte{codeInt8, 0xFE}, -2},
		{[]byte{codeFloat32, 0, 0, 0, 0xDF}, noValue}, // Long.MIN_VALUE as Chronicle writes it
		{[]byte{codeFloat32, 0, 0, 0x80, 0x3F}, 1},    // 1.0f
		{[]byte{codeFloat64, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F}, 1},
		{[]byte{codePadding, codeInt64, 1, 0, 0, 0, 0, 0, 0, 0}, 1},
	}
	for _, c := range cases {
		r := &wireReader{b: c.b}
		got, err := r.int64v()
		if err != nil || got != c.want {
			t.Errorf("%x: %d, %v; want %d", c.b, got, err, c.want)
		}
	}
	for _, b := range [][]byte{{codeFloat32, 0, 0, 0xC0, 0x3F}, {codeInt64, 1}, {codeStringAny}} {
		if _, err := (&wireReader{b: b}).int64v(); err == nil {
			t.Errorf("%x: no error", b)
		}
	}
}

// TestMergeHoldsBounded: a log whose start times stall (every entry in
// the same millisecond) is not held in memory whole.
func TestMergeHoldsBounded(t *testing.T) {
	doc := singleDoc(5, "SELECT 1").b
	docs := make([][]byte, maxHeld+100)
	for i := range docs {
		docs[i] = doc
	}
	dir := writeFile(t, "a.cq4", queueBytes(docs...))
	m, err := Merge(context.Background(), 0, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var n uint64
	for {
		e, err := m.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
		if e.Seq != n || m.m.Held() > maxHeld {
			t.Fatalf("entry %d has seq %d; %d held", n, e.Seq, m.m.Held())
		}
	}
	if n != uint64(len(docs)) {
		t.Fatalf("%d entries, want %d", n, len(docs))
	}
}

// TestNullAndUnset: Cassandra logs null as null and unset as an empty
// value (its encoder has no unset), in batches and single statements;
// EmptyAsUnset turns the empties back into unset.
func TestNullAndUnset(t *testing.T) {
	es, st := readAll(t, pythonDir)
	if st.SkippedTotal() != 0 || len(st.Tails) != 0 {
		t.Fatalf("stats %+v", st)
	}
	var batch, single *Entry
	for _, e := range es {
		if e.Type == TypeBatch {
			batch = e
		}
		if e.Query == "INSERT INTO nb.t (k, v, w) VALUES (?, ?, ?)" {
			single = e
		}
	}
	if batch == nil || single == nil || batch.ProtocolVersion != 5 || batch.Keyspace != "" {
		t.Fatalf("batch %+v, single %+v", batch, single)
	}
	// Batch (1, null, 'x'), (2, 'y', unset); single (3, null, unset).
	if v := batch.Values[0][1]; v.Bytes != nil || v.Unset {
		t.Errorf("batch null: %+v", v)
	}
	if v := batch.Values[1][2]; v.Bytes == nil || len(v.Bytes) != 0 {
		t.Errorf("batch unset: %+v, want an empty value", v)
	}
	if v := single.Options.Values; v[1].Bytes != nil || v[2].Bytes == nil || len(v[2].Bytes) != 0 || v[2].Unset {
		t.Errorf("single null, unset: %+v", v)
	}
	recs := single.Records()
	if n := emptyToUnset(recs[0].Values); n != 1 || !recs[0].Values[2].Unset || recs[0].Values[1].Unset {
		t.Errorf("emptyToUnset: %d, %+v", n, recs[0].Values)
	}
}

// TestRolled reads a log of two cycle files, the first closed by the
// end-of-data marker Chronicle writes when it rolls.
func TestRolled(t *testing.T) {
	es, st := readAll(t, rolledDir)
	if st.Files != 2 || st.Entries != 32 || st.SkippedTotal() != 0 || len(st.Tails) != 0 {
		t.Fatalf("stats %+v", st)
	}
	var inserts []string
	for _, e := range es {
		if strings.HasPrefix(e.Query, "INSERT") {
			inserts = append(inserts, filepath.Base(e.File)+" "+e.Query)
		}
	}
	want := []string{
		"20261207-0419.cq4 INSERT INTO nb.t (k, v) VALUES (100, 'first minute');",
		"20261207-0420.cq4 INSERT INTO nb.t (k, v) VALUES (101, 'second minute');",
	}
	if strings.Join(inserts, "\n") != strings.Join(want, "\n") {
		t.Fatalf("inserts %q, want %q", inserts, want)
	}
}
