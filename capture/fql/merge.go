package fql

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/dohyo/dohyo/internal/reorder"
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
	m       *reorder.Merger[*Sourced]
	readers []*Reader
}

// mergeSrc reads one node's log (a reorder.Source), numbering its entries.
type mergeSrc struct {
	r   *Reader
	idx int
	seq uint64
}

// Merge opens paths (FQL directories or cycle files, one per node) for a
// merged read. window < 0 means none (inputs taken as sorted); 0 means
// DefaultWindow.
func Merge(ctx context.Context, window time.Duration, paths ...string) (*Merger, error) {
	if window == 0 {
		window = DefaultWindow
	}
	m := &Merger{}
	sources := make([]reorder.Source[*Sourced], len(paths))
	for i, p := range paths {
		r, err := Open(p)
		if err != nil {
			m.Close()
			return nil, err
		}
		m.readers = append(m.readers, r)
		sources[i] = &mergeSrc{r: r, idx: i}
	}
	var err error
	m.m, err = reorder.New(ctx, reorder.Options[*Sourced]{
		Key:    func(e *Sourced) int64 { return e.StartTime },
		Less:   less,
		Window: window.Milliseconds(), MaxHeld: maxHeld,
	}, sources...)
	if err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

// Next reads the source's next entry (ok false at its end).
func (s *mergeSrc) Next() (*Sourced, bool, error) {
	e, err := s.r.Next()
	if errors.Is(err, io.EOF) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	s.seq++
	return &Sourced{Entry: e, Source: s.idx, Seq: s.seq}, true, nil
}

// Next returns the next entry in start-time order, or io.EOF.
func (m *Merger) Next() (*Sourced, error) { return m.m.Next() }

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
