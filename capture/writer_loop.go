package capture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
)

// segmentFile is where a segment's bytes go (an *os.File).
type segmentFile interface {
	io.Writer
	Sync() error
	Close() error
}

// stmtKey identifies an interned statement.
type stmtKey struct {
	keyspace, text string
	prepared       bool
}

// stmtInfo caches what the writer derives from a statement once: its
// fingerprint, filter decision and redaction plan, and its id in the
// current segment.
type stmtInfo struct {
	key          stmtKey
	fingerprint  string
	textRedacted bool
	filtered     bool
	plan         *redactPlan
	gen          uint64 // segment generation the id belongs to
	id           uint32
}

// maxStmtCache bounds the statement cache (literal-heavy traffic makes a
// new statement per request); it is cleared when full.
const maxStmtCache = 1 << 16

// segment is the open segment file and its counts.
type segment struct {
	f          segmentFile
	path       string
	start      time.Time
	gen        uint64
	size       int64
	records    uint64
	dropped    uint64
	statements uint64
	frames     uint64
	rawBytes   uint64
	first      int64
	last       int64
	hasTimes   bool
}

// loopState is owned by the background goroutine.
type loopState struct {
	w        *Writer
	enc      *zstd.Encoder
	fe       *frameEncoder
	out      []byte
	seg      *segment
	gen      uint64
	nextSeq  uint64
	nextID   uint32
	stmts    map[stmtKey]*stmtInfo
	schema   string
	schemas  []pendingSchema // taken from the Writer, applied in stream order
	dequeued uint64
	// Drops already recorded in the stream, and those recorded in the frame
	// being built (rolled back if the frame is lost).
	recordedDrops uint64
	frameDrops    uint64
	retryAt       time.Time // after a failed open, drop records until then
	// drainedThrough (Unix nanoseconds): every record queued before it has
	// been encoded into the current frame or an earlier one. It becomes the
	// written mark once the current frame is written.
	drainedThrough int64
}

func (l *loopState) run() {
	w := l.w
	defer close(w.done)
	t := time.NewTicker(w.cfg.FlushInterval)
	defer t.Stop()
	for {
		select {
		case <-w.wake:
			l.drain()
		case tick := <-t.C:
			l.noteFlushDelay(time.Since(tick))
			l.drain()
			l.flush()
			w.timedFlushes.Add(1)
			l.checkFile()
			l.checkAge()
		case req := <-w.ctl:
			l.drain()
			var err error
			switch req.op {
			case opFlush:
				err = l.flush()
				if err == nil {
					err = l.sync()
				}
				l.checkAge()
			case opRotate:
				err = l.rotate()
			case opClose:
				err = l.rotate()
				l.enc.Close()
				w.log.Info("capture stopped", "records", w.written.Load(), "dropped", w.dropped.Load())
				req.done <- err
				return
			}
			req.done <- err
		}
	}
}

// drain encodes every queued record into the current frame, releasing
// slots in chunks so producers get room back while a slow disk is written.
func (l *loopState) drain() {
	w := l.w
	for {
		// Read before the queue: a record queued before this instant is
		// in the queue now (or was taken earlier), so once the queue is
		// empty every such record has been encoded.
		at := w.now().UnixNano()
		w.mu.Lock()
		head, n := w.head, w.n
		if len(w.schemas) > 0 {
			l.schemas = append(l.schemas, w.schemas...)
			w.schemas = nil
		}
		w.mu.Unlock()
		l.applySchemas()
		if n == 0 {
			l.drainedThrough = at
			return
		}
		n = min(n, 1024)
		l.noteDrops()
		freed := 0
		for i := 0; i < n; i++ {
			s := &w.slots[(head+i)%len(w.slots)]
			l.encode(&s.o)
			freed += s.size
			if cap(s.buf) > 64<<10 {
				s.buf = nil // do not pin memory for one huge record
			}
			l.dequeued++
			if len(l.schemas) > 0 {
				l.applySchemas()
			}
		}
		w.mu.Lock()
		w.head = (head + n) % len(w.slots)
		w.n -= n
		w.qbytes -= freed
		w.mu.Unlock()
	}
}

// applySchemas writes schema changes whose position in the stream has come.
func (l *loopState) applySchemas() {
	for len(l.schemas) > 0 && l.schemas[0].at <= l.dequeued {
		ddl := l.schemas[0].ddl
		l.schemas = l.schemas[1:]
		if ddl == l.schema {
			continue
		}
		l.schema = ddl
		if l.seg != nil {
			l.fe.appendSchema(l.w.now().UnixNano(), ddl)
		}
	}
}

// noteDrops records in the stream how many records were lost since the
// last note, so readers know where the gaps are.
func (l *loopState) noteDrops() {
	d := l.w.dropped.Load()
	if d <= l.recordedDrops || !l.ensureSegment() {
		return
	}
	n := d - l.recordedDrops
	l.fe.appendDropped(l.w.now().UnixNano(), n)
	l.recordedDrops = d
	l.frameDrops += n
}

func (l *loopState) ensureSegment() bool {
	if l.seg != nil {
		return true
	}
	now := l.w.now()
	if now.Before(l.retryAt) {
		return false
	}
	if err := l.openSegment(); err != nil {
		l.w.writeErrors.Add(1)
		l.w.setProblem(err)
		l.w.log.Error("capture: cannot open a segment; dropping records", "err", err)
		l.retryAt = now.Add(time.Second)
		return false
	}
	if l.w.Problem() != "" {
		l.w.log.Info("capture: writing again", "segment", l.seg.path)
		l.w.setProblem(nil)
	}
	return true
}

func (l *loopState) encode(o *bindings.Observation) {
	w := l.w
	info := l.statement(o.Keyspace, o.Query, o.Prepared)
	if info.filtered {
		w.filtered.Add(1)
		return
	}
	if !l.ensureSegment() {
		w.dropped.Add(1)
		return
	}
	seg := l.seg
	if info.gen != seg.gen {
		info.id, info.gen = l.nextID, seg.gen
		l.nextID++
		l.fe.appendStatement(info.id, info)
		seg.statements++
		w.statements.Add(1)
	}
	l.fe.appendRecord(o, info.id, info.plan, w.cfg.OmitPagingState)
	t := o.Time.UnixNano()
	if !seg.hasTimes || t < seg.first {
		seg.first = t
	}
	if !seg.hasTimes || t > seg.last {
		seg.last = t
	}
	seg.hasTimes = true
	if l.fe.size() >= w.cfg.FlushBytes {
		l.flush()
	}
}

func (l *loopState) statement(ks, text string, prepared bool) *stmtInfo {
	key := stmtKey{keyspace: ks, text: text, prepared: prepared}
	if info, ok := l.stmts[key]; ok {
		return info
	}
	if len(l.stmts) >= maxStmtCache {
		clear(l.stmts)
	}
	w := l.w
	info := &stmtInfo{key: key, fingerprint: cql.Fingerprint(text), gen: ^uint64(0)}
	if w.filters || len(w.rules) > 0 {
		parsed, err := cql.Parse(text)
		if w.filters {
			sk := statementKeyspace(parsed, ks)
			info.filtered = (w.include != nil && !w.include[sk]) || w.exclude[sk]
		}
		info.plan = planRedaction(w.rules, parsed, err, ks)
		info.textRedacted = info.plan != nil && info.plan.text
	}
	l.stmts[key] = info
	return info
}

// flush compresses the current frame and writes it with one write(2).
func (l *loopState) flush() error {
	fe, seg, w := l.fe, l.seg, l.w
	if fe.empty() {
		// Nothing pending: everything drained is written.
		fe.reset()
		l.markWritten(w.cfg.SyncEveryFlush)
		return nil
	}
	if seg == nil {
		fe.reset()
		return nil
	}
	// Entries and values are compressed as two zstd frames, so the value
	// bytes get literal statistics of their own; they decode as one body.
	entries, values := fe.parts()
	raw := len(entries) + len(values)
	out := append(l.out[:0], make([]byte, blockHeaderLen)...)
	out = l.enc.EncodeAll(entries, out)
	if len(values) > 0 {
		out = l.enc.EncodeAll(values, out)
	}
	payload := out[blockHeaderLen:]
	putBlockHeader(out, blockHeader{
		typ: blockFrame, stored: uint32(len(payload)), raw: uint32(raw),
		crc: crc32.Checksum(payload, crcTable),
	})
	_, err := seg.f.Write(out)
	if err == nil && w.cfg.SyncEveryFlush {
		err = seg.f.Sync()
	}
	l.out = out[:0]
	if err != nil {
		l.abandon(err)
		return fmt.Errorf("capture: write %s: %w", seg.path, err)
	}
	seg.size += int64(len(out))
	seg.records += uint64(fe.records)
	seg.dropped += l.frameDrops
	seg.frames++
	seg.rawBytes += uint64(raw)
	w.written.Add(uint64(fe.records))
	w.bytes.Add(uint64(len(out)))
	fe.reset()
	l.frameDrops = 0
	// Everything drained before drainedThrough was in this frame or an
	// earlier one, so it is all written now.
	l.markWritten(w.cfg.SyncEveryFlush)
	if w.cfg.MaxSegmentBytes > 0 && seg.size >= w.cfg.MaxSegmentBytes {
		return l.rotate()
	}
	return nil
}

// markWritten publishes drainedThrough as the written mark (and as the
// synced mark when the written bytes were also fsynced). Callers have just
// written every encoded record, or had none pending.
func (l *loopState) markWritten(synced bool) {
	l.w.writtenThrough.Store(l.drainedThrough)
	if synced {
		l.w.syncedThrough.Store(l.drainedThrough)
	}
}

// sync fsyncs the current segment; what was written before is then synced.
func (l *loopState) sync() error {
	written := l.w.writtenThrough.Load()
	if l.seg != nil {
		if err := l.seg.f.Sync(); err != nil {
			return err
		}
	}
	l.w.syncedThrough.Store(written)
	return nil
}

// noteFlushDelay keeps the largest delay between a tick and its flush.
func (l *loopState) noteFlushDelay(d time.Duration) {
	if int64(d) > l.w.maxFlushDelay.Load() {
		l.w.maxFlushDelay.Store(int64(d))
	}
}

// abandon gives up a segment after a write error: its tail may be torn, so
// it gets no trailer; the frame's records count as dropped and a new
// segment is opened for the next records.
func (l *loopState) abandon(err error) {
	w := l.w
	w.writeErrors.Add(1)
	w.dropped.Add(uint64(l.fe.records))
	l.recordedDrops -= l.frameDrops
	l.frameDrops = 0
	w.setProblem(err)
	w.log.Error("capture: write failed; abandoning segment", "segment", l.seg.path, "err", err,
		"lost_records", l.fe.records)
	l.fe.reset()
	l.seg.f.Close()
	l.seg = nil
}

// checkFile notices that the open segment's file is gone (its directory
// deleted or the file removed or replaced): writes to an unlinked file
// succeed and would lose every record silently. The segment's records
// count as dropped, and a new segment is opened for the next records (in
// the directory once it is back).
func (l *loopState) checkFile() {
	seg := l.seg
	if seg == nil {
		return
	}
	f, ok := seg.f.(interface{ Stat() (fs.FileInfo, error) })
	if !ok {
		return // an injected sink
	}
	open, err := f.Stat()
	if err != nil {
		return
	}
	onDisk, err := os.Stat(seg.path)
	if err == nil && os.SameFile(open, onDisk) {
		return
	}
	w := l.w
	lost := seg.records + uint64(l.fe.records)
	w.dropped.Add(lost)
	w.writeErrors.Add(1)
	w.setProblem(fmt.Errorf("capture: segment %s is no longer on disk (directory deleted?); %d records lost", seg.path, lost))
	w.log.Error("capture: segment file vanished; its records are lost", "segment", seg.path, "lost_records", lost)
	l.recordedDrops -= l.frameDrops
	l.frameDrops = 0
	l.fe.reset()
	seg.f.Close()
	l.seg = nil
}

func (l *loopState) checkAge() {
	if l.seg != nil && l.w.cfg.MaxSegmentAge > 0 && l.w.now().Sub(l.seg.start) >= l.w.cfg.MaxSegmentAge {
		l.rotate()
	}
}

// rotate flushes and closes the current segment with its trailer.
func (l *loopState) rotate() error {
	if l.seg == nil {
		return nil
	}
	l.noteDrops() // so the trailer counts every drop up to now
	if err := l.flush(); err != nil {
		return err
	}
	if l.seg == nil { // flush rotated by size
		return nil
	}
	seg := l.seg
	l.seg = nil
	err := l.writeTrailer(seg)
	if err == nil {
		err = seg.f.Sync()
	}
	if cerr := seg.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		l.w.writeErrors.Add(1)
		l.w.log.Error("capture: closing segment failed", "segment", seg.path, "err", err)
		return fmt.Errorf("capture: close %s: %w", seg.path, err)
	}
	l.w.syncedThrough.Store(l.w.writtenThrough.Load())
	l.w.log.Debug("capture segment closed", "segment", seg.path, "records", seg.records, "bytes", seg.size)
	l.enforceRetention()
	return nil
}

func (l *loopState) writeTrailer(seg *segment) error {
	var p []byte
	p = appendUvarint(p, seg.records)
	p = appendUvarint(p, seg.dropped)
	p = appendUvarint(p, seg.statements)
	p = appendUvarint(p, seg.frames)
	p = appendVarint(p, seg.first)
	p = appendVarint(p, seg.last)
	p = appendVarint(p, l.w.now().UnixNano())
	p = appendUvarint(p, seg.rawBytes)
	b := make([]byte, blockHeaderLen, blockHeaderLen+len(p))
	putBlockHeader(b, blockHeader{typ: blockTrailer, stored: uint32(len(p)), raw: uint32(len(p)),
		crc: crc32.Checksum(p, crcTable)})
	b = append(b, p...)
	_, err := seg.f.Write(b)
	if err == nil {
		seg.size += int64(len(b))
		l.w.bytes.Add(uint64(len(b)))
	}
	return err
}

// openSegment creates the next segment file and writes its header.
func (l *loopState) openSegment() error {
	w := l.w
	start := w.now()
	var (
		f    segmentFile
		path string
		err  error
	)
	for range 100 {
		path = filepath.Join(w.cfg.Dir, SegmentName(w.cfg.NodeID, start, l.nextSeq))
		l.nextSeq++
		f, err = w.cfg.openFile(path)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("capture: create segment: %w", err)
	}
	hdr := encodeHeader(Header{Node: w.cfg.NodeID, Start: start, Seq: l.nextSeq - 1,
		DohyoVersion: w.cfg.DohyoVersion, SchemaDDL: l.schema})
	if _, err := f.Write(hdr); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("capture: write segment header: %w", err)
	}
	l.gen++
	l.nextID = 0 // statement ids are per segment
	l.seg = &segment{f: f, path: path, start: start, gen: l.gen, size: int64(len(hdr))}
	l.fe.reset()
	w.segments.Add(1)
	w.bytes.Add(uint64(len(hdr)))
	return nil
}

// encodeHeader builds a segment's file header.
func encodeHeader(h Header) []byte {
	var body []byte
	body = appendString(body, h.Node)
	body = binary.LittleEndian.AppendUint64(body, uint64(h.Start.UnixNano()))
	body = appendUvarint(body, h.Seq)
	body = appendString(body, h.DohyoVersion)
	body = appendString(body, h.SchemaDDL)
	b := make([]byte, 0, headerFixedLen+len(body)+4)
	b = append(b, magic...)
	b = append(b, FormatMajor, FormatMinor)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(body)))
	b = append(b, body...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crcTable))
}

// enforceRetention deletes this node's oldest closed segments while the
// node's segments exceed RetentionBytes.
func (l *loopState) enforceRetention() {
	w := l.w
	if w.cfg.RetentionBytes <= 0 {
		return
	}
	segs, err := ReadDir(w.cfg.Dir)
	if err != nil {
		w.log.Warn("capture retention: list segments", "err", err)
		return
	}
	var mine []SegmentInfo
	var total int64
	for _, s := range segs {
		if s.Node == w.cfg.NodeID {
			mine = append(mine, s)
			total += s.Size
		}
	}
	for _, s := range mine { // ReadDir sorts oldest first
		if total <= w.cfg.RetentionBytes {
			break
		}
		if l.seg != nil && s.Path == l.seg.path {
			continue
		}
		if err := os.Remove(s.Path); err != nil {
			w.log.Warn("capture retention: remove", "segment", s.Path, "err", err)
			continue
		}
		total -= s.Size
		w.log.Info("capture retention: removed segment", "segment", s.Path, "bytes", s.Size)
	}
}
