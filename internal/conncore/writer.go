package conncore

import (
	"bufio"
	"net"
	"runtime"
	"sync"
	"time"

	"github.com/dohyo/dohyo/cql/wire"
	"github.com/dohyo/dohyo/internal/bufpool"
)

// Msg is one encoded frame for a Writer.
type Msg struct {
	Frame []byte
	// Pooled frames go back to internal/bufpool once written (or dropped).
	Pooled bool
	// Counted frames' bytes are reported to Config.Written once written
	// (or dropped).
	Counted bool
	// Then, when set, switches the connection to v5 segment framing after
	// this frame (the answer to a v5 STARTUP).
	Then *Segments
}

// Segments is v5 segment framing.
type Segments struct{ LZ4 bool }

// Config describes a Writer's connection.
type Config struct {
	// Conn is written through a buffer of BufSize bytes, allocated at the
	// first write (an idle connection holds none), unless Buffer is given.
	Conn    net.Conn
	BufSize int
	Buffer  *bufio.Writer
	// Segments starts the connection in v5 segment framing.
	Segments *Segments
	// Timeout is the write deadline of a batch, renewed at most once a
	// second; 0 sets none.
	Timeout time.Duration
	// Now is the clock of the write deadline (nil: time.Now).
	Now func() time.Time
	// Written is told the bytes of counted frames written (or dropped
	// after a failure) by each batch (nil: not told).
	Written func(n int64)
	// Failed is called once, by the goroutine whose write failed; later
	// frames are dropped. The connection should be closed.
	Failed func(err error)
	// Wake asks the connection's writer goroutine to Flush (Post).
	Wake func()
}

// Writer is a connection's outgoing frames and its writer role: at most
// one goroutine writes at a time, and frames leave in the order they were
// queued.
type Writer struct {
	cfg     Config
	mu      sync.Mutex
	idle    sync.Cond // signalled when the writer role is released
	q       []Msg     // queued, in order
	spare   []Msg     // the other buffer (swapped with q per batch)
	writing bool      // someone holds the writer role
	closed  bool

	// Owned by the writer role.
	bw     *bufio.Writer
	seg    *wire.SegmentWriter
	failed bool
	armed  time.Time
}

// Init prepares w (the zero Writer, embedded in its connection) for cfg.
func (w *Writer) Init(cfg Config) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	w.cfg = cfg
	w.idle.L = &w.mu
	w.bw = cfg.Buffer
	if cfg.Segments != nil && w.bw != nil {
		w.seg = &wire.SegmentWriter{W: w.bw, Compressed: cfg.Segments.LZ4}
	}
}

// Add queues m without writing it: a later Flush (or the write in
// progress) writes it. It reports false when the Writer is closed (m was
// not taken).
func (w *Writer) Add(m Msg) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return false
	}
	w.q = append(w.q, m)
	return true
}

// Post queues m for a sender that must not block on the socket: unless
// a write is in progress (its writer writes m), Config.Wake asks the
// connection's writer goroutine to Flush. False when closed.
func (w *Writer) Post(m Msg) bool {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return false
	}
	w.q = append(w.q, m)
	writing := w.writing
	w.mu.Unlock()
	if !writing && w.cfg.Wake != nil {
		w.cfg.Wake()
	}
	return true
}

// Send queues m and, unless another goroutine is writing (it writes m
// too), takes the writer role and writes the queue, blocking on the
// socket for at most the write timeout. With gather, the new writer yields
// once before writing, so that frames becoming ready at the same moment
// (answers of other requests in flight) leave in the same write. False
// when closed.
func (w *Writer) Send(m Msg, gather bool) bool {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return false
	}
	w.q = append(w.q, m)
	if w.writing {
		w.mu.Unlock()
		return true
	}
	w.writing = true
	if gather {
		w.mu.Unlock()
		runtime.Gosched()
		w.mu.Lock()
	}
	w.writeQueued()
	return true
}

// Flush writes the queued frames, including those queued while it
// writes, unless another goroutine is writing them.
func (w *Writer) Flush() {
	w.mu.Lock()
	if w.writing || w.closed || len(w.q) == 0 {
		w.mu.Unlock()
		return
	}
	w.writing = true
	w.writeQueued()
}

// Drain waits for a write in progress to end and writes what is left: the
// connection's last write.
func (w *Writer) Drain() {
	w.mu.Lock()
	for w.writing {
		w.idle.Wait()
	}
	w.writing = true
	w.writeQueued()
}

// Close drops the queued frames; later Add, Post and Send fail. A write
// in progress stops after its batch.
func (w *Writer) Close() {
	w.mu.Lock()
	w.closed = true
	dropped := w.q
	w.q = nil
	w.mu.Unlock()
	w.release(dropped)
}

// writeQueued writes batches until the queue is empty (or the Writer is
// closed), then releases the writer role. The caller has just taken the
// role and holds w.mu, which is released on return.
func (w *Writer) writeQueued() {
	for len(w.q) > 0 && !w.closed {
		batch := w.q
		w.q = w.spare[:0]
		w.mu.Unlock()
		w.writeBatch(batch)
		clear(batch)
		w.mu.Lock()
		w.spare = batch[:0]
	}
	w.writing = false
	w.idle.Broadcast()
	w.mu.Unlock()
}

// writeBatch writes frames in one flush: one syscall for frames that were
// queued together.
func (w *Writer) writeBatch(batch []Msg) {
	w.armDeadline()
	for _, m := range batch {
		w.writeFrame(m.Frame)
		if m.Then != nil {
			w.flush()
			if !w.failed {
				w.seg = &wire.SegmentWriter{W: w.buffer(), Compressed: m.Then.LZ4}
			}
		}
	}
	w.flush()
	w.release(batch)
}

// release hands back frames written or dropped: pooled buffers to the
// pool, counted bytes to Config.Written.
func (w *Writer) release(batch []Msg) {
	var counted int64
	for _, m := range batch {
		if m.Counted {
			counted += int64(len(m.Frame))
		}
		if m.Pooled {
			bufpool.Put(m.Frame)
		}
	}
	if counted > 0 && w.cfg.Written != nil {
		w.cfg.Written(counted)
	}
}

// armDeadline sets the write deadline, one per batch renewed at most
// every second: a peer that accepts nothing for Timeout fails the write.
func (w *Writer) armDeadline() {
	if d := w.cfg.Timeout; d > 0 && !w.failed {
		if now := w.cfg.Now(); now.Sub(w.armed) > time.Second {
			w.armed = now
			w.cfg.Conn.SetWriteDeadline(now.Add(d))
		}
	}
}

func (w *Writer) buffer() *bufio.Writer {
	if w.bw == nil {
		w.bw = bufio.NewWriterSize(w.cfg.Conn, w.cfg.BufSize)
	}
	return w.bw
}

func (w *Writer) writeFrame(f []byte) {
	if w.failed {
		return
	}
	var err error
	if w.seg != nil {
		err = w.seg.Add(f)
	} else {
		_, err = w.buffer().Write(f)
	}
	if err != nil {
		w.fail(err)
	}
}

func (w *Writer) flush() {
	if w.failed || w.bw == nil {
		return
	}
	var err error
	if w.seg != nil {
		err = w.seg.Flush()
	}
	if err == nil {
		err = w.bw.Flush()
	}
	if err != nil {
		w.fail(err)
	}
}

// fail gives up writing after a failed write: later frames are dropped.
func (w *Writer) fail(err error) {
	w.failed = true
	if w.cfg.Failed != nil {
		w.cfg.Failed(err)
	}
}
