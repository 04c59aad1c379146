package widecolumn

import (
	"bytes"
	"context"
	"fmt"
	"math"

	"github.com/dohyo/dohyo/schema"
)

// mergedScan iterates the rows of every salt bucket of a table in token
// order (a k-way merge of one KV scan per bucket).
type mergedScan struct {
	codec  *KeyCodec
	its    []RowIterator
	heads  []Row
	ok     []bool
	err    error
	x      *execCtx
	ti     *tableInfo
	ranges []KeyRange
	limit  int
}

func (x *execCtx) openMergedScan(ctx context.Context, ti *tableInfo, ranges []KeyRange, limit int) (*mergedScan, error) {
	m := &mergedScan{codec: ti.codec, x: x, ti: ti, ranges: ranges, limit: limit}
	if err := m.open(ctx); err != nil {
		return nil, err
	}
	return m, nil
}

// seek restarts every bucket's scan at position from (merged order): used
// to skip the rest of a long partition nobody wants.
func (m *mergedScan) seek(ctx context.Context, from []byte) error {
	m.close()
	m.its, m.heads, m.ok = nil, nil, nil
	sl := 0
	if m.codec.Buckets() > 0 {
		sl = 1
	}
	for i, r := range m.ranges {
		f := from
		if sl == 1 {
			f = append([]byte{byte(m.codec.Bucket(r.Start))}, from[1:]...)
			if r.Start == nil {
				f = append([]byte{0}, from[1:]...)
			}
		}
		if r.Start == nil || bytes.Compare(f, r.Start) > 0 {
			m.ranges[i].Start = f
		}
	}
	return m.open(ctx)
}

func (m *mergedScan) open(ctx context.Context) error {
	ti, x, limit := m.ti, m.x, m.limit
	for _, r := range m.ranges {
		if r.Stop != nil && bytes.Compare(r.Start, r.Stop) >= 0 {
			continue
		}
		it, err := x.e.kv.Scan(ctx, ti.spec, ScanRange{Start: r.Start, Stop: r.Stop, Limit: limit})
		if err != nil {
			m.close()
			return fmt.Errorf("scan %s: %w", ti, err)
		}
		m.its = append(m.its, it)
		row, ok := it.Next(ctx)
		m.heads = append(m.heads, row)
		m.ok = append(m.ok, ok)
		if !ok {
			if err := it.Err(); err != nil {
				m.close()
				return fmt.Errorf("scan %s: %w", ti, err)
			}
		}
	}
	return nil
}

func (m *mergedScan) next(ctx context.Context) (Row, bool) {
	best := -1
	for i, ok := range m.ok {
		if !ok {
			continue
		}
		if best < 0 || m.codec.MergeCompare(m.heads[i].Key, m.heads[best].Key) < 0 {
			best = i
		}
	}
	if best < 0 {
		return Row{}, false
	}
	row := m.heads[best]
	m.heads[best], m.ok[best] = m.its[best].Next(ctx)
	if !m.ok[best] {
		if err := m.its[best].Err(); err != nil {
			m.err = err
			return Row{}, false
		}
	}
	return row, true
}

// rowSource yields the KV rows of a scan in merged (token) order: a
// mergedScan over key ranges, or an indexSource over index candidates.
type rowSource interface {
	next(ctx context.Context) (Row, bool)
	seek(ctx context.Context, from []byte) error
	close()
	failed() error
}

func (m *mergedScan) failed() error { return m.err }

func (m *mergedScan) close() {
	for _, it := range m.its {
		it.Close()
	}
}

// scanRanges returns one range per salt bucket, limited by token bounds and
// starting at from (a position in merged order, salt byte ignored).
func (x *execCtx) scanRanges(ti *tableInfo, p *selectPlan, from []byte) ([]KeyRange, error) {
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if len(p.w.token) > 0 {
		span, err := x.evalTokenSpan(ti, p.w.token)
		if err != nil {
			return nil, err
		}
		var ok bool
		if lo, hi, ok = span.ringRange(); !ok {
			return nil, nil
		}
	}
	buckets := max(ti.codec.Buckets(), 1)
	var out []KeyRange
	for b := 0; b < buckets; b++ {
		r, ok := ti.codec.TokenRange(b, lo, hi)
		if !ok {
			return nil, nil
		}
		if lo == math.MinInt64 {
			r.Start = ti.codec.BucketRange(b).Start
		}
		if from != nil {
			f := from
			if ti.codec.Buckets() > 0 {
				f = append([]byte{byte(b)}, from[1:]...)
			}
			if r.Start == nil || bytes.Compare(f, r.Start) > 0 {
				r.Start = f
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// runScan executes a query over the whole table (or token ranges) in token
// order, filtering partition keys when restricted.
func (s *selectRun) runScan(ctx context.Context, resume *pagingState) error {
	ti := s.ti
	var from []byte
	var resumePart []byte // prefix of a partition resumed in the middle
	if resume != nil {
		prefix, err := ti.codec.PartitionPrefix(resume.lastKey)
		if err != nil {
			return errBadPagingState
		}
		if resume.partDone {
			from = append(append([]byte(nil), prefix...), keyHigh)
		} else {
			from = KeySuccessor(resume.lastKey)
			resumePart = prefix
			s.partCount = resume.partCount
		}
	}
	ranges, err := s.x.scanRanges(ti, s.p, from)
	if err != nil || len(ranges) == 0 {
		return err
	}
	var m rowSource
	switch {
	case s.p.index != nil:
		m, err = s.openIndexSource(ctx, ranges)
	case s.ann != nil && s.p.ann.index.lsh != nil && !s.x.e.annExact:
		m, err = s.openANNSource(ctx, ranges)
	default:
		m, err = s.x.openMergedScan(ctx, ti, ranges, s.x.scanHint)
	}
	if err != nil {
		return err
	}
	defer m.close()

	var (
		cur      *partition
		curPre   []byte
		skip     bool // rest of the current partition is not wanted
		skipped  int  // rows skipped in the current partition
		pkSkip   bool // the partition key does not match the filters
		anyRow   bool
		resumed  = resumePart != nil
		pkFilter = s.filters
	)
	finish := func() {
		if cur == nil || pkSkip || s.stopped {
			return
		}
		st := cur.hdr.statics
		if s.p.distinct {
			if st != nil || anyRow {
				row := st
				if row == nil {
					row = &cqlRow{key: cur.key, pk: cur.pk, static: true}
				}
				if matchAll(s.filters, ti, row, st) {
					s.emit(row, st, true)
				}
			}
			return
		}
		if !anyRow && s.p.staticRows && st != nil && ti.hasCK && matchAll(s.filters, ti, st, st) {
			s.emit(st, st, true)
		}
	}
	for !s.stopped {
		if err := ctx.Err(); err != nil {
			return err
		}
		kv, ok := m.next(ctx)
		if !ok {
			break
		}
		prefix, err := ti.codec.PartitionPrefix(kv.Key)
		if err != nil {
			return err
		}
		if cur == nil || !bytes.Equal(prefix, curPre) {
			finish()
			if s.stopped {
				break
			}
			pk, _, err := ti.codec.DecodeRowKey(kv.Key)
			if err != nil {
				return err
			}
			curPre = append(curPre[:0], prefix...)
			skip, anyRow, skipped, pkSkip = false, false, 0, false
			if !resumed || !bytes.Equal(prefix, resumePart) {
				s.partCount = 0
			}
			s.partDone = false
			isHeader := len(kv.Key) == len(prefix)+1
			key, err := ti.codec.PartitionKey(pk)
			if err != nil {
				return err
			}
			var hrow Row
			switch {
			case isHeader:
				hrow = kv
			case resumed && bytes.Equal(prefix, resumePart):
				rows, err := s.x.e.kv.Get(ctx, ti.spec, [][]byte{key})
				if err != nil {
					return fmt.Errorf("read %s: %w", ti, err)
				}
				if len(rows) == 1 {
					hrow = rows[0]
				}
			}
			if resumed && bytes.Equal(prefix, resumePart) {
				anyRow = true // rows of it were returned on earlier pages
			}
			resumed = false
			if cur, err = s.x.partitionFromHeader(ti, pk, key, hrow); err != nil {
				return err
			}
			if !s.pkMatches(pk, pkFilter) {
				skip, pkSkip = true, true
				continue
			}
			if isHeader {
				if !ti.hasCK {
					if cur.noCK != nil && cur.noCK.live {
						anyRow = true
						if s.p.distinct {
							continue
						}
						if matchAll(s.filters, ti, cur.noCK, nil) {
							s.emit(cur.noCK, nil, false)
						}
					}
					skip = true
				} else if s.p.distinct && cur.hdr.statics != nil {
					anyRow = true
				}
				continue
			}
		}
		if skip || !ti.hasCK || len(kv.Key) == len(prefix)+1 {
			if skip && ti.hasCK {
				if skipped++; skipped == 64 {
					// A long partition nobody wants: jump past it.
					if err := m.seek(ctx, append(append([]byte(nil), prefix...), keyHigh)); err != nil {
						return err
					}
				}
			}
			continue
		}
		if s.p.distinct && anyRow {
			skip = true
			continue
		}
		r, err := s.x.clusteringRow(ti, cur, kv)
		if err != nil {
			return err
		}
		if !r.live {
			continue
		}
		anyRow = true
		if s.p.distinct {
			continue
		}
		if !matchAll(s.filters, ti, r, cur.hdr.statics) {
			continue
		}
		if !s.emit(r, cur.hdr.statics, false) {
			skip = true
		}
	}
	if err := m.failed(); err != nil {
		return fmt.Errorf("scan %s: %w", ti, err)
	}
	if !s.stopped {
		finish()
	}
	return nil
}

// pkMatches applies the partition-key filters of a scan early, so that
// partitions that cannot match are skipped without decoding their rows.
func (s *selectRun) pkMatches(pk [][]byte, fs []*evFilter) bool {
	row := &cqlRow{pk: pk}
	for _, f := range fs {
		if f.r.multi || s.ti.cols[f.r.cols[0]].Kind != schema.PartitionKey {
			continue
		}
		if !f.match(s.ti, row, nil) {
			return false
		}
	}
	return true
}
