package capture

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dohyo/dohyo/bindings"
)

func ycsbRead(session, seq uint64, at time.Time, key string) *bindings.Observation {
	return &bindings.Observation{
		Time: at, Session: session, Seq: seq, Source: bindings.SourceCQL, Keyspace: "ycsb",
		Query: "SELECT * FROM usertable WHERE y_id = ?", Prepared: true,
		Values:      []bindings.Value{{Bytes: []byte(key)}},
		Consistency: bindings.One, Latency: 300 * time.Microsecond,
		ResultKind: bindings.ResultRows, Rows: 1, Digest: seq * 2654435761,
	}
}

func TestDropWhenFull(t *testing.T) {
	cfg := testConfig(t)
	cfg.QueueSize = 16
	cfg.FlushInterval = time.Millisecond
	sink := gateSegments(&cfg)
	w := newWriter(t, cfg)
	t0 := time.Unix(1_700_000_000, 0)

	// Block the writer goroutine inside a frame write.
	sink().hold()
	w.Observe(ycsbRead(1, 0, t0, "user0"))
	select {
	case <-sink().entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the writer never tried to write the frame")
	}

	// With the writer stuck, Observe must still return at once: the queue
	// takes QueueSize records and drops the rest.
	const extra = 100
	done := make(chan struct{})
	go func() {
		for i := 1; i <= cfg.QueueSize+extra; i++ {
			w.Observe(ycsbRead(1, uint64(i), t0.Add(time.Duration(i)), fmt.Sprintf("user%d", i)))
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Observe blocked while the writer was stuck")
	}
	st := w.Stats()
	if st.Dropped != extra || st.Queued != cfg.QueueSize {
		t.Errorf("stats with a stuck writer = %+v, want %d dropped and %d queued", st, extra, cfg.QueueSize)
	}

	sink().releaseWrites()
	closeWriter(t, w)

	recs, r := readSegment(t, onlySegment(t, cfg.Dir))
	if len(recs) != 1+cfg.QueueSize {
		t.Errorf("read %d records, want %d", len(recs), 1+cfg.QueueSize)
	}
	tr, _ := r.Trailer()
	if r.Dropped() != extra || tr.Dropped != extra {
		t.Errorf("drops in stream = %d, trailer = %d, want %d", r.Dropped(), tr.Dropped, extra)
	}
}

func TestWriteErrorAbandonsSegment(t *testing.T) {
	cfg := testConfig(t)
	opened := 0
	cfg.openFile = func(path string) (segmentFile, error) {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		opened++
		if opened == 1 {
			return &failingFile{File: f, after: 1}, err // header ok, first frame fails
		}
		return f, err
	}
	w := newWriter(t, cfg)
	t0 := time.Unix(1_700_000_000, 0)
	w.Observe(ycsbRead(1, 1, t0, "a"))
	if err := w.Flush(t.Context()); err == nil {
		t.Fatal("Flush did not report the write error")
	}
	w.Observe(ycsbRead(1, 2, t0, "b"))
	closeWriter(t, w)
	st := w.Stats()
	if st.WriteErrors != 1 || st.Dropped != 1 || st.Records != 1 || st.Segments != 2 {
		t.Errorf("stats = %+v", st)
	}
	segs, _ := ReadDir(cfg.Dir)
	if len(segs) != 2 {
		t.Fatalf("%d segments, want the abandoned one and a new one", len(segs))
	}
	recs, r := readSegment(t, segs[1].Path)
	if len(recs) != 1 || recs[0].Seq != 2 || r.Dropped() != 1 {
		t.Errorf("new segment: %d records, dropped note %d", len(recs), r.Dropped())
	}
}

type failingFile struct {
	*os.File
	after int // writes that succeed
}

func (f *failingFile) Write(b []byte) (int, error) {
	if f.after == 0 {
		return 0, errors.New("disk full")
	}
	f.after--
	return f.File.Write(b)
}

func TestRotationBySize(t *testing.T) {
	cfg := testConfig(t)
	cfg.MaxSegmentBytes = 4000
	cfg.FlushBytes = 1000
	cfg.Compression = CompressFastest
	w := newWriter(t, cfg)
	t0 := time.Unix(1_700_000_000, 0)
	const n = 3000
	for i := 0; i < n; i++ {
		w.Observe(ycsbRead(uint64(i%3), uint64(i), t0.Add(time.Duration(i)*time.Microsecond),
			fmt.Sprintf("user%016x", uint64(i)*0x9e3779b97f4a7c15)))
		if i%100 == 99 {
			flushWriter(t, w)
		}
	}
	closeWriter(t, w)
	segs, err := ReadDir(cfg.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) < 3 {
		t.Fatalf("%d segments, want rotation by size", len(segs))
	}
	total := 0
	for i, s := range segs {
		// A segment may exceed the limit by its last frame and trailer.
		if s.Size > cfg.MaxSegmentBytes+int64(cfg.FlushBytes)+200 {
			t.Errorf("segment %d: %d bytes, limit %d", i, s.Size, cfg.MaxSegmentBytes)
		}
		if s.Seq != uint64(i) {
			t.Errorf("segment %d has seq %d", i, s.Seq)
		}
		recs, r := readSegment(t, s.Path) // each segment reads on its own
		if tr, ok := r.Trailer(); !ok || tr.Records != uint64(len(recs)) {
			t.Errorf("segment %d: trailer %+v for %d records", i, tr, len(recs))
		}
		for _, rec := range recs {
			if rec.Seq != uint64(total) {
				t.Fatalf("record %d has seq %d", total, rec.Seq)
			}
			total++
		}
	}
	if total != n {
		t.Errorf("read %d records, want %d", total, n)
	}
}

func TestRotationByAge(t *testing.T) {
	cfg := testConfig(t)
	clock := newFakeClock()
	cfg.Clock = clock.Now
	cfg.MaxSegmentAge = time.Minute
	w := newWriter(t, cfg)
	t0 := time.Unix(1_700_000_000, 0)
	for i := 0; i < 10; i++ {
		w.Observe(ycsbRead(1, uint64(i), t0, "k"))
	}
	flushWriter(t, w)
	clock.Advance(30 * time.Second)
	flushWriter(t, w) // not old enough
	clock.Advance(31 * time.Second)
	flushWriter(t, w) // rotates
	for i := 10; i < 15; i++ {
		w.Observe(ycsbRead(1, uint64(i), t0, "k"))
	}
	closeWriter(t, w)
	segs, _ := ReadDir(cfg.Dir)
	if len(segs) != 2 {
		t.Fatalf("%d segments, want 2", len(segs))
	}
	first, _ := readSegment(t, segs[0].Path)
	second, r2 := readSegment(t, segs[1].Path)
	if len(first) != 10 || len(second) != 5 {
		t.Errorf("records per segment = %d, %d; want 10, 5", len(first), len(second))
	}
	if want := clock.Now(); !r2.Header().Start.Equal(want) || !segs[1].Start.Equal(want.Truncate(time.Millisecond)) {
		t.Errorf("second segment start = %v (name %v), want %v", r2.Header().Start, segs[1].Start, want)
	}
	if want := "node1-20250304T050607.890Z-000000.dcap"; filepath.Base(segs[0].Path) != want {
		t.Errorf("first segment name = %s, want %s", filepath.Base(segs[0].Path), want)
	}
}

func TestRetention(t *testing.T) {
	cfg := testConfig(t)
	clock := newFakeClock()
	cfg.Clock = clock.Now
	// Another node's segment in the same directory is never deleted.
	foreign := filepath.Join(cfg.Dir, SegmentName("node2", clock.Now().Add(-time.Hour), 0))
	if err := os.WriteFile(foreign, make([]byte, 10000), 0o600); err != nil {
		t.Fatal(err)
	}
	w := newWriter(t, cfg)
	t0 := time.Unix(1_700_000_000, 0)
	for s := 0; s < 6; s++ {
		for i := 0; i < 50; i++ {
			w.Observe(ycsbRead(1, uint64(s*50+i), t0, fmt.Sprintf("user%d", s*1000+i)))
		}
		if err := w.Rotate(t.Context()); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Second)
	}
	segs, _ := ReadDir(cfg.Dir)
	var sizes []int64
	for _, s := range segs {
		if s.Node == "node1" {
			sizes = append(sizes, s.Size)
		}
	}
	closeWriter(t, w)
	// Retention = the size of about two segments.
	cfg2 := cfg
	cfg2.RetentionBytes = sizes[len(sizes)-1] + sizes[len(sizes)-2]
	w2 := newWriter(t, cfg2) // opens a new segment and enforces retention
	w2.Observe(ycsbRead(1, 1000, t0, "last"))
	closeWriter(t, w2)

	segs, _ = ReadDir(cfg.Dir)
	var mine []SegmentInfo
	var total int64
	for _, s := range segs {
		if s.Node == "node1" {
			mine = append(mine, s)
			total += s.Size
		}
	}
	if total > cfg2.RetentionBytes {
		t.Errorf("node1 keeps %d bytes, retention %d", total, cfg2.RetentionBytes)
	}
	if len(mine) == 0 || len(mine) >= 6 {
		t.Fatalf("node1 keeps %d segments", len(mine))
	}
	if mine[len(mine)-1].Seq != 6 {
		t.Errorf("newest segment seq = %d, want 6 (the newest survive)", mine[len(mine)-1].Seq)
	}
	if _, err := os.Stat(foreign); err != nil {
		t.Errorf("another node's segment was touched: %v", err)
	}
}

func TestFileModes(t *testing.T) {
	cfg := testConfig(t)
	cfg.Dir = filepath.Join(cfg.Dir, "sub", "capture")
	w := newWriter(t, cfg)
	w.Observe(ycsbRead(1, 1, time.Now(), "k"))
	closeWriter(t, w)
	st, err := os.Stat(cfg.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Mode().Perm(); got != 0o700 {
		t.Errorf("directory mode = %v, want 0700", got)
	}
	err = filepath.WalkDir(cfg.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if got := info.Mode().Perm(); got != 0o600 {
			t.Errorf("%s: mode %v, want 0600", path, got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestSamplingDeterministic(t *testing.T) {
	cfg := testConfig(t)
	cfg.Sampling = 0.3
	w1 := newWriter(t, cfg)
	cfg2 := testConfig(t)
	cfg2.Sampling = 0.3
	w2 := newWriter(t, cfg2)
	cfg3 := testConfig(t)
	cfg3.Sampling = 0.3
	cfg3.NodeID = "node-b"
	w3 := newWriter(t, cfg3)

	const sessions = 2000
	kept, differs := 0, 0
	for s := uint64(1); s <= sessions; s++ {
		if w1.Sampled(s) != w2.Sampled(s) {
			t.Fatalf("session %d: decisions differ between writers of one node", s)
		}
		if w1.Sampled(s) {
			kept++
		}
		if w1.Sampled(s) != w3.Sampled(s) {
			differs++
		}
	}
	if frac := float64(kept) / sessions; frac < 0.25 || frac > 0.35 {
		t.Errorf("sampled %.3f of sessions, want about 0.3", frac)
	}
	if differs == 0 {
		t.Error("another node samples exactly the same sessions")
	}
	t0 := time.Unix(1_700_000_000, 0)
	for s := uint64(1); s <= 200; s++ {
		for q := uint64(0); q < 3; q++ {
			w1.Observe(ycsbRead(s, q, t0, "k"))
		}
	}
	closeWriter(t, w1)
	recs := readDirRecords(t, cfg.Dir)
	per := map[uint64]int{}
	for _, r := range recs {
		if !w1.Sampled(r.Session) {
			t.Fatalf("record of unsampled session %d", r.Session)
		}
		per[r.Session]++
	}
	for s, n := range per {
		if n != 3 {
			t.Errorf("session %d: %d of 3 records (sessions are kept whole)", s, n)
		}
	}
	if st := w1.Stats(); st.SampledOut+st.Records != 600 {
		t.Errorf("stats = %+v: sampled out + written != 600", st)
	}
}

func TestKeyspaceFilters(t *testing.T) {
	cfg := testConfig(t)
	cfg.IncludeKeyspaces = []string{"ycsb", "app"}
	cfg.ExcludeKeyspaces = []string{"app"}
	w := newWriter(t, cfg)
	t0 := time.Unix(1_700_000_000, 0)
	mk := func(ks, q string) *bindings.Observation {
		return &bindings.Observation{Time: t0, Session: 1, Keyspace: ks, Query: q, Source: bindings.SourceCQL}
	}
	w.Observe(mk("ycsb", "SELECT * FROM usertable"))  // kept
	w.Observe(mk("app", "SELECT * FROM t"))           // excluded
	w.Observe(mk("", "SELECT * FROM ycsb.usertable")) // kept: the statement's keyspace
	w.Observe(mk("ycsb", "SELECT * FROM system.local"))
	w.Observe(mk("other", "INSERT INTO t (a) VALUES (1)"))
	closeWriter(t, w)
	recs := readDirRecords(t, cfg.Dir)
	var got []string
	for _, r := range recs {
		got = append(got, r.Query)
	}
	want := "SELECT * FROM usertable|SELECT * FROM ycsb.usertable"
	if strings.Join(got, "|") != want {
		t.Errorf("captured %q, want %q", got, want)
	}
	if st := w.Stats(); st.Filtered != 3 {
		t.Errorf("filtered = %d, want 3", st.Filtered)
	}
}

func TestPauseResume(t *testing.T) {
	cfg := testConfig(t)
	w := newWriter(t, cfg)
	t0 := time.Unix(1_700_000_000, 0)
	w.Observe(ycsbRead(1, 1, t0, "a"))
	w.Pause()
	w.Observe(ycsbRead(1, 2, t0, "b"))
	w.Resume()
	w.Observe(ycsbRead(1, 3, t0, "c"))
	closeWriter(t, w)
	w.Observe(ycsbRead(1, 4, t0, "d")) // after Close: ignored, no panic
	if err := w.Flush(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Flush after Close = %v, want ErrClosed", err)
	}
	recs := readDirRecords(t, cfg.Dir)
	if len(recs) != 2 || recs[0].Seq != 1 || recs[1].Seq != 3 {
		t.Errorf("got %d records, want seq 1 and 3", len(recs))
	}
}

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name string
		mod  func(*WriterConfig)
		want string
	}{
		{"no dir", func(c *WriterConfig) { c.Dir = "" }, "capture.dir"},
		{"bad node", func(c *WriterConfig) { c.NodeID = "a/b" }, "capture.node_id"},
		{"sampling", func(c *WriterConfig) { c.Sampling = 2 }, "capture.sampling"},
		{"hash without key", func(c *WriterConfig) {
			c.Redact = []RedactRule{{Column: "ks.t.c", Action: RedactHash}}
		}, "capture.redact_key"},
		{"bad rule", func(c *WriterConfig) {
			c.Redact = []RedactRule{{Column: "t.c", Action: RedactDrop}}
		}, "capture.redact"},
		{"flush bytes", func(c *WriterConfig) { c.FlushBytes = 1 << 30 }, "capture.flush_bytes"},
		{"compression", func(c *WriterConfig) { c.Compression = "lz4" }, "capture.compression"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := WriterConfig{Dir: "/tmp/x", NodeID: "n"}
			c.mod(&cfg)
			err := cfg.Validate()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Validate() = %v, want an error about %s", err, c.want)
			}
		})
	}
	if err := (WriterConfig{Dir: "/tmp/x"}).Validate(); err != nil {
		t.Errorf("minimal config: %v", err)
	}
}

func TestOversizedRecordDroppedAndNoted(t *testing.T) {
	cfg := testConfig(t)
	w := newWriter(t, cfg)
	t0 := time.Unix(1_700_000_000, 0)
	w.Observe(ycsbRead(1, 1, t0, "small"))
	huge := ycsbRead(1, 2, t0, "")
	huge.Values = []bindings.Value{{Bytes: make([]byte, maxRecordBytes+1)}}
	w.Observe(huge)
	closeWriter(t, w)
	recs, r := readSegment(t, onlySegment(t, cfg.Dir))
	tr, _ := r.Trailer()
	if len(recs) != 1 || w.Stats().Dropped != 1 || tr.Dropped != 1 || r.Dropped() != 1 {
		t.Errorf("records=%d stats.dropped=%d trailer.dropped=%d noted=%d; want 1 each",
			len(recs), w.Stats().Dropped, tr.Dropped, r.Dropped())
	}
}

// Writer must satisfy proxy.Tap, which capture cannot import.
var _ interface{ Observe(*bindings.Observation) } = (*Writer)(nil)

func TestSegmentNames(t *testing.T) {
	start := time.Date(2025, 3, 4, 5, 6, 7, 890_123_456, time.FixedZone("x", 3600))
	name := SegmentName("proxy-a.dc1", start, 12)
	if name != "proxy-a.dc1-20250304T040607.890Z-000012.dcap" {
		t.Fatalf("SegmentName = %s", name)
	}
	node, got, seq, ok := ParseSegmentName("/some/dir/" + name)
	if !ok || node != "proxy-a.dc1" || seq != 12 || !got.Equal(start.Truncate(time.Millisecond)) {
		t.Errorf("ParseSegmentName = %q %v %d %v", node, got, seq, ok)
	}
	for _, bad := range []string{"x.dcap", "n-20250304T040607.890Z-12.dcap", "-20250304T040607.890Z-000012.dcap",
		"n-20250304T040607.890Z-000012.txt", "n-2025030XT040607.890Z-000012.dcap"} {
		if _, _, _, ok := ParseSegmentName(bad); ok {
			t.Errorf("ParseSegmentName(%q) accepted", bad)
		}
	}
}
