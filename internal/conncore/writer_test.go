package conncore

import (
	"bufio"
	"bytes"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dohyo/dohyo/cql/wire"
)

// countingConn is a net.Conn that records what is written, one entry per
// Write call, and can block writes until released or fail them.
type countingConn struct {
	net.Conn
	mu        sync.Mutex
	writes    [][]byte
	gate      chan struct{} // when not nil, each Write waits for a token
	entered   chan struct{} // a Write began (gate set)
	fail      error
	deadlines []time.Time
}

func (c *countingConn) Write(p []byte) (int, error) {
	if c.gate != nil {
		c.entered <- struct{}{}
		<-c.gate
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fail != nil {
		return 0, c.fail
	}
	c.writes = append(c.writes, bytes.Clone(p))
	return len(p), nil
}

func (c *countingConn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deadlines = append(c.deadlines, t)
	return nil
}

func (c *countingConn) snapshot() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]byte(nil), c.writes...)
}

func frame(b byte) []byte { return []byte{b, b, b} }

// TestWriterGroupsFramesQueuedDuringAWrite: frames queued while the writer
// is stuck in a write leave together in its next write, in order, and the
// senders that found a writer return without writing.
func TestWriterGroupsFramesQueuedDuringAWrite(t *testing.T) {
	nc := &countingConn{gate: make(chan struct{}), entered: make(chan struct{}, 8)}
	var w Writer
	var written atomic.Int64
	w.Init(Config{Conn: nc, BufSize: 1024, Written: func(n int64) { written.Add(n) }})
	done := make(chan struct{})
	go func() {
		w.Send(Msg{Frame: frame(1), Counted: true}, false)
		close(done)
	}()
	<-nc.entered // the first writer is in write(2)
	for b := byte(2); b <= 4; b++ {
		if !w.Send(Msg{Frame: frame(b), Counted: true}, false) {
			t.Fatal("send refused")
		}
	}
	nc.gate <- struct{}{} // first write done; the same writer writes 2..4
	<-nc.entered
	nc.gate <- struct{}{}
	<-done
	got := nc.snapshot()
	want := [][]byte{frame(1), append(append(frame(2), frame(3)...), frame(4)...)}
	if len(got) != 2 || !bytes.Equal(got[0], want[0]) || !bytes.Equal(got[1], want[1]) {
		t.Fatalf("writes %x, want %x (the three frames queued during the first write in one)", got, want)
	}
	if n := written.Load(); n != 12 {
		t.Fatalf("written %d counted bytes, want 12", n)
	}
}

// TestWriterPostWakesOnlyWithoutWriter: Post wakes the writer goroutine
// when nobody writes, and leaves the frame to the writer in progress
// otherwise.
func TestWriterPostWakesOnlyWithoutWriter(t *testing.T) {
	nc := &countingConn{gate: make(chan struct{}), entered: make(chan struct{}, 8)}
	var w Writer
	var wakes atomic.Int32
	w.Init(Config{Conn: nc, BufSize: 1024, Wake: func() { wakes.Add(1) }})
	w.Post(Msg{Frame: frame(1)})
	if wakes.Load() != 1 {
		t.Fatalf("wakes %d after a post with no writer, want 1", wakes.Load())
	}
	done := make(chan struct{})
	go func() { w.Flush(); close(done) }()
	<-nc.entered
	w.Post(Msg{Frame: frame(2)})
	if wakes.Load() != 1 {
		t.Fatalf("wakes %d after a post during a write, want still 1", wakes.Load())
	}
	nc.gate <- struct{}{}
	<-nc.entered
	nc.gate <- struct{}{}
	<-done
	if got := nc.snapshot(); len(got) != 2 || !bytes.Equal(got[1], frame(2)) {
		t.Fatalf("writes %x, want frame 1 then frame 2 written by the same flush", got)
	}
}

// TestWriterFailure: a failed write calls Failed once; later frames are
// dropped but still counted as written (nothing waits for them) and
// handed back.
func TestWriterFailure(t *testing.T) {
	nc := &countingConn{fail: errors.New("broken pipe")}
	var w Writer
	var fails atomic.Int32
	var written atomic.Int64
	w.Init(Config{Conn: nc, BufSize: 1024, Failed: func(error) { fails.Add(1) }, Written: func(n int64) { written.Add(n) }})
	for b := byte(1); b <= 3; b++ {
		w.Send(Msg{Frame: frame(b), Counted: true}, false)
	}
	if fails.Load() != 1 {
		t.Fatalf("Failed called %d times, want 1", fails.Load())
	}
	if written.Load() != 9 {
		t.Fatalf("written %d, want 9 (dropped frames count too)", written.Load())
	}
}

// TestWriterSwitchesToSegments: after a frame with Then, frames travel in
// v5 segments.
func TestWriterSwitchesToSegments(t *testing.T) {
	nc := &countingConn{}
	var w Writer
	w.Init(Config{Conn: nc, BufSize: 1024})
	ready := frame(9)
	w.Send(Msg{Frame: ready, Then: &Segments{}}, false)
	next := wire.AppendString(wire.StartFrame(nil, 5, 0, 7, wire.OpResult), "after")
	wire.FinishFrame(next)
	w.Send(Msg{Frame: next}, false)
	got := nc.snapshot()
	if len(got) != 2 || !bytes.Equal(got[0], ready) {
		t.Fatalf("writes %x, want the READY frame alone first", got)
	}
	sr := &wire.SegmentReader{R: bufio.NewReader(bytes.NewReader(got[1])), MaxFrame: 1 << 20}
	h, body, err := sr.Next()
	if err != nil {
		t.Fatalf("second write is not a segment: %v (%x)", err, got[1])
	}
	if h.Stream != 7 || !bytes.Equal(body, next[wire.HeaderLen:]) {
		t.Fatalf("segment holds stream %d body %x, want stream 7 body %x", h.Stream, body, next[wire.HeaderLen:])
	}
}

// TestWriterDeadlineRenewedLazily: the write deadline is set once per
// batch but renewed at most once a second of the writer's clock.
func TestWriterDeadlineRenewedLazily(t *testing.T) {
	nc := &countingConn{}
	var w Writer
	now := time.Unix(1000, 0)
	w.Init(Config{Conn: nc, BufSize: 1024, Timeout: 30 * time.Second, Now: func() time.Time { return now }})
	for range 5 {
		w.Send(Msg{Frame: frame(1)}, false)
		now = now.Add(100 * time.Millisecond)
	}
	now = now.Add(time.Second)
	w.Send(Msg{Frame: frame(2)}, false)
	if len(nc.deadlines) != 2 {
		t.Fatalf("write deadline set %d times for 6 batches over 1.5s, want 2", len(nc.deadlines))
	}
	if want := time.Unix(1000, 0).Add(30 * time.Second); !nc.deadlines[0].Equal(want) {
		t.Fatalf("first deadline %v, want %v", nc.deadlines[0], want)
	}
}

// TestWriterClose: Close drops what is queued (handed back and counted)
// and refuses later frames.
func TestWriterClose(t *testing.T) {
	nc := &countingConn{}
	var w Writer
	var written atomic.Int64
	w.Init(Config{Conn: nc, BufSize: 1024, Written: func(n int64) { written.Add(n) }})
	w.Add(Msg{Frame: frame(1), Counted: true})
	w.Close()
	if w.Add(Msg{Frame: frame(2)}) || w.Post(Msg{Frame: frame(2)}) || w.Send(Msg{Frame: frame(2)}, false) {
		t.Fatal("a closed Writer took a frame")
	}
	w.Flush()
	if len(nc.snapshot()) != 0 || written.Load() != 3 {
		t.Fatalf("after Close: %d writes, %d bytes counted; want none written and 3 counted", len(nc.snapshot()), written.Load())
	}
}
