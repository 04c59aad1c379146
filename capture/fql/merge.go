package fql

import (
	"container/heap"
	"context"
	"errors"
	"io"
	"time"
)

// DefaultWindow is Merge's default reorder window. Cassandra writes an
// entry when its statement completes, stamped with when it started, so
// within a log an entry can follow entries that started after it by up to
// its latency.
const DefaultWindow = time.Second

// maxHeld bounds the entries Merge holds back for reordering, whatever the
// window: a log whose start times stall (or a damaged one) must not fill
// memory. Past it the earliest held entry is released.
const maxHeld = 1 << 16

// Sourced is an entry and the index of the path (node) it came from, and
// its position among that node's entries (from 1).
type Sourced struct {
	*Entry
	Source int
	Seq    uint64
}

// Merger yields the entries of several nodes' logs ordered by start time,
// then node (path order), then position within the node's log.
type Merger struct {
	ctx     context.Context // the merger's own lifetime
	window  int64           // milliseconds
	readers []*Reader
	inputs  srcHeap
	out     entryHeap
	n       uint64
	err     error
}

type mergeSrc struct {
	r    *Reader
	idx  int
	seq  uint64
	head *Sourced
}

// Merge opens paths (FQL directories or cycle files, one per node) for a
// merged read. window < 0 means none (inputs taken as sorted); 0 means
// DefaultWindow.
func Merge(ctx context.Context, window time.Duration, paths ...string) (*Merger, error) {
	if window == 0 {
		window = DefaultWindow
	}
	m := &Merger{ctx: ctx, window: max(window.Milliseconds(), 0)}
	for i, p := range paths {
		r, err := Open(p)
		if err != nil {
			m.Close()
			return nil, err
		}
		m.readers = append(m.readers, r)
		s := &mergeSrc{r: r, idx: i}
		if err := s.advance(); err != nil {
			m.Close()
			return nil, err
		}
		if s.head != nil {
			m.inputs = append(m.inputs, s)
		}
	}
	heap.Init(&m.inputs)
	return m, nil
}

func (s *mergeSrc) advance() error {
	e, err := s.r.Next()
	if errors.Is(err, io.EOF) {
		s.head = nil
		return nil
	}
	if err != nil {
		return err
	}
	s.seq++
	s.head = &Sourced{Entry: e, Source: s.idx, Seq: s.seq}
	return nil
}

// Next returns the next entry in start-time order, or io.EOF.
func (m *Merger) Next() (*Sourced, error) {
	if m.err != nil {
		return nil, m.err
	}
	m.n++
	if m.n%1024 == 0 {
		if err := m.ctx.Err(); err != nil {
			m.err = err
			return nil, err
		}
	}
	for len(m.inputs) > 0 {
		low := m.inputs[0].head.StartTime
		if len(m.out) > 0 && (m.out[0].StartTime+m.window < low || len(m.out) >= maxHeld) {
			return heap.Pop(&m.out).(*Sourced), nil
		}
		s := m.inputs[0]
		heap.Push(&m.out, s.head)
		if err := s.advance(); err != nil {
			m.err = err
			return nil, err
		}
		if s.head == nil {
			heap.Pop(&m.inputs)
		} else {
			heap.Fix(&m.inputs, 0)
		}
	}
	if len(m.out) > 0 {
		return heap.Pop(&m.out).(*Sourced), nil
	}
	m.err = io.EOF
	return nil, io.EOF
}

// Files lists the cycle files of input i (the i-th path).
func (m *Merger) Files(i int) []string { return m.readers[i].Files() }

// Stats returns the counts of every input, summed.
func (m *Merger) Stats() *Stats {
	var s Stats
	for _, r := range m.readers {
		s.add(r.Stats())
	}
	return &s
}

// Close closes the inputs' open files.
func (m *Merger) Close() error {
	for _, r := range m.readers {
		r.Close()
	}
	return nil
}

func less(a, b *Sourced) bool {
	if a.StartTime != b.StartTime {
		return a.StartTime < b.StartTime
	}
	if a.Source != b.Source {
		return a.Source < b.Source
	}
	return a.Seq < b.Seq
}

type srcHeap []*mergeSrc

func (h srcHeap) Len() int           { return len(h) }
func (h srcHeap) Less(i, j int) bool { return less(h[i].head, h[j].head) }
func (h srcHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *srcHeap) Push(x any)        { *h = append(*h, x.(*mergeSrc)) }
func (h *srcHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

type entryHeap []*Sourced

func (h entryHeap) Len() int           { return len(h) }
func (h entryHeap) Less(i, j int) bool { return less(h[i], h[j]) }
func (h entryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *entryHeap) Push(x any)        { *h = append(*h, x.(*Sourced)) }
func (h *entryHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return x
}
