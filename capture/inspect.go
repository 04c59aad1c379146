package capture

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/dohyo/dohyo/bindings"
)

// Summary describes a set of segments (dohyo capture inspect).
type Summary struct {
	Segments int
	Torn     int // segments whose tail was torn (a crash)
	Unclosed int // segments without a trailer (torn, or still being written)
	Nodes    []string
	Versions []string // dohyo versions that wrote the segments
	First    time.Time
	Last     time.Time
	Records  uint64
	Sessions int // distinct (node, session) pairs
	Dropped  uint64
	Errors   uint64 // records with an error outcome, probes excluded
	// Probes are drivers' reads of system.peers_v2 answered Invalid (by
	// servers without the table, as Cassandra 3 and older dohyo builds):
	// how drivers learn to read system.peers instead. Not errors.
	Probes uint64
	// RedactedValues are bound values kept redacted (dropped, hashed or
	// length only); RedactedQueries records whose text is its fingerprint.
	RedactedValues  uint64
	RedactedQueries uint64
	ErrCodes        map[bindings.ErrorCode]uint64
	Sources         map[bindings.Source]uint64
	FileBytes       int64
	// RawBytes are the uncompressed frame bytes (records, definitions).
	RawBytes         uint64
	BytesPerRecord   float64 // file bytes per record
	CompressionRatio float64 // RawBytes / frame bytes in files
	Statements       []StatementSummary
}

// StatementSummary counts the records of one statement class.
type StatementSummary struct {
	Fingerprint string
	Count       uint64
	Errors      uint64                        // error outcomes, probes excluded
	ErrCodes    map[bindings.ErrorCode]uint64 `json:",omitempty"`
	Probes      uint64                        `json:",omitempty"` // see Summary.Probes
	Prepared    uint64                        // records that arrived as EXECUTE
	Rows        uint64
	Latency     time.Duration // total; divide by Count for the mean
}

// Span is Last - First.
func (s *Summary) Span() time.Duration { return s.Last.Sub(s.First) }

// Inspect reads every record of the segments in paths (files or
// directories) and summarises them. Statements are sorted by count,
// descending. Corrupt segments are an error; torn ones are counted.
func Inspect(ctx context.Context, paths ...string) (*Summary, error) {
	segs, err := expandPaths(paths)
	if err != nil {
		return nil, err
	}
	in := newInspector()
	for _, seg := range segs {
		err := scanSegment(ctx, seg.Path, func(r *Reader) error {
			h := r.Header()
			in.nodes[h.Node] = true
			if h.DohyoVersion != "" {
				in.versions[h.DohyoVersion] = true
			}
			for {
				rec, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					return err
				}
				in.record(rec)
				if in.s.Records%4096 == 0 {
					if err := ctx.Err(); err != nil {
						return err
					}
				}
			}
			in.segmentDone(r)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return in.summary(), nil
}

// inspector accumulates a Summary over the records of several segments.
type inspector struct {
	s           *Summary
	nodes       map[string]bool
	versions    map[string]bool
	sessions    map[inspectSession]bool
	stmts       map[string]*StatementSummary
	first, last int64
	frameBytes  int64
}

type inspectSession struct {
	node string
	id   uint64
}

func newInspector() *inspector {
	return &inspector{
		s:        &Summary{ErrCodes: map[bindings.ErrorCode]uint64{}, Sources: map[bindings.Source]uint64{}},
		nodes:    map[string]bool{},
		versions: map[string]bool{},
		sessions: map[inspectSession]bool{},
		stmts:    map[string]*StatementSummary{},
	}
}

// record counts one record in the totals and its statement's summary.
func (in *inspector) record(rec *Record) {
	s := in.s
	if s.Records == 0 || rec.Time < in.first {
		in.first = rec.Time
	}
	if s.Records == 0 || rec.Time > in.last {
		in.last = rec.Time
	}
	s.Records++
	in.sessions[inspectSession{rec.Node, rec.Session}] = true
	s.Sources[rec.Source]++
	st := in.stmts[rec.Fingerprint]
	if st == nil {
		st = &StatementSummary{Fingerprint: rec.Fingerprint}
		in.stmts[rec.Fingerprint] = st
	}
	st.Count++
	st.Rows += uint64(rec.Rows)
	st.Latency += rec.Latency
	if rec.Prepared {
		st.Prepared++
	}
	if rec.QueryRedacted {
		s.RedactedQueries++
	}
	for _, v := range rec.Values {
		if v.Redacted != NotRedacted {
			s.RedactedValues++
		}
	}
	switch {
	case rec.Err && isPeersV2Probe(rec.Fingerprint, rec.ErrCode):
		st.Probes++
		s.Probes++
	case rec.Err:
		st.Errors++
		s.Errors++
		s.ErrCodes[rec.ErrCode]++
		if st.ErrCodes == nil {
			st.ErrCodes = map[bindings.ErrorCode]uint64{}
		}
		st.ErrCodes[rec.ErrCode]++
	}
}

// segmentDone adds a fully read segment's sizes and state.
func (in *inspector) segmentDone(r *Reader) {
	s := in.s
	st := r.Stats()
	s.RawBytes += st.RawBytes
	s.Dropped += r.Dropped()
	s.FileBytes += st.FileBytes
	in.frameBytes += st.FileBytes - r.hdrLen
	s.Segments++
	if r.Torn() {
		s.Torn++
	}
	if _, ok := r.Trailer(); !ok {
		s.Unclosed++
	}
}

// summary finishes the Summary: sorted nodes and versions, rates, and
// statements by count.
func (in *inspector) summary() *Summary {
	s := in.s
	for n := range in.nodes {
		s.Nodes = append(s.Nodes, n)
	}
	sort.Strings(s.Nodes)
	for v := range in.versions {
		s.Versions = append(s.Versions, v)
	}
	sort.Strings(s.Versions)
	s.Sessions = len(in.sessions)
	if s.Records > 0 {
		s.First, s.Last = time.Unix(0, in.first).UTC(), time.Unix(0, in.last).UTC()
		s.BytesPerRecord = float64(s.FileBytes) / float64(s.Records)
	}
	if in.frameBytes > 0 {
		s.CompressionRatio = float64(s.RawBytes) / float64(in.frameBytes)
	}
	for _, st := range in.stmts {
		s.Statements = append(s.Statements, *st)
	}
	sort.Slice(s.Statements, func(i, j int) bool {
		a, b := s.Statements[i], s.Statements[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Fingerprint < b.Fingerprint
	})
	return s
}

// isPeersV2Probe reports whether a statement is a driver's read of
// system.peers_v2 answered Invalid (see Summary.Probes).
func isPeersV2Probe(fingerprint string, code bindings.ErrorCode) bool {
	if code != bindings.CodeInvalid {
		return false
	}
	f := strings.ToLower(fingerprint)
	return strings.HasPrefix(f, "select ") && strings.Contains(f, " from system.peers_v2")
}

func scanSegment(ctx context.Context, path string, fn func(*Reader) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	r, err := Open(path)
	if err != nil {
		return err
	}
	defer r.Close()
	return fn(r)
}

// SegmentCheck is the verification result of one segment.
type SegmentCheck struct {
	Path     string
	Records  uint64
	Torn     bool  // the tail is torn (crash); records before it are fine
	TornAt   int64 // offset of the torn tail
	Closed   bool  // a trailer is present
	Trailer  Trailer
	Mismatch bool  // the trailer's record count differs from the records read
	Err      error // corrupt data, unknown version, not a segment, I/O
}

// MarshalJSON writes Err as its message (an error value has no fields).
func (c SegmentCheck) MarshalJSON() ([]byte, error) {
	type plain SegmentCheck
	out := struct {
		plain
		Err string `json:",omitempty"`
	}{plain: plain(c)}
	if c.Err != nil {
		out.Err = c.Err.Error()
	}
	return json.Marshal(out)
}

// OK reports whether the segment reads completely and agrees with its
// trailer. Torn and unclosed segments are OK (a crash is expected to leave
// them); use the flags to report them.
func (c SegmentCheck) OK() bool { return c.Err == nil && !c.Mismatch }

// VerifyReport is the result of Verify.
type VerifyReport struct {
	Segments []SegmentCheck
	Records  uint64
}

// OK reports whether every segment is OK.
func (v *VerifyReport) OK() bool {
	for _, s := range v.Segments {
		if !s.OK() {
			return false
		}
	}
	return true
}

// Verify reads every segment in paths completely and reports, per segment,
// torn tails, missing trailers, trailer mismatches and corruption. The
// error is for problems outside segments (a missing path, ctx).
func Verify(ctx context.Context, paths ...string) (*VerifyReport, error) {
	segs, err := expandPaths(paths)
	if err != nil {
		return nil, err
	}
	rep := &VerifyReport{}
	for _, seg := range segs {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		c := SegmentCheck{Path: seg.Path}
		if fi, err := os.Stat(seg.Path); err == nil && fi.Size() == 0 {
			c.Err = errors.New("empty file: no segment header")
			rep.Segments = append(rep.Segments, c)
			continue
		}
		c.Err = scanSegment(ctx, seg.Path, func(r *Reader) error {
			for {
				_, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					return err
				}
				c.Records++
			}
			c.Torn, c.TornAt = r.Torn(), r.TornAt()
			c.Trailer, c.Closed = r.Trailer()
			c.Mismatch = c.Closed && c.Trailer.Records != c.Records
			if r.TornCorrupt() {
				return corruptf(c.TornAt, "last block: checksum mismatch over a complete block (corrupt, not torn)")
			}
			return nil
		})
		rep.Records += c.Records
		rep.Segments = append(rep.Segments, c)
	}
	return rep, nil
}
