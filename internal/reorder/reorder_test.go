package reorder

import (
	"context"
	"errors"
	"io"
	"slices"
	"testing"
)

type item struct{ key, src, seq int }

type sliceSource struct {
	items []item
	err   error // returned after the items
}

func (s *sliceSource) Next() (item, bool, error) {
	if len(s.items) == 0 {
		return item{}, false, s.err
	}
	it := s.items[0]
	s.items = s.items[1:]
	return it, true, nil
}

func opts(window int64, held int) Options[item] {
	return Options[item]{
		Key: func(i item) int64 { return int64(i.key) },
		Less: func(a, b item) bool {
			if a.key != b.key {
				return a.key < b.key
			}
			if a.src != b.src {
				return a.src < b.src
			}
			return a.seq < b.seq
		},
		Window: window, MaxHeld: held,
	}
}

func drain(t *testing.T, m *Merger[item]) []int {
	t.Helper()
	var keys []int
	for {
		it, err := m.Next()
		if errors.Is(err, io.EOF) {
			return keys
		}
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, it.key)
	}
}

func src(id int, keys ...int) *sliceSource {
	s := &sliceSource{}
	for i, k := range keys {
		s.items = append(s.items, item{k, id, i})
	}
	return s
}

// TestWithinWindowSorted: items out of order by at most the window come
// out sorted across sources; ties break by source then position.
func TestWithinWindowSorted(t *testing.T) {
	m, err := New(context.Background(), opts(5, 0), src(0, 3, 1, 6, 4, 9), src(1, 2, 2, 8, 7, 10))
	if err != nil {
		t.Fatal(err)
	}
	got := drain(t, m)
	if !slices.IsSorted(got) || len(got) != 10 {
		t.Fatalf("merged %v", got)
	}
}

// TestWindowBoundsTheReorder: an item later than the window behind its
// stream comes out late (the window is the promise, not more); a window
// that covers it sorts it.
func TestWindowBoundsTheReorder(t *testing.T) {
	m, _ := New(context.Background(), opts(1, 0), src(0, 10, 20, 1))
	if got := drain(t, m); !slices.Equal(got, []int{10, 1, 20}) {
		t.Fatalf("window 1: merged %v", got)
	}
	m, _ = New(context.Background(), opts(20, 0), src(0, 10, 20, 1))
	if got := drain(t, m); !slices.Equal(got, []int{1, 10, 20}) {
		t.Fatalf("window 20: merged %v", got)
	}
}

// TestMaxHeldBoundsMemory: a source whose keys stall behind a huge window
// does not make the merger hold more than MaxHeld items.
func TestMaxHeldBoundsMemory(t *testing.T) {
	keys := make([]int, 100)
	m, _ := New(context.Background(), opts(1<<40, 8), src(0, keys...))
	peak := 0
	for {
		_, err := m.Next()
		if err != nil {
			break
		}
		peak = max(peak, m.Held())
	}
	if peak > 8 {
		t.Fatalf("held %d items, bound 8", peak)
	}
}

// TestSourceErrorEnds: a source's error ends the merge and stays.
func TestSourceErrorEnds(t *testing.T) {
	bad := errors.New("torn")
	m, _ := New(context.Background(), opts(0, 0), &sliceSource{items: []item{{1, 0, 0}}, err: bad})
	var err error
	for err == nil {
		_, err = m.Next()
	}
	if !errors.Is(err, bad) {
		t.Fatalf("err %v", err)
	}
	if _, err2 := m.Next(); !errors.Is(err2, bad) {
		t.Fatalf("then %v", err2)
	}
}

// TestContextEnds: a cancelled context ends a long merge.
func TestContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m, _ := New(ctx, opts(0, 0), src(0, make([]int, 5000)...))
	n := 0
	var err error
	for err == nil {
		_, err = m.Next()
		n++
	}
	if !errors.Is(err, context.Canceled) || n > 1024 {
		t.Fatalf("after %d items: %v", n, err)
	}
}
