package capture

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/dohyo/dohyo/bindings"
)

// ErrClosed is returned by methods of a closed Writer.
var ErrClosed = errors.New("capture: writer closed")

const (
	stateRunning int32 = iota
	statePaused
	stateClosed
)

// Writer captures observations into segment files in a directory. Observe
// is safe for concurrent use and never blocks: it copies the observation
// into a bounded queue, or drops and counts it when the queue is full. One
// background goroutine encodes, compresses and writes frames, rotates
// segments and enforces retention.
//
// Writer satisfies proxy.Tap.
type Writer struct {
	cfg        WriterConfig
	log        *slog.Logger
	now        func() time.Time
	sampleAll  bool
	sampleSeed uint64
	sampleMax  uint64
	filters    bool
	include    map[string]bool
	exclude    map[string]bool
	rules      ruleSet

	state atomic.Int32

	// The queue: a ring of reusable slots; producers fill the free end under
	// mu, the writer goroutine reads filled slots without the lock and then
	// releases them.
	mu       sync.Mutex
	closed   bool
	slots    []slot
	head, n  int
	qbytes   int
	enqueued uint64
	schemas  []pendingSchema
	wakeAt   int
	wake     chan struct{}

	// Counters (Stats).
	dropped     atomic.Uint64
	sampledOut  atomic.Uint64
	filtered    atomic.Uint64
	written     atomic.Uint64
	bytes       atomic.Uint64
	segments    atomic.Uint64
	statements  atomic.Uint64
	writeErrors atomic.Uint64
	// The durability marks (Unix nanoseconds by the writer's clock): every
	// record queued before writtenThrough has been written to its segment
	// file with write(2), so a crash of the process keeps it, or counted as
	// dropped, filtered or sampled out; before syncedThrough it has also
	// been fsynced, so a crash of the machine keeps it. They are what the
	// flush interval promises, published as facts a caller can check.
	writtenThrough atomic.Int64
	syncedThrough  atomic.Int64
	// Timed flushes done, and the largest delay between a tick of the flush
	// ticker and the flush it started (how late the writer goroutine was
	// scheduled: the flush interval's promise stretches by that much).
	timedFlushes  atomic.Uint64
	maxFlushDelay atomic.Int64
	// problem is why capture is losing records now (nil: healthy).
	problem atomic.Pointer[string]

	ctl  chan ctlReq
	done chan struct{}

	loop *loopState // owned by the background goroutine
}

// slot is one queued observation; its buffers are reused across records.
type slot struct {
	o     bindings.Observation
	vals  []bindings.Value
	names []string
	buf   []byte
	size  int
}

type pendingSchema struct {
	at  uint64 // apply after this many records were dequeued
	ddl string
}

// Stats are a Writer's counters since it was created.
type Stats struct {
	Records     uint64 // records written to segment files
	Bytes       uint64 // bytes written to segment files
	Dropped     uint64 // records lost: queue full, too large, or write errors
	Filtered    uint64 // records excluded by keyspace filters
	SampledOut  uint64 // records of sessions not sampled
	Segments    uint64 // segment files created
	Statements  uint64 // statement definitions written
	WriteErrors uint64
	Queued      int // records waiting in the queue now
	// WrittenThrough: every record queued before it is in a segment file
	// (written with write(2): a process crash keeps it) or counted in
	// Dropped, Filtered or SampledOut. SyncedThrough: the same, fsynced (a
	// machine crash keeps it). Zero until the first flush.
	WrittenThrough time.Time `json:",omitzero"`
	SyncedThrough  time.Time `json:",omitzero"`
	// TimedFlushes counts the flushes the FlushInterval ticker started;
	// MaxFlushDelay is the longest a tick waited for the writer goroutine
	// (scheduling delay: a record may wait FlushInterval plus this).
	TimedFlushes  uint64
	MaxFlushDelay time.Duration
	// Problem says why records are being lost now (a vanished or
	// unwritable directory); empty when capture is healthy. It clears
	// once a segment can be written again.
	Problem string `json:",omitempty"`
}

// NewWriter validates cfg, creates the directory (0700) and the first
// segment, and starts the background goroutine. Close it to flush.
func NewWriter(cfg WriterConfig) (*Writer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	rules, _ := compileRules(cfg.Redact)
	w := &Writer{
		cfg:     cfg,
		log:     cfg.Logger.With("component", "capture"),
		now:     cfg.Clock,
		rules:   rules,
		include: keyspaceSet(cfg.IncludeKeyspaces),
		exclude: keyspaceSet(cfg.ExcludeKeyspaces),
		slots:   make([]slot, cfg.QueueSize),
		wake:    make(chan struct{}, 1),
		ctl:     make(chan ctlReq),
		done:    make(chan struct{}),
	}
	w.filters = w.include != nil || w.exclude != nil
	w.wakeAt = max(1, min(cfg.QueueSize/4, 4096))
	w.sampleAll = cfg.Sampling >= 1
	if !w.sampleAll {
		h := fnv.New64a()
		h.Write([]byte(cfg.NodeID))
		w.sampleSeed = h.Sum64()
		w.sampleMax = uint64(cfg.Sampling * (1 << 64))
	}
	if w.cfg.openFile == nil {
		w.cfg.openFile = func(path string) (segmentFile, error) {
			return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		}
	}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	level, _ := cfg.Compression.level()
	// Entropy-code literals even in blocks without matches: the value area
	// is mostly literals with a skewed byte distribution (printable text).
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(level), zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderCRC(false), zstd.WithWindowSize(1<<20), zstd.WithAllLitEntropyCompression(true))
	if err != nil {
		return nil, fmt.Errorf("capture: zstd: %w", err)
	}
	l := &loopState{w: w, enc: enc, schema: cfg.SchemaDDL, stmts: make(map[stmtKey]*stmtInfo)}
	l.fe = newFrameEncoder(hmac.New(sha256.New, []byte(cfg.RedactKey)))
	if l.nextSeq, err = nextSegmentSeq(cfg.Dir, cfg.NodeID); err != nil {
		enc.Close()
		return nil, err
	}
	if err := l.openSegment(); err != nil {
		enc.Close()
		return nil, err
	}
	l.enforceRetention()
	w.loop = l
	go l.run()
	w.log.Info("capture started", "config", cfg, "segment", l.seg.path)
	return w, nil
}

func keyspaceSet(list []string) map[string]bool {
	if len(list) == 0 {
		return nil
	}
	m := make(map[string]bool, len(list))
	for _, ks := range list {
		m[ks] = true
	}
	return m
}

// Observe queues one observation. It copies what it keeps and returns
// immediately; when the queue is full the record is dropped and counted.
func (w *Writer) Observe(o *bindings.Observation) {
	if o == nil || w.state.Load() != stateRunning {
		return
	}
	if !w.sampleAll && splitmix64(w.sampleSeed^o.Session) >= w.sampleMax {
		w.sampledOut.Add(1)
		return
	}
	size := len(o.PagingState)
	for i := range o.Values {
		size += len(o.Values[i].Bytes)
	}
	if size > maxRecordBytes {
		w.dropped.Add(1)
		return
	}
	if ok, closed := w.enqueue(o, size); !ok && !closed {
		w.dropped.Add(1)
	}
}

// enqueue copies o into the queue unless it is full or the writer closed.
func (w *Writer) enqueue(o *bindings.Observation, size int) (ok, closed bool) {
	w.mu.Lock()
	if w.closed || w.n == len(w.slots) || (w.qbytes+size > w.cfg.QueueBytes && w.n > 0) {
		closed := w.closed
		w.mu.Unlock()
		return false, closed
	}
	w.slots[(w.head+w.n)%len(w.slots)].fill(o, size)
	w.n++
	w.qbytes += size
	w.enqueued++
	n := w.n
	w.mu.Unlock()
	if n == w.wakeAt {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
	return true, false
}

// fill copies o into the slot, reusing the slot's buffers.
func (s *slot) fill(o *bindings.Observation, size int) {
	s.o = *o
	s.size = size
	if cap(s.buf) < size {
		s.buf = make([]byte, 0, max(size, 256))
	}
	buf := s.buf[:0]
	own := func(b []byte) []byte {
		if b == nil {
			return nil
		}
		start := len(buf)
		buf = append(buf, b...) // never reallocates: cap(buf) >= size
		return buf[start:len(buf):len(buf)]
	}
	if o.Values != nil {
		s.vals = s.vals[:0]
		for _, v := range o.Values {
			s.vals = append(s.vals, bindings.Value{Bytes: own(v.Bytes), Unset: v.Unset})
		}
		s.o.Values = s.vals
	}
	if o.Names != nil {
		if s.names == nil {
			s.names = make([]string, 0, len(o.Names)+1)
		}
		s.names = append(s.names[:0], o.Names...)
		s.o.Names = s.names
	}
	s.o.PagingState = own(o.PagingState)
}

// splitmix64 is a strong 64-bit mixer: sampling decisions must not follow
// the sequential pattern of session ids.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Sampled reports whether records of a session are captured.
func (w *Writer) Sampled(session uint64) bool {
	return w.sampleAll || splitmix64(w.sampleSeed^session) < w.sampleMax
}

// Pause stops capturing: Observe discards observations until Resume.
func (w *Writer) Pause() { w.state.CompareAndSwap(stateRunning, statePaused) }

// Resume undoes Pause.
func (w *Writer) Resume() { w.state.CompareAndSwap(statePaused, stateRunning) }

// SetSchema records a new schema snapshot (CREATE statements). It is written
// into the stream after the records observed before the call, and into the
// header of later segments. It does not block.
func (w *Writer) SetSchema(ddl string) {
	w.mu.Lock()
	if !w.closed {
		w.schemas = append(w.schemas, pendingSchema{at: w.enqueued, ddl: ddl})
	}
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Stats returns the writer's counters.
func (w *Writer) Stats() Stats {
	w.mu.Lock()
	q := w.n
	w.mu.Unlock()
	return Stats{
		Records: w.written.Load(), Bytes: w.bytes.Load(), Dropped: w.dropped.Load(),
		Filtered: w.filtered.Load(), SampledOut: w.sampledOut.Load(),
		Segments: w.segments.Load(), Statements: w.statements.Load(),
		WriteErrors: w.writeErrors.Load(), Queued: q, Problem: w.Problem(),
		WrittenThrough: unixTime(w.writtenThrough.Load()),
		SyncedThrough:  unixTime(w.syncedThrough.Load()),
		TimedFlushes:   w.timedFlushes.Load(),
		MaxFlushDelay:  time.Duration(w.maxFlushDelay.Load()),
	}
}

// unixTime is t (Unix nanoseconds) as a time, the zero time for 0.
func unixTime(t int64) time.Time {
	if t == 0 {
		return time.Time{}
	}
	return time.Unix(0, t)
}

// Problem says why records are being lost now; empty when healthy.
func (w *Writer) Problem() string {
	if p := w.problem.Load(); p != nil {
		return *p
	}
	return ""
}

func (w *Writer) setProblem(err error) {
	if err == nil {
		w.problem.Store(nil)
		return
	}
	msg := err.Error()
	w.problem.Store(&msg)
}

type ctlOp int

const (
	opFlush ctlOp = iota
	opRotate
	opClose
)

type ctlReq struct {
	op   ctlOp
	done chan error
}

func (w *Writer) do(ctx context.Context, op ctlOp) error {
	req := ctlReq{op: op, done: make(chan error, 1)}
	select {
	case w.ctl <- req:
	case <-w.done:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-req.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Flush writes every queued record to the current segment and fsyncs it.
// It also applies age-based rotation.
func (w *Writer) Flush(ctx context.Context) error { return w.do(ctx, opFlush) }

// Rotate closes the current segment (with its trailer); the next record
// starts a new one.
func (w *Writer) Rotate(ctx context.Context) error { return w.do(ctx, opRotate) }

// Close stops capturing, writes every queued record, closes the segment
// with its trailer and stops the background goroutine. Observe calls after
// Close are ignored. When ctx ends first Close returns its error and the
// goroutine finishes in the background.
func (w *Writer) Close(ctx context.Context) error {
	w.mu.Lock()
	already := w.closed
	w.closed = true
	w.mu.Unlock()
	w.state.Store(stateClosed)
	if already {
		select {
		case <-w.done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	err := w.do(ctx, opClose)
	if err == ErrClosed {
		return nil
	}
	return err
}
