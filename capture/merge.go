package capture

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// DefaultMergeWindow is the reorder window of Merge. Records enter a
// segment in completion order, so a record can follow records that arrived
// after it by up to its latency; Merge holds records back for this long to
// emit them in arrival order. Requests slower than the window may come out
// late by the excess.
const DefaultMergeWindow = time.Second

// MergeOptions tune a Merger.
type MergeOptions struct {
	// Window is the reorder window (DefaultMergeWindow when 0; negative for
	// none: inputs are then assumed sorted).
	Window time.Duration
}

// Merger yields the records of many segments, of one or more nodes, ordered
// by time and, for equal times, by node, session and sequence. Each node's
// segments are read one after another, so only one file per node is open.
type Merger struct {
	ctx    context.Context // the merger's own lifetime
	window int64
	inputs inputHeap
	out    recordHeap
	all    []*mergeInput
	n      uint64
	err    error
}

// mergeInput reads one node's segments in order.
type mergeInput struct {
	segs []SegmentInfo
	idx  int
	r    *Reader
	head *Record
	torn []string
	hdrs []Header
}

// Merge opens paths (segment files or capture directories) for a merged
// read with the default window. The context bounds the merger's lifetime.
func Merge(ctx context.Context, paths ...string) (*Merger, error) {
	return NewMerger(ctx, MergeOptions{}, paths...)
}

// NewMerger is Merge with options.
func NewMerger(ctx context.Context, opts MergeOptions, paths ...string) (*Merger, error) {
	segs, err := expandPaths(paths)
	if err != nil {
		return nil, err
	}
	w := opts.Window
	if w == 0 {
		w = DefaultMergeWindow
	}
	m := &Merger{ctx: ctx, window: max(int64(w), 0)}
	byNode := map[string]*mergeInput{}
	for _, s := range segs {
		key := s.Node
		if key == "" {
			key = "\x00" + s.Path // unnamed files are inputs of their own
		}
		in := byNode[key]
		if in == nil {
			in = &mergeInput{}
			byNode[key] = in
			m.all = append(m.all, in)
		}
		in.segs = append(in.segs, s)
	}
	for _, in := range m.all {
		if err := in.advance(); err != nil {
			m.Close()
			return nil, err
		}
		if in.head != nil {
			heap.Push(&m.inputs, in)
		}
	}
	return m, nil
}

// advance reads the input's next record into head (nil at its end).
func (in *mergeInput) advance() error {
	for {
		if in.r == nil {
			if in.idx >= len(in.segs) {
				in.head = nil
				return nil
			}
			path := in.segs[in.idx].Path
			in.idx++
			r, err := Open(path)
			if err != nil {
				return err
			}
			in.r = r
			in.hdrs = append(in.hdrs, r.Header())
		}
		rec, err := in.r.Next()
		if err == nil {
			in.head = rec
			return nil
		}
		if err != io.EOF {
			return fmt.Errorf("%s: %w", in.segs[in.idx-1].Path, err)
		}
		if in.r.Torn() {
			in.torn = append(in.torn, in.segs[in.idx-1].Path)
		}
		in.r.Close()
		in.r = nil
	}
}

// Next returns the next record in time order, or io.EOF after the last.
func (m *Merger) Next() (*Record, error) {
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
		low := m.inputs[0].head.Time // no input will yield earlier than low-window
		if len(m.out) > 0 && m.out[0].Time+m.window < low {
			return heap.Pop(&m.out).(*Record), nil
		}
		in := m.inputs[0]
		heap.Push(&m.out, in.head)
		if err := in.advance(); err != nil {
			m.err = err
			return nil, err
		}
		if in.head == nil {
			heap.Pop(&m.inputs)
		} else {
			heap.Fix(&m.inputs, 0)
		}
	}
	if len(m.out) > 0 {
		return heap.Pop(&m.out).(*Record), nil
	}
	m.err = io.EOF
	return nil, io.EOF
}

// Torn lists the segments read so far whose tail was torn.
func (m *Merger) Torn() []string {
	var out []string
	for _, in := range m.all {
		out = append(out, in.torn...)
	}
	return out
}

// Headers returns the headers of the segments opened so far, per node in
// segment order; the first segment's SchemaDDL is the schema at the start
// of the capture.
func (m *Merger) Headers() []Header {
	var out []Header
	for _, in := range m.all {
		out = append(out, in.hdrs...)
	}
	return out
}

// Close closes open segment files.
func (m *Merger) Close() error {
	var errs []error
	for _, in := range m.all {
		if in.r != nil {
			errs = append(errs, in.r.Close())
			in.r = nil
		}
	}
	return errors.Join(errs...)
}

type inputHeap []*mergeInput

func (h inputHeap) Len() int           { return len(h) }
func (h inputHeap) Less(i, j int) bool { return h[i].head.less(h[j].head) }
func (h inputHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *inputHeap) Push(x any)        { *h = append(*h, x.(*mergeInput)) }
func (h *inputHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

type recordHeap []*Record

func (h recordHeap) Len() int           { return len(h) }
func (h recordHeap) Less(i, j int) bool { return h[i].less(h[j]) }
func (h recordHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *recordHeap) Push(x any)        { *h = append(*h, x.(*Record)) }
func (h *recordHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return x
}
