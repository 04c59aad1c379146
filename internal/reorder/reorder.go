package reorder

import (
	"container/heap"
	"context"
	"io"
)

// Source is one input stream, nearly sorted by the merger's key. Next
// returns the next item, or ok false at the stream's end.
type Source[T any] interface {
	Next() (item T, ok bool, err error)
}

// Options describe the order and the window.
type Options[T any] struct {
	// Key is an item's position in the order (a time), in the unit of
	// Window.
	Key func(T) int64
	// Less orders items completely (Key first, then tie-breakers).
	Less func(a, b T) bool
	// Window is how far behind the latest item of a stream an item of
	// another stream may still come (negative: none, inputs sorted).
	Window int64
	// MaxHeld bounds the items held back for reordering whatever the
	// window (0: unbounded): past it the earliest held item is released,
	// so a stream whose keys stall cannot fill memory.
	MaxHeld int
}

// Merger yields the items of its sources in Less order, within the window.
type Merger[T any] struct {
	ctx    context.Context // the merger's lifetime, checked every 1,024 items
	opts   Options[T]
	inputs inputHeap[T]
	out    itemHeap[T]
	n      uint64
	err    error
}

type input[T any] struct {
	src  Source[T]
	head T
}

// New reads the first item of every source. ctx bounds the merger's
// lifetime.
func New[T any](ctx context.Context, opts Options[T], sources ...Source[T]) (*Merger[T], error) {
	m := &Merger[T]{ctx: ctx, opts: opts}
	m.opts.Window = max(opts.Window, 0)
	m.inputs.less, m.out.less = opts.Less, opts.Less
	for _, s := range sources {
		in := &input[T]{src: s}
		ok, err := in.advance()
		if err != nil {
			return nil, err
		}
		if ok {
			m.inputs.items = append(m.inputs.items, in)
		}
	}
	heap.Init(&m.inputs)
	return m, nil
}

func (in *input[T]) advance() (bool, error) {
	item, ok, err := in.src.Next()
	if err != nil || !ok {
		var zero T
		in.head = zero
		return false, err
	}
	in.head = item
	return true, nil
}

// Next returns the next item in order, or io.EOF after the last. An error
// of a source or of ctx ends the merge: it is returned from then on.
func (m *Merger[T]) Next() (T, error) {
	var zero T
	if m.err != nil {
		return zero, m.err
	}
	m.n++
	if m.n%1024 == 0 {
		if err := m.ctx.Err(); err != nil {
			m.err = err
			return zero, err
		}
	}
	for len(m.inputs.items) > 0 {
		// no source will yield an item earlier than low-window
		low := m.opts.Key(m.inputs.items[0].head)
		if len(m.out.items) > 0 && (m.opts.Key(m.out.items[0])+m.opts.Window < low ||
			(m.opts.MaxHeld > 0 && len(m.out.items) >= m.opts.MaxHeld)) {
			return heap.Pop(&m.out).(T), nil
		}
		in := m.inputs.items[0]
		heap.Push(&m.out, in.head)
		ok, err := in.advance()
		if err != nil {
			m.err = err
			return zero, err
		}
		if ok {
			heap.Fix(&m.inputs, 0)
		} else {
			heap.Pop(&m.inputs)
		}
	}
	if len(m.out.items) > 0 {
		return heap.Pop(&m.out).(T), nil
	}
	m.err = io.EOF
	return zero, io.EOF
}

// Held is the number of items held back for reordering.
func (m *Merger[T]) Held() int { return len(m.out.items) }

type inputHeap[T any] struct {
	items []*input[T]
	less  func(a, b T) bool
}

func (h *inputHeap[T]) Len() int           { return len(h.items) }
func (h *inputHeap[T]) Less(i, j int) bool { return h.less(h.items[i].head, h.items[j].head) }
func (h *inputHeap[T]) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *inputHeap[T]) Push(x any)         { h.items = append(h.items, x.(*input[T])) }
func (h *inputHeap[T]) Pop() any {
	x := h.items[len(h.items)-1]
	h.items[len(h.items)-1] = nil
	h.items = h.items[:len(h.items)-1]
	return x
}

type itemHeap[T any] struct {
	items []T
	less  func(a, b T) bool
}

func (h *itemHeap[T]) Len() int           { return len(h.items) }
func (h *itemHeap[T]) Less(i, j int) bool { return h.less(h.items[i], h.items[j]) }
func (h *itemHeap[T]) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *itemHeap[T]) Push(x any)         { h.items = append(h.items, x.(T)) }
func (h *itemHeap[T]) Pop() any {
	var zero T
	x := h.items[len(h.items)-1]
	h.items[len(h.items)-1] = zero
	h.items = h.items[:len(h.items)-1]
	return x
}
