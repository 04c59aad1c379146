package embedded

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/dohyo/dohyo/engine/kv"
)

// Defaults for Config.
const (
	DefaultCacheSize    = 64 << 20
	DefaultMemTableSize = 16 << 20
)

// ErrClosed is returned by operations on a closed Store.
var ErrClosed = errors.New("embedded: store closed")

// Config configures a Store.
//
// Durability: the write-ahead log is always on for a store on disk. With
// Sync false (the default) Apply returns once the batch is in the WAL buffer:
// a process crash may lose the last few writes that Pebble had not yet
// handed to the OS, and a machine crash those since the last fsync. With
// Sync true every Apply waits for an fsync of the WAL. DDL (table creation
// and drop) and PutMeta are always synced. A memory store keeps nothing
// across Close.
type Config struct {
	// Dir is the data directory; "" keeps the whole store in memory.
	Dir string
	// CacheSize is Pebble's block cache in bytes (0: DefaultCacheSize).
	CacheSize int64
	// MemTableSize is the size of one memtable in bytes (0:
	// DefaultMemTableSize); Pebble keeps at most two before stalling writes.
	MemTableSize uint64
	// Sync makes every Apply fsync the WAL before returning.
	Sync bool
	// FS overrides the file system (tests); nil: the OS for Dir, a fresh
	// in-memory file system when Dir is "".
	FS vfs.FS
	// Logger receives Pebble's messages (info as Debug); nil discards them.
	Logger *slog.Logger
	// Format is the layout of a new store (FormatDefault: FormatRows). An
	// existing store keeps the format it was created with; asking for
	// another one is an error.
	Format Format
	// Salt is the salt buckets of new tables (0-256, the URL's salt=): an
	// engine setting the store hands to the engine (kv.Defaulter).
	Salt int
}

// Store is a kv.KV on Pebble. It is safe for concurrent use.
type Store struct {
	db    *pebble.DB
	wopts *pebble.WriteOptions // Apply
	dopts *pebble.WriteOptions // DDL and meta: synced on disk

	// life guards db against Close: every operation holds it shared.
	life   sync.RWMutex
	closed bool

	ddl    sync.Mutex                        // serialises table creation and drop
	tabMu  sync.Mutex                        // serialises changes of tables
	tables atomic.Pointer[map[string][]byte] // TableSpec.ID -> data prefix; replaced, never changed

	iterMu sync.Mutex
	iters  map[*rowIter]struct{} // open scans, closed by Close

	cellMu sync.Mutex // serialises CellSwap

	format Format // FormatCells or FormatRows
	cfg    Config // as opened (DescribeServer, EngineDefaults)
}

var _ kv.KV = (*Store)(nil)

// OpenStore opens (creating if needed) a store.
func OpenStore(o Config) (*Store, error) {
	fs, dir := o.FS, o.Dir
	memory := dir == ""
	if fs == nil {
		if memory {
			fs = vfs.NewMem()
		} else {
			fs = vfs.Default
		}
	}
	if memory {
		dir = "/"
	}
	if o.CacheSize <= 0 {
		o.CacheSize = DefaultCacheSize
	}
	if o.MemTableSize == 0 {
		o.MemTableSize = DefaultMemTableSize
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	format := o.Format
	if memory && o.FS == nil { // a fresh file system: a new store
		format = cmp.Or(format, FormatRows)
	} else {
		var err error
		if format, err = storeFormat(fs, dir, o.Format); err != nil {
			return nil, err
		}
	}
	popts := &pebble.Options{
		FS:                          fs,
		CacheSize:                   o.CacheSize,
		MemTableSize:                o.MemTableSize,
		MemTableStopWritesThreshold: 2,
		Merger:                      format.merger(),
		Logger:                      pebbleLogger{logger},
		// Pinned (the newest at Pebble v2.1.7) so that a Pebble upgrade does
		// not silently ratchet existing stores to a format older builds
		// cannot read.
		FormatMajorVersion: pebble.FormatValueSeparation,
		// A WAL on an in-memory file system only costs time and memory.
		DisableWAL: memory,
	}
	db, err := pebble.Open(dir, popts)
	if err != nil {
		if !memory && errors.Is(err, syscall.EAGAIN) {
			// Pebble's LOCK file is held: the embedded store is single-process.
			return nil, fmt.Errorf("embedded: data directory %s is in use by another dohyo process "+
				"(the embedded store serves one process only; stop that process, or give this one its own "+
				"data directory with --backend embedded:///other/dir): %w", dir, err)
		}
		return nil, fmt.Errorf("embedded: open pebble: %w", err)
	}
	// Pebble refuses synced writes without a WAL.
	wopts, dopts := pebble.NoSync, pebble.NoSync
	if !memory {
		dopts = pebble.Sync
		if o.Sync {
			wopts = pebble.Sync
		}
	}
	st := &Store{
		db:     db,
		wopts:  wopts,
		dopts:  dopts,
		iters:  map[*rowIter]struct{}{},
		format: format,
		cfg:    o,
	}
	st.tables.Store(&map[string][]byte{})
	return st, nil
}

// acquire pins the db open for one operation; release must follow.
func (s *Store) acquire() error {
	s.life.RLock()
	if s.closed {
		s.life.RUnlock()
		return ErrClosed
	}
	return nil
}

func (s *Store) release() { s.life.RUnlock() }

// Close closes open scans and Pebble. Later calls return ErrClosed.
func (s *Store) Close() error {
	s.life.Lock()
	defer s.life.Unlock()
	if s.closed {
		return ErrClosed
	}
	s.closed = true
	s.iterMu.Lock()
	open := make([]*rowIter, 0, len(s.iters))
	for it := range s.iters {
		open = append(open, it)
	}
	s.iters = nil
	s.iterMu.Unlock()
	for _, it := range open {
		it.shut(ErrClosed)
	}
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("embedded: close pebble: %w", err)
	}
	return nil
}

// setTable records table id's data prefix p (nil: the table is gone) in a
// new copy of the tables map: lookups, one per statement, read the map
// without a lock.
func (s *Store) setTable(id string, p []byte) {
	s.tabMu.Lock()
	defer s.tabMu.Unlock()
	next := maps.Clone(*s.tables.Load())
	if p == nil {
		delete(next, id)
	} else {
		next[id] = p
	}
	s.tables.Store(&next)
}

// lookup returns a table's data prefix, or nil if the table does not exist.
// Caller holds life.
func (s *Store) lookup(id string) ([]byte, error) {
	if p, ok := (*s.tables.Load())[id]; ok {
		return p, nil
	}
	v, closer, err := s.db.Get(tableKey(id))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	if len(v) != 4 {
		return nil, fmt.Errorf("embedded: corrupt table number for %q", id)
	}
	p := tablePrefix(binary.BigEndian.Uint32(v))
	s.setTable(id, p)
	return p, nil
}

// prefix is lookup for data operations: a missing table is an error.
func (s *Store) prefix(t *kv.TableSpec) ([]byte, error) {
	if t == nil || t.ID == "" {
		return nil, errors.New("embedded: table spec without ID")
	}
	p, err := s.lookup(t.ID)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, fmt.Errorf("embedded: table %s.%s (id %s) does not exist", t.Keyspace, t.Name, t.ID)
	}
	return p, nil
}

// CreateTable allocates the next table number for t.ID and persists it.
func (s *Store) CreateTable(ctx context.Context, t *kv.TableSpec) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if t == nil || t.ID == "" {
		return errors.New("embedded: create table: spec without ID")
	}
	if err := s.acquire(); err != nil {
		return err
	}
	defer s.release()
	s.ddl.Lock()
	defer s.ddl.Unlock()
	p, err := s.lookup(t.ID)
	if err != nil || p != nil {
		return wrapErr("create table", err)
	}
	var next uint32
	v, closer, err := s.db.Get(nextTableKey)
	switch {
	case errors.Is(err, pebble.ErrNotFound):
	case err != nil:
		return wrapErr("create table", err)
	default:
		if len(v) == 4 {
			next = binary.BigEndian.Uint32(v)
		}
		closer.Close()
		if len(v) != 4 {
			return errors.New("embedded: create table: corrupt table counter")
		}
	}
	if next == ^uint32(0) {
		return errors.New("embedded: create table: table numbers exhausted")
	}
	b := s.db.NewBatch()
	defer b.Close()
	num := binary.BigEndian.AppendUint32(nil, next)
	_ = b.Set(tableKey(t.ID), num, nil)
	_ = b.Set(nextTableKey, binary.BigEndian.AppendUint32(nil, next+1), nil)
	if err := b.Commit(s.dopts); err != nil {
		return wrapErr("create table", err)
	}
	s.setTable(t.ID, tablePrefix(next))
	return nil
}

// DropTable deletes the table's data range and its number. Dropping a
// missing table is not an error.
func (s *Store) DropTable(ctx context.Context, t *kv.TableSpec) error {
	return s.clear(ctx, t, true)
}

// TruncateTable deletes the table's data range and keeps the table.
func (s *Store) TruncateTable(ctx context.Context, t *kv.TableSpec) error {
	return s.clear(ctx, t, false)
}

func (s *Store) clear(ctx context.Context, t *kv.TableSpec, drop bool) error {
	op := "truncate table"
	if drop {
		op = "drop table"
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if t == nil || t.ID == "" {
		return fmt.Errorf("embedded: %s: spec without ID", op)
	}
	if err := s.acquire(); err != nil {
		return err
	}
	defer s.release()
	s.ddl.Lock()
	defer s.ddl.Unlock()
	p, err := s.lookup(t.ID)
	if err != nil {
		return wrapErr(op, err)
	}
	if p == nil {
		if drop {
			return nil
		}
		return fmt.Errorf("embedded: %s: table %s.%s (id %s) does not exist", op, t.Keyspace, t.Name, t.ID)
	}
	b := s.db.NewBatch()
	defer b.Close()
	_ = b.DeleteRange(p, prefixEnd(p), nil)
	if drop {
		_ = b.Delete(tableKey(t.ID), nil)
	}
	if err := b.Commit(s.dopts); err != nil {
		return wrapErr(op, err)
	}
	if drop {
		s.setTable(t.ID, nil)
	}
	return nil
}

// Format reports the store's layout (FormatCells or FormatRows).
func (s *Store) Format() Format { return s.format }

// apply writes all mutations in one atomic Pebble batch: each cell (cells
// layout) or each mutation's cells (rows layout) is a blind Merge, and the
// merge operator keeps the winning version of every cell.
func (s *Store) apply(ctx context.Context, muts []kv.Mutation) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := s.acquire(); err != nil {
		return err
	}
	defer s.release()
	b := s.db.NewBatch()
	defer b.Close()
	var (
		lastT *kv.TableSpec
		p     []byte
	)
	for i := range muts {
		m := &muts[i]
		if m.Table != lastT || p == nil {
			var err error
			if p, err = s.prefix(m.Table); err != nil {
				return wrapErr("apply", err)
			}
			lastT = m.Table
		}
		for _, c := range m.Cells {
			if len(c.Qualifier) > maxQualifier {
				return fmt.Errorf("embedded: apply: qualifier of %d bytes exceeds %d", len(c.Qualifier), maxQualifier)
			}
		}
		if s.format == FormatRows {
			if err := mergeRow(b, p, m); err != nil {
				return wrapErr("apply", err)
			}
			continue
		}
		for _, c := range m.Cells {
			op := b.MergeDeferred(cellKeyLen(m.Row, c.Qualifier), tsLen+len(c.Value))
			appendCellKey(op.Key[:0], p, m.Row, c.Qualifier)
			encodeValue(op.Value, c.Timestamp, c.Value)
			if err := op.Finish(); err != nil {
				return wrapErr("apply", err)
			}
		}
	}
	if b.Empty() {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return wrapErr("apply", b.Commit(s.wopts))
}

// mergeRow adds a mutation's cells to the batch as one Merge of its row
// (rows layout): cells in qualifier order, one per qualifier.
func mergeRow(b *pebble.Batch, p []byte, m *kv.Mutation) error {
	if len(m.Cells) == 0 {
		return nil
	}
	var idxBuf [16]int
	order := rowOrder(m.Cells, idxBuf[:0])
	size := 0
	for _, i := range order {
		size += rowCellLen(m.Cells[i].Qualifier, m.Cells[i].Value)
	}
	op := b.MergeDeferred(len(p)+len(m.Row), size)
	copy(op.Key[copy(op.Key, p):], m.Row)
	v := op.Value[:0]
	for _, i := range order {
		c := &m.Cells[i]
		v = appendRowCell(v, c.Qualifier, c.Timestamp, c.Value)
	}
	return op.Finish()
}

// rowBounds holds the iterator bounds of one row: [prefix+row, the
// smallest key above every key that starts with prefix+row).
type rowBounds struct{ buf []byte }

// set returns the bounds of row k of the table with prefix p; they alias
// the buffer until the next call (Pebble copies bounds it is given).
func (b *rowBounds) set(p, k []byte) (lo, hi []byte) {
	n := len(p) + len(k)
	if cap(b.buf) < 2*n {
		b.buf = make([]byte, 0, max(2*n, 64))
	}
	buf := append(append(b.buf[:0], p...), k...)
	buf = append(buf, buf...)
	lo, hi = buf[:n:n], buf[n:]
	for i := len(hi) - 1; i >= 0; i-- {
		if hi[i] != 0xff {
			hi[i]++
			return lo, hi[:i+1]
		}
	}
	return lo, nil // all 0xff: no upper bound
}

// cellArena copies the cells of one row into shared buffers: one
// allocation per row of small cells rather than one per cell. Cells alias
// the buffers, which are never reused.
type cellArena struct {
	buf      []byte
	minChunk int // smallest buffer to allocate (0: 256 bytes)
}

// readCell copies the cell under the iterator; row aliases the key.
func (a *cellArena) readCell(it *pebble.Iterator) (kv.Cell, []byte, error) {
	row, q, err := splitCellKey(it.Key())
	if err != nil {
		return kv.Cell{}, nil, err
	}
	v, err := it.ValueAndErr()
	if err != nil {
		return kv.Cell{}, nil, err
	}
	ts, cv, ok := decodeValue(v)
	if !ok {
		return kv.Cell{}, nil, errors.New("embedded: corrupt value")
	}
	buf := a.alloc(len(q) + len(cv))
	copy(buf[copy(buf, q):], cv)
	return kv.Cell{Qualifier: buf[:len(q):len(q)], Timestamp: ts, Value: buf[len(q):]}, row, nil
}

// readRow copies a row value (rows layout) into the arena and appends its
// cells, which alias the copy, to cells.
func (a *cellArena) readRow(v []byte, cells []kv.Cell) ([]kv.Cell, error) {
	buf := a.alloc(len(v))
	copy(buf, v)
	return decodeRowCells(buf, cells)
}

// alloc returns n bytes of the arena, never handed out before.
func (a *cellArena) alloc(n int) []byte {
	if cap(a.buf)-len(a.buf) < n {
		chunk := a.minChunk
		if chunk == 0 {
			chunk = 256
		}
		a.buf = make([]byte, 0, max(n, 2*cap(a.buf), chunk))
	}
	start := len(a.buf)
	a.buf = a.buf[:start+n]
	return a.buf[start : start+n : start+n]
}

// sortCells orders cells by qualifier. Key order already is qualifier order
// except when one qualifier is a prefix of another (the length suffix
// interferes), so this is usually just a check.
func sortCells(cs []kv.Cell) {
	cmp := func(a, b kv.Cell) int { return compareBytes(a.Qualifier, b.Qualifier) }
	if !slices.IsSortedFunc(cs, cmp) {
		slices.SortFunc(cs, cmp)
	}
}

func compareBytes(a, b []byte) int {
	switch sa, sb := string(a), string(b); {
	case sa < sb:
		return -1
	case sa > sb:
		return 1
	}
	return 0
}

// GetMeta reads an engine metadata key; a missing key is nil, nil.
func (s *Store) GetMeta(ctx context.Context, key string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := s.acquire(); err != nil {
		return nil, err
	}
	defer s.release()
	v, closer, err := s.db.Get(metaKey(key))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, wrapErr("get meta", err)
	}
	defer closer.Close()
	return append([]byte{}, v...), nil
}

// PutMeta writes an engine metadata key (synced: it holds the catalog).
func (s *Store) PutMeta(ctx context.Context, key string, value []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := s.acquire(); err != nil {
		return err
	}
	defer s.release()
	return wrapErr("put meta", s.db.Set(metaKey(key), value, s.dopts))
}

func wrapErr(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("embedded: %s: %w", op, err)
}

// pebbleLogger adapts slog to Pebble's Logger.
type pebbleLogger struct{ l *slog.Logger }

func (p pebbleLogger) Infof(format string, args ...any) {
	p.l.Debug(fmt.Sprintf(format, args...), "component", "pebble")
}

func (p pebbleLogger) Errorf(format string, args ...any) {
	p.l.Error(fmt.Sprintf(format, args...), "component", "pebble")
}

// Fatalf is called by Pebble on unrecoverable corruption; Pebble expects it
// not to return.
func (p pebbleLogger) Fatalf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	p.l.Error(msg, "component", "pebble")
	panic("pebble: " + msg)
}

// readCell copies the cell under the iterator into its own allocation
// (scans, whose cells outlive the row); row aliases the key.
func readCell(it *pebble.Iterator) (kv.Cell, []byte, error) {
	a := cellArena{minChunk: 1}
	return a.readCell(it)
}
