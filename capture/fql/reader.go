package fql

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Stats count what a Reader read and skipped.
type Stats struct {
	Files   int    // cycle files opened
	Entries uint64 // complete entries (data documents) read
	Decoded uint64 // entries returned
	// Skipped counts entries that could not be imported, by reason
	// ("malformed entry", "bad query options", "unknown type audit", ...).
	Skipped map[string]uint64
	// Examples holds the first error of each skip reason, with its file
	// and offset.
	Examples map[string]string
	// Tails lists the files whose end was not clean: a live log's entry
	// still being written, or a file cut inside an entry. What precedes
	// the tail was read.
	Tails []Tail
}

// Tail is where and how a file stopped before a clean end.
type Tail struct {
	File   string
	Offset int64
	State  string
}

func (s *Stats) skip(file string, off int64, err error) {
	var se *SkipError
	reason := "malformed entry"
	if errors.As(err, &se) {
		reason = se.Reason
	}
	if s.Skipped == nil {
		s.Skipped = map[string]uint64{}
		s.Examples = map[string]string{}
	}
	s.Skipped[reason]++
	if _, ok := s.Examples[reason]; !ok {
		s.Examples[reason] = fmt.Sprintf("%s at offset %d: %v", file, off, err)
	}
}

// SkippedTotal is the number of entries skipped for any reason.
func (s *Stats) SkippedTotal() uint64 {
	var n uint64
	for _, c := range s.Skipped {
		n += c
	}
	return n
}

// add adds o's counts to s.
func (s *Stats) add(o *Stats) {
	s.Files += o.Files
	s.Entries += o.Entries
	s.Decoded += o.Decoded
	for k, v := range o.Skipped {
		if s.Skipped == nil {
			s.Skipped = map[string]uint64{}
			s.Examples = map[string]string{}
		}
		s.Skipped[k] += v
		if _, ok := s.Examples[k]; !ok {
			s.Examples[k] = o.Examples[k]
		}
	}
	s.Tails = append(s.Tails, o.Tails...)
}

// Reader reads the entries of one node's full query log directory (its
// .cq4 cycle files in name order, which is time order) or of single
// cycle files.
type Reader struct {
	files []string
	idx   int
	f     *os.File
	q     *queueFile
	name  string
	stats Stats
}

// Open lists the cycle files of path: a directory's *.cq4 files, or the
// file itself.
func Open(path string) (*Reader, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("fql: %w", err)
	}
	if !fi.IsDir() {
		return &Reader{files: []string{path}}, nil
	}
	ents, err := os.ReadDir(path)
	if err != nil {
		return nil, fmt.Errorf("fql: %w", err)
	}
	r := &Reader{}
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".cq4") {
			r.files = append(r.files, filepath.Join(path, e.Name()))
		}
	}
	sort.Strings(r.files)
	return r, nil
}

// Files lists the cycle files the reader reads.
func (r *Reader) Files() []string { return r.files }

// Stats returns the counts so far.
func (r *Reader) Stats() *Stats { return &r.stats }

// Next returns the next decodable entry, or io.EOF after the last.
// Entries that cannot be decoded are counted in Stats and skipped; an
// error is returned only when a file cannot be read.
func (r *Reader) Next() (*Entry, error) {
	for {
		if r.q == nil {
			if r.idx >= len(r.files) {
				return nil, io.EOF
			}
			if err := r.openNext(); err != nil {
				return nil, err
			}
		}
		doc, off, err := r.q.next()
		if errors.Is(err, errEndOfDocs) {
			if r.q.tail != tailClean {
				r.stats.Tails = append(r.stats.Tails, Tail{File: r.name, Offset: r.q.tailAt, State: r.q.tail.String()})
			}
			r.closeFile()
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("fql: %s: %w", r.name, err)
		}
		r.stats.Entries++
		e, err := decodeEntry(doc)
		if err != nil {
			r.stats.skip(r.name, off, err)
			continue
		}
		e.File, e.Offset = r.name, off
		r.stats.Decoded++
		return e, nil
	}
}

func (r *Reader) openNext() error {
	name := r.files[r.idx]
	r.idx++
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("fql: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("fql: %w", err)
	}
	r.f, r.name, r.q = f, name, newQueueFile(f, fi.Size())
	r.stats.Files++
	return nil
}

func (r *Reader) closeFile() {
	if r.f != nil {
		r.f.Close()
	}
	r.f, r.q = nil, nil
}

// Close closes the open file.
func (r *Reader) Close() error {
	r.closeFile()
	return nil
}
