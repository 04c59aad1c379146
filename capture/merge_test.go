package capture

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// writeNode captures records for one node with the given arrival offsets
// (in µs from t0), observed in slice order; it rotates every rotateEvery
// records.
func writeNode(t *testing.T, dir, node string, offsets []int, rotateEvery int) {
	t.Helper()
	cfg := WriterConfig{Dir: dir, NodeID: node, Clock: newFakeClock().Now}
	w := newWriter(t, cfg)
	t0 := time.Unix(1_700_000_000, 0)
	for i, off := range offsets {
		w.Observe(ycsbRead(uint64(i%3), uint64(i), t0.Add(time.Duration(off)*time.Microsecond), node))
		if rotateEvery > 0 && i%rotateEvery == rotateEvery-1 {
			if err := w.Rotate(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
	}
	closeWriter(t, w)
}

func mergeAll(t *testing.T, opts MergeOptions, paths ...string) ([]*Record, *Merger) {
	t.Helper()
	m, err := NewMerger(context.Background(), opts, paths...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	var out []*Record
	for {
		r, err := m.Next()
		if err == io.EOF {
			return out, m
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
}

func TestMergeAcrossNodes(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	mk := func(n int) []int {
		out := make([]int, n)
		at := 0
		for i := range out {
			at += rng.IntN(50)
			out[i] = at
		}
		// Completion order differs from arrival order by up to 200µs.
		for i := range out {
			j := min(len(out)-1, i+rng.IntN(3))
			if out[j]-out[i] < 200 {
				out[i], out[j] = out[j], out[i]
			}
		}
		return out
	}
	a, b, c := mk(500), mk(400), mk(300)
	c[10] = a[10] // equal times across nodes: ties break by node
	writeNode(t, dir, "a", a, 120)
	writeNode(t, dir, "b", b, 0)
	writeNode(t, dir, "c-1", c, 50)

	recs, m := mergeAll(t, MergeOptions{}, dir)
	if len(recs) != 1200 {
		t.Fatalf("merged %d records, want 1200", len(recs))
	}
	for i := 1; i < len(recs); i++ {
		if recs[i].less(recs[i-1]) {
			t.Fatalf("record %d (%d %s %d/%d) before record %d (%d %s %d/%d)", i,
				recs[i].Time, recs[i].Node, recs[i].Session, recs[i].Seq, i-1,
				recs[i-1].Time, recs[i-1].Node, recs[i-1].Session, recs[i-1].Seq)
		}
	}
	nodes := map[string]int{}
	for _, r := range recs {
		nodes[r.Node]++
		if string(r.Values[0].Bytes) != r.Node {
			t.Fatalf("record of node %s carries value %q", r.Node, r.Values[0].Bytes)
		}
	}
	if nodes["a"] != 500 || nodes["b"] != 400 || nodes["c-1"] != 300 {
		t.Errorf("records per node = %v", nodes)
	}
	if got := len(m.Headers()); got != 5+1+6 {
		t.Errorf("headers of %d segments, want 12", got)
	}

	// Without a window, disorder inside a node passes through; with sorted
	// inputs the result is the same as with a window.
	sorted := t.TempDir()
	writeNode(t, sorted, "x", []int{1, 5, 9}, 0)
	writeNode(t, sorted, "y", []int{2, 5, 7}, 0)
	recs, _ = mergeAll(t, MergeOptions{Window: -1}, sorted)
	var got []string
	for _, r := range recs {
		got = append(got, r.Node)
	}
	if strings.Join(got, "") != "xyxyyx" {
		t.Errorf("merge order = %v, want xyxyyx", got)
	}
}

func TestMergeReportsTorn(t *testing.T) {
	dir := t.TempDir()
	writeNode(t, dir, "a", []int{1, 2, 3}, 0)
	segs, _ := ReadDir(dir)
	data := mustRead(t, segs[0].Path)
	if err := os.WriteFile(segs[0].Path, data[:len(data)-3], 0o600); err != nil {
		t.Fatal(err)
	}
	recs, m := mergeAll(t, MergeOptions{}, segs[0].Path)
	if len(recs) != 3 || len(m.Torn()) != 1 {
		t.Errorf("records=%d torn=%v, want 3 records and one torn segment", len(recs), m.Torn())
	}
}

func TestInspectAndVerify(t *testing.T) {
	dir := t.TempDir()
	cfg := WriterConfig{Dir: dir, NodeID: "n1", DohyoVersion: "v9"}
	w := newWriter(t, cfg)
	t0 := time.Unix(1_700_000_000, 0)
	for i := 0; i < 100; i++ {
		w.Observe(ycsbRead(uint64(i%4), uint64(i), t0.Add(time.Duration(i)*time.Millisecond), "k"))
	}
	w.Observe(&bindings.Observation{Time: t0, Session: 9, Keyspace: "ks", Query: "INSERT INTO t (a) VALUES (1)",
		Source: bindings.SourceGraphQL, Err: true, ErrCode: bindings.CodeInvalid})
	w.Observe(&bindings.Observation{Time: t0, Session: 9, Keyspace: "ks", Query: "INSERT INTO t (a) VALUES (2)",
		Source: bindings.SourceGraphQL})
	// A driver's probe answered Invalid by design is not an error.
	w.Observe(&bindings.Observation{Time: t0, Session: 9, Keyspace: "system", Query: "SELECT * FROM system.peers_v2",
		Source: bindings.SourceGraphQL, Err: true, ErrCode: bindings.CodeInvalid})
	closeWriter(t, w)

	s, err := Inspect(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.Records != 103 || s.Sessions != 5 || s.Segments != 1 || s.Torn != 0 || s.Unclosed != 0 {
		t.Errorf("summary = %+v", s)
	}
	if len(s.Statements) != 3 || s.Statements[0].Count != 100 ||
		s.Statements[1].Fingerprint != cql.Fingerprint("INSERT INTO t (a) VALUES (3)") || s.Statements[1].Count != 2 ||
		s.Statements[1].Errors != 1 || s.Statements[1].ErrCodes[bindings.CodeInvalid] != 1 ||
		s.Statements[2].Probes != 1 || s.Statements[2].Errors != 0 {
		t.Errorf("statements = %+v", s.Statements)
	}
	if s.Span() != 99*time.Millisecond || s.Errors != 1 || s.Probes != 1 || s.ErrCodes[bindings.CodeInvalid] != 1 ||
		s.Sources[bindings.SourceGraphQL] != 3 || s.Versions[0] != "v9" {
		t.Errorf("summary = %+v", s)
	}
	if s.BytesPerRecord <= 0 || s.CompressionRatio <= 1 {
		t.Errorf("bytes/record %.1f, ratio %.2f", s.BytesPerRecord, s.CompressionRatio)
	}

	rep, err := Verify(context.Background(), dir)
	if err != nil || !rep.OK() || rep.Records != 103 || !rep.Segments[0].Closed {
		t.Fatalf("verify = %+v, %v", rep, err)
	}
	// A torn copy is OK but flagged; a corrupted copy is not OK.
	path := onlySegment(t, dir)
	data := mustRead(t, path)
	torn := strings.Replace(path, "-000000", "-000001", 1)
	os.WriteFile(torn, data[:len(data)-30], 0o600)
	rep, _ = Verify(context.Background(), torn)
	if c := rep.Segments[0]; !c.OK() || !c.Torn || c.Closed {
		t.Errorf("torn segment check = %+v", c)
	}
	bad := append([]byte(nil), data...)
	bad[len(bad)/2] ^= 0xff
	os.WriteFile(torn, bad, 0o600)
	rep, _ = Verify(context.Background(), torn)
	if c := rep.Segments[0]; c.OK() || c.Err == nil {
		t.Errorf("corrupt segment check = %+v", c)
	}
}

func TestDump(t *testing.T) {
	rec := &Record{
		Time: 1_700_000_000_123_456_789, Node: "n1", Session: 3, Seq: 4, Source: bindings.SourceCQL,
		Keyspace: "ks", Query: "INSERT INTO users (id, name, tags) VALUES (?, ?, ?) USING TTL ?",
		Fingerprint: "fp", Prepared: true, Consistency: bindings.Quorum,
		Values: []Value{{Bytes: []byte{0, 0, 0, 42}}, {Bytes: []byte("o'neil")}, {Unset: true},
			{Bytes: []byte{0, 0, 0, 60}}},
		Latency: 1500, ResultKind: bindings.ResultVoid,
	}
	var b bytes.Buffer
	if err := DumpJSON(&b, rec); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b.Bytes(), &m); err != nil {
		t.Fatalf("not JSON: %v: %s", err, b.String())
	}
	vals, _ := json.Marshal(m["values"])
	if want := `["0x0000002a","0x6f276e65696c",{"unset":true},"0x0000003c"]`; string(vals) != want {
		t.Errorf("untyped values = %s, want %s", vals, want)
	}
	if m["time"] != "2023-11-14T22:13:20.123456789Z" || m["consistency"] != "QUORUM" || m["result"] != "void" {
		t.Errorf("dump = %s", b.String())
	}

	d := NewDumper(&b)
	d.SetSchema("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\n" +
		"CREATE TABLE ks.users (id int PRIMARY KEY, name text, tags set<text>);")
	b.Reset()
	if err := d.Dump(rec); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(b.Bytes(), &m)
	vals, _ = json.Marshal(m["values"])
	if want := `["42","'o''neil'",{"unset":true},"60"]`; string(vals) != want {
		t.Errorf("typed values = %s, want %s", vals, want)
	}
}
