package engine

import (
	"bytes"
	"context"
	"fmt"
	"math"

	"github.com/dohyo/dohyo/engine/kv"
	"github.com/dohyo/dohyo/schema"
)

// mergedScan iterates the rows of every salt bucket of a table in token
// order (a k-way merge of one KV scan per bucket).
type mergedScan struct {
	codec  *KeyCodec
	its    []kv.RowIterator
	heads  []kv.Row
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
		it, err := x.e.kv.Scan(ctx, ti.spec, kv.ScanRange{Start: r.Start, Stop: r.Stop, Limit: limit})
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

func (m *mergedScan) next(ctx context.Context) (kv.Row, bool) {
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
		return kv.Row{}, false
	}
	row := m.heads[best]
	m.heads[best], m.ok[best] = m.its[best].Next(ctx)
	if !m.ok[best] {
		if err := m.its[best].Err(); err != nil {
			m.err = err
			return kv.Row{}, false
		}
	}
	return row, true
}

// rowSource yields the KV rows of a scan in merged (token) order: a
// mergedScan over key ranges, or an indexSource over index candidates.
type rowSource interface {
	next(ctx context.Context) (kv.Row, bool)
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
	from, resumePart, err := s.scanResume(resume)
	if err != nil {
		return err
	}
	ranges, err := s.x.scanRanges(ti, s.p, from)
	if err != nil || len(ranges) == 0 {
		return err
	}
	m, err := s.openScanSource(ctx, ranges)
	if err != nil {
		return err
	}
	defer m.close()

	c := scanCursor{m: m, resumePart: resumePart, resumed: resumePart != nil}
	for !s.stopped {
		if err := ctx.Err(); err != nil {
			return err
		}
		krow, ok := m.next(ctx)
		if !ok {
			break
		}
		prefix, err := ti.codec.PartitionPrefix(krow.Key)
		if err != nil {
			return err
		}
		if c.cur == nil || !bytes.Equal(prefix, c.curPre) {
			s.finishPartition(&c)
			if s.stopped {
				break
			}
			done, err := s.enterPartition(ctx, &c, krow, prefix)
			if err != nil {
				return err
			}
			if done {
				continue
			}
		}
		if err := s.scanRow(ctx, &c, krow, prefix); err != nil {
			return err
		}
	}
	if err := m.failed(); err != nil {
		return fmt.Errorf("scan %s: %w", ti, err)
	}
	if !s.stopped {
		s.finishPartition(&c)
	}
	return nil
}

// scanCursor is runScan's position: the source and the partition being
// read, with what is known of it so far.
type scanCursor struct {
	m       rowSource
	cur     *partition
	curPre  []byte
	skip    bool // rest of the current partition is not wanted
	skipped int  // rows skipped in the current partition
	pkSkip  bool // the partition key does not match the filters
	anyRow  bool
	// resumed: the scan resumes in the middle of partition resumePart
	// (its prefix), and has not left it yet.
	resumed    bool
	resumePart []byte
}

// scanResume returns where a scan resumed from a paging state starts and,
// when it resumes in the middle of a partition, that partition's prefix
// (restoring the partition's row count). Both are nil without resume.
func (s *selectRun) scanResume(resume *pagingState) (from, resumePart []byte, err error) {
	if resume == nil {
		return nil, nil, nil
	}
	prefix, err := s.ti.codec.PartitionPrefix(resume.lastKey)
	if err != nil {
		return nil, nil, errBadPagingState
	}
	if resume.partDone {
		return append(append([]byte(nil), prefix...), keyHigh), nil, nil
	}
	s.partCount = resume.partCount
	return KeySuccessor(resume.lastKey), prefix, nil
}

// openScanSource opens the rows a scan reads: index candidates, ANN
// candidates, or every row of ranges.
func (s *selectRun) openScanSource(ctx context.Context, ranges []KeyRange) (rowSource, error) {
	switch {
	case s.p.index != nil:
		return s.openIndexSource(ctx, ranges)
	case s.ann != nil && s.p.ann.index.lsh != nil && !s.x.e.annExact:
		return s.openANNSource(ctx, ranges)
	}
	return s.x.openMergedScan(ctx, s.ti, ranges, s.x.scanHint)
}

// finishPartition emits what the partition just read yields at its end:
// its DISTINCT row, or the static row of a partition without rows.
func (s *selectRun) finishPartition(c *scanCursor) {
	if c.cur == nil || c.pkSkip || s.stopped {
		return
	}
	ti, st := s.ti, c.cur.hdr.statics
	if s.p.distinct {
		if st != nil || c.anyRow {
			row := st
			if row == nil {
				row = &cqlRow{key: c.cur.key, pk: c.cur.pk, static: true}
			}
			if matchAll(s.filters, ti, row, st) {
				s.emit(row, st, true)
			}
		}
		return
	}
	if !c.anyRow && s.p.staticRows && st != nil && ti.hasCK && matchAll(s.filters, ti, st, st) {
		s.emit(st, st, true)
	}
}

// enterPartition starts the partition of krow (its first row, prefix its
// partition prefix): it decodes the partition key and header and applies
// the partition-key filters. done says krow needs nothing more (a header, or
// a partition the filters skip).
func (s *selectRun) enterPartition(ctx context.Context, c *scanCursor, krow kv.Row, prefix []byte) (done bool, err error) {
	ti := s.ti
	pk, _, err := ti.codec.DecodeRowKey(krow.Key)
	if err != nil {
		return false, err
	}
	c.curPre = append(c.curPre[:0], prefix...)
	c.skip, c.anyRow, c.skipped, c.pkSkip = false, false, 0, false
	resumedHere := c.resumed && bytes.Equal(prefix, c.resumePart)
	if !resumedHere {
		s.partCount = 0
	}
	s.partDone = false
	isHeader := len(krow.Key) == len(prefix)+1
	key, err := ti.codec.PartitionKey(pk)
	if err != nil {
		return false, err
	}
	var hrow kv.Row
	switch {
	case isHeader:
		hrow = krow
	case resumedHere:
		rows, err := s.x.e.kv.Get(ctx, ti.spec, [][]byte{key})
		if err != nil {
			return false, fmt.Errorf("read %s: %w", ti, err)
		}
		if len(rows) == 1 {
			hrow = rows[0]
		}
	}
	if resumedHere {
		c.anyRow = true // rows of it were returned on earlier pages
	}
	c.resumed = false
	if c.cur, err = s.x.partitionFromHeader(ti, pk, key, hrow); err != nil {
		return false, err
	}
	if !s.pkMatches(pk, s.filters) {
		c.skip, c.pkSkip = true, true
		return true, nil
	}
	if isHeader {
		s.scanHeader(c)
		return true, nil
	}
	return false, nil
}

// scanHeader handles a partition's header row: the whole row of a table
// without clustering columns, or statics a DISTINCT query returns.
func (s *selectRun) scanHeader(c *scanCursor) {
	ti := s.ti
	if ti.hasCK {
		if s.p.distinct && c.cur.hdr.statics != nil {
			c.anyRow = true
		}
		return
	}
	if noCK := c.cur.noCK; noCK != nil && noCK.live {
		c.anyRow = true
		if s.p.distinct {
			return
		}
		if matchAll(s.filters, ti, noCK, nil) {
			s.emit(noCK, nil, false)
		}
	}
	c.skip = true
}

// scanRow handles one KV row of the current partition (prefix its
// partition prefix): a clustering row to filter and emit, or a row to
// skip (past a long partition nobody wants with a seek).
func (s *selectRun) scanRow(ctx context.Context, c *scanCursor, krow kv.Row, prefix []byte) error {
	ti := s.ti
	if c.skip || !ti.hasCK || len(krow.Key) == len(prefix)+1 {
		if c.skip && ti.hasCK {
			if c.skipped++; c.skipped == 64 {
				// A long partition nobody wants: jump past it.
				if err := c.m.seek(ctx, append(append([]byte(nil), prefix...), keyHigh)); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if s.p.distinct && c.anyRow {
		c.skip = true
		return nil
	}
	r, err := s.x.clusteringRow(ti, c.cur, krow)
	if err != nil {
		return err
	}
	if !r.live {
		return nil
	}
	c.anyRow = true
	if s.p.distinct || !matchAll(s.filters, ti, r, c.cur.hdr.statics) {
		return nil
	}
	if !s.emit(r, c.cur.hdr.statics, false) {
		c.skip = true
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
