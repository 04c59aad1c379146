package capture

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Segment file names: <node>-<start>-<seq>.dcap, start in UTC with
// milliseconds, seq at least 6 digits.
const (
	segmentExt    = ".dcap"
	segmentLayout = "20060102T150405.000Z"
)

// SegmentName returns the file name of a node's segment.
func SegmentName(node string, start time.Time, seq uint64) string {
	return fmt.Sprintf("%s-%s-%06d%s", node, start.UTC().Format(segmentLayout), seq, segmentExt)
}

// ParseSegmentName splits a segment file name (a base name or a path).
func ParseSegmentName(name string) (node string, start time.Time, seq uint64, ok bool) {
	base, found := strings.CutSuffix(filepath.Base(name), segmentExt)
	if !found {
		return "", time.Time{}, 0, false
	}
	i := strings.LastIndexByte(base, '-')
	if i < 0 || len(base)-i-1 < 6 {
		return "", time.Time{}, 0, false
	}
	seq, err := strconv.ParseUint(base[i+1:], 10, 64)
	if err != nil {
		return "", time.Time{}, 0, false
	}
	base = base[:i]
	n := len(segmentLayout)
	if len(base) < n+2 || base[len(base)-n-1] != '-' {
		return "", time.Time{}, 0, false
	}
	start, err = time.Parse(segmentLayout, base[len(base)-n:])
	if err != nil {
		return "", time.Time{}, 0, false
	}
	return base[:len(base)-n-1], start, seq, true
}

// SegmentInfo describes a segment file found in a directory.
type SegmentInfo struct {
	Path  string
	Node  string
	Start time.Time
	Seq   uint64
	Size  int64
}

// ReadDir lists the segment files of a capture directory, oldest first (by
// start time, then node and sequence). Files whose names are not segment
// names are ignored.
func ReadDir(dir string) ([]SegmentInfo, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	var out []SegmentInfo
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		node, start, seq, ok := ParseSegmentName(e.Name())
		if !ok {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile (retention)
		}
		out = append(out, SegmentInfo{Path: filepath.Join(dir, e.Name()), Node: node,
			Start: start, Seq: seq, Size: info.Size()})
	}
	sortSegments(out)
	return out, nil
}

func sortSegments(s []SegmentInfo) {
	sort.SliceStable(s, func(i, j int) bool {
		a, b := s[i], s[j]
		if !a.Start.Equal(b.Start) {
			return a.Start.Before(b.Start)
		}
		if a.Node != b.Node {
			return a.Node < b.Node
		}
		return a.Seq < b.Seq
	})
}

// nextSegmentSeq continues a node's sequence after a restart.
func nextSegmentSeq(dir, node string) (uint64, error) {
	segs, err := ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, nil
		}
		return 0, err
	}
	var next uint64
	for _, s := range segs {
		if s.Node == node && s.Seq >= next {
			next = s.Seq + 1
		}
	}
	return next, nil
}

// expandPaths turns files and directories into segment infos, grouped by
// node and ordered within a node.
func expandPaths(paths []string) ([]SegmentInfo, error) {
	var out []SegmentInfo
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("capture: %w", err)
		}
		if st.IsDir() {
			segs, err := ReadDir(p)
			if err != nil {
				return nil, err
			}
			out = append(out, segs...)
			continue
		}
		info := SegmentInfo{Path: p, Size: st.Size()}
		if node, start, seq, ok := ParseSegmentName(p); ok {
			info.Node, info.Start, info.Seq = node, start, seq
		}
		out = append(out, info)
	}
	sortSegments(out)
	return out, nil
}
