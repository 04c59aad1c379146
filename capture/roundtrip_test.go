package capture

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
)

// sampleObservations covers every field and encoding branch.
func sampleObservations() []*bindings.Observation {
	t0 := time.Date(2025, 3, 4, 5, 6, 7, 123456789, time.UTC)
	big := bytes.Repeat([]byte("0123456789abcdef"), 40) // entry > 127 bytes
	return []*bindings.Observation{
		{ // a prepared YCSB-like read
			Time: t0, Session: 1, Seq: 1, Source: bindings.SourceCQL, Keyspace: "ycsb",
			Query: "SELECT * FROM usertable WHERE y_id = ?", Prepared: true,
			Values:      []bindings.Value{{Bytes: []byte("user6284781860667377211")}},
			Consistency: bindings.One, Latency: 250 * time.Microsecond,
			ResultKind: bindings.ResultRows, Rows: 1, Digest: 0xdeadbeefcafebabe,
		},
		{ // nulls, unset, empty value, a large value, client timestamp
			Time: t0.Add(-3 * time.Millisecond), Session: 2, Seq: 7, Source: bindings.SourceCQL,
			Keyspace: "ks", Query: "INSERT INTO t (a, b, c, d, e) VALUES (?, ?, ?, ?, ?) USING TIMESTAMP ?",
			Values: []bindings.Value{{Bytes: []byte{0, 0, 0, 1}}, {Bytes: nil}, {Unset: true},
				{Bytes: []byte{}}, {Bytes: big}, {Bytes: []byte{0, 0, 0, 0, 0, 0, 0, 9}}},
			Consistency: bindings.LocalQuorum, SerialConsistency: bindings.LocalSerial,
			Timestamp: t0.UnixMicro() - 17, HasTimestamp: true, Latency: time.Millisecond,
		},
		{ // named values, paging, has more, graphql
			Time: t0.Add(time.Second), Session: 1, Seq: 2, Source: bindings.SourceGraphQL,
			Keyspace: "ks", Query: "SELECT * FROM t WHERE a = :a AND b > :b",
			Values:      []bindings.Value{{Bytes: []byte{1}}, {Bytes: []byte{2}}},
			Names:       []string{"a", "b"},
			Consistency: bindings.Quorum, PageSize: 100, PagingState: bytes.Repeat([]byte{9, 8, 7}, 100),
			ResultKind: bindings.ResultRows, Rows: 100, Digest: 1, HasMore: true, Latency: 3 * time.Millisecond,
		},
		{ // a batch child with an error outcome
			Time: t0.Add(2 * time.Second), Session: 3, Seq: 1, Source: bindings.SourceCQL, Keyspace: "ks",
			Query: "UPDATE t SET b = ? WHERE a = ?", Prepared: true,
			Values:     []bindings.Value{{Bytes: []byte("x")}, {Bytes: []byte{0, 0, 0, 2}}},
			BatchIndex: 1, BatchSize: 3, BatchType: 1, Consistency: bindings.Two,
			Err: true, ErrCode: bindings.CodeWriteTimeout, Latency: 2 * time.Second,
		},
		{ // error code 0 (ServerError), no values, no keyspace, negative page size
			Time: t0.Add(2 * time.Second), Session: 1 << 40, Seq: 1 << 50, Source: bindings.SourceCQL,
			Query: "USE ks", PageSize: -1, Err: true, ErrCode: bindings.CodeServerError,
		},
		{ // schema change result, same statement in another keyspace, seq going back
			Time: t0.Add(2*time.Second + 1), Session: 1, Seq: 1, Source: bindings.SourceCQL, Keyspace: "other",
			Query: "SELECT * FROM usertable WHERE y_id = ?", Prepared: true, Values: []bindings.Value{},
			ResultKind: bindings.ResultSchemaChange, Consistency: bindings.Any,
		},
		{ // empty names, batch index 0 of a LOGGED batch (type 0)
			Time: t0.Add(3 * time.Second), Session: 4, Seq: 3, Source: bindings.SourceCQL, Keyspace: "ks",
			Query: "DELETE FROM t WHERE a = ?", Values: []bindings.Value{{Bytes: []byte{1}}},
			Names: []string{}, BatchIndex: 0, BatchSize: 2, BatchType: 0, Consistency: bindings.One,
		},
	}
}

func TestRoundTrip(t *testing.T) {
	cfg := testConfig(t)
	w := newWriter(t, cfg)
	obs := sampleObservations()
	for round := 0; round < 3; round++ { // several frames, statements reused
		for _, o := range obs {
			w.Observe(o)
		}
		flushWriter(t, w)
	}
	closeWriter(t, w)

	recs, r := readSegment(t, onlySegment(t, cfg.Dir))
	if got, want := len(recs), 3*len(obs); got != want {
		t.Fatalf("got %d records, want %d", got, want)
	}
	for i, rec := range recs {
		want := wantRecord("node1", obs[i%len(obs)])
		if len(want.Values) == 0 {
			want.Values = nil // an empty value list reads back as nil
		}
		checkRecord(t, i, rec, want)
	}
	h := r.Header()
	if h.Node != "node1" || h.DohyoVersion != "test-1.0" || h.SchemaDDL != cfg.SchemaDDL ||
		h.Major != FormatMajor || h.Minor != FormatMinor || !h.Start.Equal(cfg.Clock()) {
		t.Errorf("header = %+v", h)
	}
	tr, ok := r.Trailer()
	if !ok {
		t.Fatal("no trailer after a clean close")
	}
	if tr.Records != uint64(len(recs)) || tr.Frames != 3 || tr.Dropped != 0 {
		t.Errorf("trailer = %+v, want %d records in 3 frames", tr, len(recs))
	}
	// 5 distinct (keyspace, text, prepared) statements + "other" keyspace.
	if tr.Statements != 7 {
		t.Errorf("trailer statements = %d, want 7 (interned once per segment)", tr.Statements)
	}
	if r.Torn() {
		t.Error("clean segment reported torn")
	}
	if recs[0].Query != recs[len(obs)].Query || recs[0].StatementID != recs[len(obs)].StatementID {
		t.Error("statement not interned across frames")
	}
	st := w.Stats()
	if st.Records != uint64(len(recs)) || st.Segments != 1 || st.Dropped != 0 || st.Statements != 7 {
		t.Errorf("stats = %+v", st)
	}
}

func TestObserveCopies(t *testing.T) {
	cfg := testConfig(t)
	w := newWriter(t, cfg)
	o := sampleObservations()[2]
	o.Values = []bindings.Value{{Bytes: []byte{1, 2, 3}}}
	o.Names = []string{"a"}
	o.PagingState = []byte{4, 5}
	want := wantRecord("node1", o)
	want.Values = []Value{{Bytes: []byte{1, 2, 3}}}
	want.Names = []string{"a"}
	want.PagingState = []byte{4, 5}
	w.Observe(o)
	// The coordinator may reuse its slices after Observe returns.
	o.Values[0].Bytes[0] = 99
	o.Names[0] = "zz"
	o.PagingState[0] = 99
	closeWriter(t, w)
	recs, _ := readSegment(t, onlySegment(t, cfg.Dir))
	if len(recs) != 1 {
		t.Fatalf("got %d records", len(recs))
	}
	checkRecord(t, 0, recs[0], want)
}

func TestSchemaChangeInStream(t *testing.T) {
	cfg := testConfig(t)
	w := newWriter(t, cfg)
	obs := sampleObservations()[0]
	w.Observe(obs)
	const ddl2 = "CREATE TABLE ks.t (k text PRIMARY KEY, v blob, w int);"
	w.SetSchema(ddl2)
	w.Observe(obs)
	closeWriter(t, w)

	r, err := Open(onlySegment(t, cfg.Dir))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var schemas []string
	for {
		_, err := r.Next()
		if err != nil {
			break
		}
		schemas = append(schemas, r.Schema())
	}
	want := []string{cfg.SchemaDDL, ddl2}
	if strings.Join(schemas, "|") != strings.Join(want, "|") {
		t.Errorf("schema at each record = %q, want %q", schemas, want)
	}

	// A new segment carries the latest schema in its header.
	w2 := newWriter(t, cfg)
	w2.SetSchema(ddl2)
	w2.Observe(obs)
	if err := w2.Rotate(t.Context()); err != nil {
		t.Fatal(err)
	}
	w2.Observe(obs)
	closeWriter(t, w2)
	segs, _ := ReadDir(cfg.Dir)
	last := segs[len(segs)-1]
	_, r2 := readSegment(t, last.Path)
	if r2.Header().SchemaDDL != ddl2 {
		t.Errorf("new segment header schema = %q, want %q", r2.Header().SchemaDDL, ddl2)
	}
}

func TestVersionAndMagic(t *testing.T) {
	cfg := testConfig(t)
	w := newWriter(t, cfg)
	w.Observe(sampleObservations()[0])
	closeWriter(t, w)
	data := mustRead(t, onlySegment(t, cfg.Dir))

	newer := append([]byte(nil), data...)
	newer[4] = FormatMajor + 1
	if _, err := NewReader(bytes.NewReader(newer)); err == nil || !strings.Contains(err.Error(), "format 2.0") {
		t.Errorf("newer major version: err = %v, want ErrVersion naming 2.0", err)
	}
	if _, err := NewReader(strings.NewReader("PK\x03\x04 not a segment")); err != ErrNotSegment {
		t.Errorf("zip file: err = %v, want ErrNotSegment", err)
	}
	// A newer minor version reads.
	minor := append([]byte(nil), data...)
	minor[5] = FormatMinor + 3
	// The header CRC covers the version: recompute it like a newer writer.
	fixHeaderCRC(minor)
	r, err := NewReader(bytes.NewReader(minor))
	if err != nil {
		t.Fatalf("newer minor version: %v", err)
	}
	if _, err := r.Next(); err != nil {
		t.Errorf("newer minor version: Next: %v", err)
	}
}
