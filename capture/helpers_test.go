package capture

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// fakeClock is a settable clock for rotation tests.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2025, 3, 4, 5, 6, 7, 890_000_000, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func testConfig(t *testing.T) WriterConfig {
	t.Helper()
	return WriterConfig{
		Dir:          t.TempDir(),
		NodeID:       "node1",
		DohyoVersion: "test-1.0",
		SchemaDDL:    "CREATE TABLE ks.t (k text PRIMARY KEY, v blob);",
		Clock:        newFakeClock().Now,
	}
}

func newWriter(t *testing.T, cfg WriterConfig) *Writer {
	t.Helper()
	w, err := NewWriter(cfg)
	if err != nil {
		t.Fatalf("NewWriter: %v", err)
	}
	t.Cleanup(func() { w.Close(context.Background()) })
	return w
}

func closeWriter(t *testing.T, w *Writer) {
	t.Helper()
	if err := w.Close(context.Background()); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func flushWriter(t *testing.T, w *Writer) {
	t.Helper()
	if err := w.Flush(context.Background()); err != nil {
		t.Fatalf("Flush: %v", err)
	}
}

// readSegment returns every record of a segment and the reader after EOF.
func readSegment(t *testing.T, path string) ([]*Record, *Reader) {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { r.Close() })
	var out []*Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, r
		}
		if err != nil {
			t.Fatalf("Next after %d records: %v", len(out), err)
		}
		out = append(out, rec)
	}
}

// readDirRecords reads every segment of dir in ReadDir order.
func readDirRecords(t *testing.T, dir string) []*Record {
	t.Helper()
	segs, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []*Record
	for _, s := range segs {
		recs, _ := readSegment(t, s.Path)
		out = append(out, recs...)
	}
	return out
}

func onlySegment(t *testing.T, dir string) string {
	t.Helper()
	segs, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) != 1 {
		t.Fatalf("got %d segments, want 1", len(segs))
	}
	return segs[0].Path
}

// wantRecord is the record a reader should return for an observation
// (without redaction).
func wantRecord(node string, o *bindings.Observation) Record {
	r := Record{
		Time: o.Time.UnixNano(), Node: node, Session: o.Session, Seq: o.Seq, Source: o.Source,
		Keyspace: o.Keyspace, Query: o.Query, Fingerprint: cql.Fingerprint(o.Query),
		Prepared: o.Prepared, Names: o.Names, Consistency: o.Consistency,
		SerialConsistency: o.SerialConsistency, PageSize: o.PageSize,
		Paging: o.PagingState != nil, PagingState: o.PagingState,
		HasTimestamp: o.HasTimestamp, BatchIndex: o.BatchIndex, BatchSize: o.BatchSize,
		BatchType: o.BatchType, Latency: o.Latency, ResultKind: o.ResultKind, Err: o.Err,
		ErrCode: o.ErrCode, Rows: o.Rows, Digest: o.Digest, HasMore: o.HasMore,
	}
	if o.HasTimestamp {
		r.Timestamp = o.Timestamp
	}
	if !o.Err {
		r.ErrCode = 0
	}
	for _, v := range o.Values {
		switch {
		case v.Unset:
			r.Values = append(r.Values, Value{Unset: true})
		default:
			r.Values = append(r.Values, Value{Bytes: v.Bytes})
		}
	}
	return r
}

// checkRecord compares a read record with the expectation, ignoring the
// statement id.
func checkRecord(t *testing.T, i int, got *Record, want Record) {
	t.Helper()
	g := *got
	g.StatementID = 0
	if !reflect.DeepEqual(g, want) {
		t.Errorf("record %d:\n got %+v\nwant %+v", i, g, want)
	}
}

// gatedFile is a segment sink whose writes block while the gate is shut.
type gatedFile struct {
	f       *os.File
	mu      sync.Mutex
	shut    bool
	release chan struct{}
	entered chan struct{}
}

func (g *gatedFile) Write(b []byte) (int, error) {
	g.mu.Lock()
	shut, rel := g.shut, g.release
	g.mu.Unlock()
	if shut {
		select {
		case g.entered <- struct{}{}:
		default:
		}
		<-rel
	}
	return g.f.Write(b)
}

// hold makes the next writes block until release.
func (g *gatedFile) hold() {
	g.mu.Lock()
	g.shut = true
	g.mu.Unlock()
}

// release lets blocked and later writes through.
func (g *gatedFile) releaseWrites() {
	g.mu.Lock()
	g.shut = false
	close(g.release)
	g.mu.Unlock()
}

// gateSegments makes the writer of cfg write its segments through
// gatedFiles; the function it returns gives the latest one.
func gateSegments(cfg *WriterConfig) func() *gatedFile {
	var mu sync.Mutex
	var sink *gatedFile
	cfg.openFile = func(path string) (segmentFile, error) {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return nil, err
		}
		g := &gatedFile{f: f, release: make(chan struct{}), entered: make(chan struct{}, 1)}
		mu.Lock()
		sink = g
		mu.Unlock()
		return g, nil
	}
	return func() *gatedFile {
		mu.Lock()
		defer mu.Unlock()
		return sink
	}
}

func (g *gatedFile) Sync() error  { return g.f.Sync() }
func (g *gatedFile) Close() error { return g.f.Close() }

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fixHeaderCRC recomputes the header checksum after a test edits the header.
func fixHeaderCRC(b []byte) {
	n := headerFixedLen + int(binary.LittleEndian.Uint32(b[6:]))
	binary.LittleEndian.PutUint32(b[n:], crc32.Checksum(b[:n], crcTable))
}
