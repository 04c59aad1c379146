package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/dohyo/dohyo/internal/reorder"
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

// maxHeld bounds the records a Merger holds back for reordering, whatever
// the window: a capture whose times stall (or a damaged one) must not fill
// memory. Past it the earliest held record is released.
const maxHeld = 1 << 16

// Merger yields the records of many segments, of one or more nodes, ordered
// by time and, for equal times, by node, session and sequence. Each node's
// segments are read one after another, so only one file per node is open.
type Merger struct {
	m   *reorder.Merger[*Record]
	all []*mergeInput
}

// mergeInput reads one node's segments in order (a reorder.Source).
type mergeInput struct {
	segs []SegmentInfo
	idx  int
	r    *Reader
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
	m := &Merger{}
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
	sources := make([]reorder.Source[*Record], len(m.all))
	for i, in := range m.all {
		sources[i] = in
	}
	m.m, err = reorder.New(ctx, reorder.Options[*Record]{
		Key:    func(r *Record) int64 { return r.Time },
		Less:   (*Record).less,
		Window: int64(w), MaxHeld: maxHeld,
	}, sources...)
	if err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

// Next reads the input's next record (ok false at its end).
func (in *mergeInput) Next() (*Record, bool, error) {
	for {
		if in.r == nil {
			if in.idx >= len(in.segs) {
				return nil, false, nil
			}
			path := in.segs[in.idx].Path
			in.idx++
			r, err := Open(path)
			if err != nil {
				return nil, false, err
			}
			in.r = r
			in.hdrs = append(in.hdrs, r.Header())
		}
		rec, err := in.r.Next()
		if err == nil {
			return rec, true, nil
		}
		if err != io.EOF {
			return nil, false, fmt.Errorf("%s: %w", in.segs[in.idx-1].Path, err)
		}
		if in.r.Torn() {
			in.torn = append(in.torn, in.segs[in.idx-1].Path)
		}
		in.r.Close()
		in.r = nil
	}
}

// Next returns the next record in time order, or io.EOF after the last.
func (m *Merger) Next() (*Record, error) { return m.m.Next() }

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
