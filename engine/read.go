package engine

import (
	"bytes"
	"context"
	"fmt"
	"sort"

	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/engine/kv"
)

// colVal is the reconciled value of one non-key column of a row.
type colVal struct {
	val  []byte // CQL-serialized; nil = null
	ts   int64  // write time of a simple cell
	ttl  int32  // 0: not expiring
	exp  int64  // expiry (unix seconds) when ttl > 0
	live bool
	// non-frozen collections: per element (in value order) write time and
	// expiry (0: none), for WRITETIME() and TTL().
	et *elemTimes
}

type elemTimes struct{ ts, exp []int64 }

// cqlRow is one reconciled CQL row (or the static row of a partition).
type cqlRow struct {
	key    []byte
	pk     [][]byte
	ck     [][]byte // nil for a static-only row
	cols   []colVal // by column index; key columns unused
	static bool     // the partition's static row
	live   bool
	// elems keeps the live element cells of multi-cell columns (by column
	// index) when decodeRow is asked to: list operations need their keys.
	elems [][]elem
}

// partHeader is the decoded partition header: partition-level deletion,
// range tombstones and static columns.
type partHeader struct {
	del     int64
	ranges  []rangeTomb
	statics *cqlRow // nil when no static cell is live
	prefix  int     // length of the partition prefix in row keys
}

// rowDeletion returns the deletion time covering a clustering row key.
func (h *partHeader) rowDeletion(key []byte) int64 {
	del := h.del
	if len(h.ranges) > 0 && len(key) >= h.prefix {
		rel := key[h.prefix:]
		for _, r := range h.ranges {
			if r.ts > del && r.covers(rel) {
				del = r.ts
			}
		}
	}
	return del
}

// decodeRow reconciles the cells of one KV row. outer is the deletion time
// from enclosing tombstones; header says the row is a partition header (its
// row tombstone is the partition tombstone and it holds statics and range
// tombstones, which are returned in hdr).
func decodeRow(ti *tableInfo, kv kv.Row, outer int64, header bool, now int64) (r *cqlRow, hdr *partHeader, err error) {
	return decodeRowOpt(ti, kv, outer, header, now, false)
}

func decodeRowOpt(ti *tableInfo, kv kv.Row, outer int64, header bool, now int64, keep bool) (r *cqlRow, hdr *partHeader, err error) {
	r, hbuf := newCQLRow(len(ti.cols))
	r.key = kv.Key
	if keep {
		r.elems = make([][]elem, len(ti.cols))
	}
	del := rowTombstone(kv.Cells, outer)
	if header {
		hdr = hbuf
		hdr.del = del
	}
	d := rowDecoder{ti: ti, r: r, hdr: hdr, del: del, now: now, keep: keep, cur: -1}
	for _, c := range kv.Cells {
		if err := d.cell(c); err != nil {
			return nil, nil, err
		}
	}
	d.flush()
	return r, hdr, nil
}

// rowTombstone returns the deletion time covering a row's cells: outer, or
// the row's own tombstone when later. Cells are sorted by qualifier, so the
// search stops at the first qualifier past the tombstone's.
func rowTombstone(cells []kv.Cell, outer int64) int64 {
	del := outer
	for _, c := range cells {
		if len(c.Qualifier) == 1 && c.Qualifier[0] == qRowDel {
			if c.Timestamp > del {
				del = c.Timestamp
			}
			break
		}
		if len(c.Qualifier) > 0 && c.Qualifier[0] > qRowDel {
			break
		}
	}
	return del
}

// rowDecoder reconciles the cells of one KV row into r (decodeRowOpt):
// the cells of a multi-cell column come one after another and accumulate
// in elems until the column changes.
type rowDecoder struct {
	ti       *tableInfo
	r        *cqlRow
	hdr      *partHeader // nil unless the row is a partition header
	del, now int64       // row deletion time; now (unix seconds) for expiry
	keep     bool        // keep the live element cells in r.elems
	collDel  []int64     // collection tombstones by column; nil: none
	elems    []elem
	cur      int // multi-cell column being accumulated; -1: none
}

// cell applies one cell of the row.
func (d *rowDecoder) cell(c kv.Cell) error {
	q, err := parseQual(c.Qualifier)
	if err != nil {
		return fmt.Errorf("row %x: %w", d.r.key, err)
	}
	switch q.kind {
	case qMarker:
		if c.Timestamp > d.del {
			if v, err := kv.DecodeCellValue(c.Value); err == nil && v.Live(d.now) {
				d.r.live = true
			}
		}
	case qRowDel:
	case qRange:
		if d.hdr != nil {
			d.hdr.ranges = append(d.hdr.ranges, rangeTomb{lo: q.lo, hi: q.hi, ts: c.Timestamp})
		}
	case qCell:
		return d.simpleCell(q.name, c)
	case qCollDel:
		d.collDeletion(q.name, c.Timestamp)
	case qElem:
		return d.elemCell(q.name, q.key, c)
	}
	return nil
}

// simpleCell applies the cell of a single-cell column.
func (d *rowDecoder) simpleCell(name []byte, c kv.Cell) error {
	ti := d.ti
	i, ok := ti.colIdx[string(name)]
	if !ok || ti.isKey(i) || ti.cols[i].Type.MultiCell() || c.Timestamp <= d.del || droppedCell(ti, name, c.Timestamp) {
		return nil
	}
	v, live, err := d.liveValue(name, c)
	if !live {
		return err
	}
	r := d.r
	r.cols[i] = colVal{val: v.Data, ts: c.Timestamp, ttl: v.TTL, exp: v.Expiry, live: true}
	if v.Data == nil {
		r.cols[i].val = []byte{}
	}
	r.live = true
	return nil
}

// liveValue decodes the value of cell c of column name; live is false
// when the cell is a tombstone or has expired, or on error.
func (d *rowDecoder) liveValue(name []byte, c kv.Cell) (v kv.CellValue, live bool, err error) {
	v, err = kv.DecodeCellValue(c.Value)
	if err != nil {
		return v, false, fmt.Errorf("row %x column %s: %w", d.r.key, name, err)
	}
	return v, v.Live(d.now), nil
}

// collDeletion notes the tombstone of a whole collection column.
func (d *rowDecoder) collDeletion(name []byte, ts int64) {
	i, ok := d.ti.colIdx[string(name)]
	if !ok {
		return
	}
	if d.collDel == nil {
		d.collDel = make([]int64, len(d.ti.cols))
		for j := range d.collDel {
			d.collDel[j] = noDeletion
		}
	}
	if ts > d.collDel[i] {
		d.collDel[i] = ts
	}
}

// elemCell accumulates one element cell (key: its element key) of a
// multi-cell column.
func (d *rowDecoder) elemCell(name, key []byte, c kv.Cell) error {
	ti := d.ti
	i, ok := ti.colIdx[string(name)]
	if !ok || ti.isKey(i) || !ti.cols[i].Type.MultiCell() || droppedCell(ti, name, c.Timestamp) {
		return nil
	}
	if i != d.cur {
		d.flush()
		d.cur = i
	}
	del := d.del
	if d.collDel != nil && d.collDel[i] > del {
		del = d.collDel[i]
	}
	if c.Timestamp <= del {
		return nil
	}
	v, live, err := d.liveValue(name, c)
	if !live {
		return err
	}
	e := elem{key: key, val: v.Data, ts: c.Timestamp}
	if v.TTL > 0 {
		e.exp = v.Expiry
	}
	d.elems = append(d.elems, e)
	return nil
}

// flush completes the multi-cell column being accumulated: its value,
// from the live elements, and their write and expiry times.
func (d *rowDecoder) flush() {
	if cur := d.cur; cur >= 0 {
		r, elems := d.r, d.elems
		if d.keep {
			r.elems[cur] = append([]elem(nil), elems...)
		}
		if v := buildCollectionValue(d.ti.cols[cur].Type, elems); v != nil {
			cv := colVal{val: v, live: true, et: &elemTimes{ts: make([]int64, len(elems)), exp: make([]int64, len(elems))}}
			for i, e := range elems {
				cv.et.ts[i], cv.et.exp[i] = e.ts, e.exp
			}
			r.cols[cur] = cv
			r.live = true
		}
	}
	d.cur, d.elems = -1, d.elems[:0]
}

type elem struct {
	key, val []byte
	ts       int64
	exp      int64 // expiry (unix seconds) of an expiring element, else 0
}

func droppedCell(ti *tableInfo, name []byte, ts int64) bool {
	if ti.dropped == nil {
		return false
	}
	d, ok := ti.dropped[string(name)]
	return ok && ts <= d
}

// buildCollectionValue serializes the live elements of a non-frozen
// collection; nil (null) when there are none, as in Cassandra.
func buildCollectionValue(t *cql.Type, elems []elem) []byte {
	if len(elems) == 0 {
		return nil
	}
	switch t.Kind {
	case cql.KindUDT:
		return buildUDTValue(t, elems)
	case cql.KindList:
		items := make([][]byte, len(elems))
		for i, e := range elems {
			items[i] = e.val
		}
		return buildCollection(len(items), items)
	case cql.KindSet, cql.KindMap:
		kt := t.Elems[0]
		if !sort.SliceIsSorted(elems, func(i, j int) bool { return cql.Compare(kt, elems[i].key, elems[j].key) < 0 }) {
			sort.SliceStable(elems, func(i, j int) bool { return cql.Compare(kt, elems[i].key, elems[j].key) < 0 })
		}
		per := 1
		if t.Kind == cql.KindMap {
			per = 2
		}
		items := make([][]byte, 0, len(elems)*per)
		for _, e := range elems {
			items = append(items, e.key)
			if per == 2 {
				items = append(items, e.val)
			}
		}
		return buildCollection(len(elems), items)
	}
	return nil
}

// headerFrom turns a decoded header row into a partHeader with its static
// row attached.
func headerFrom(ti *tableInfo, kv kv.Row, pk [][]byte, now int64) (*partHeader, *cqlRow, error) {
	if len(kv.Cells) == 0 {
		return &partHeader{del: noDeletion}, nil, nil
	}
	r, hdr, err := decodeRow(ti, kv, noDeletion, true, now)
	if err != nil {
		return nil, nil, err
	}
	r.pk = pk
	r.static = true
	if r.live {
		hdr.statics = r
	}
	return hdr, r, nil
}

// partition is a partition being read: its key, header and prefix length.
type partition struct {
	pk   [][]byte
	key  []byte // header row key
	hdr  *partHeader
	noCK *cqlRow // tables without clustering: the partition's only row
}

// openPartition reads the header of partition pk (for tables without
// clustering columns: its only row). extra keys are fetched in the same
// KV call and returned.
func (x *execCtx) openPartition(ctx context.Context, ti *tableInfo, pk [][]byte, extra [][]byte) (*partition, []kv.Row, error) {
	key, err := x.partitionKey(ti, pk)
	if err != nil {
		return nil, nil, err
	}
	var keys [][]byte
	if len(extra) == 0 && !x.first.usedKeys {
		x.first.usedKeys = true
		keys = x.first.getKeys[:]
		keys[0] = key
	} else {
		keys = append([][]byte{key}, extra...)
	}
	rows, err := x.e.kv.Get(ctx, ti.spec, keys)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", ti, err)
	}
	if len(rows) != len(keys) {
		return nil, nil, fmt.Errorf("read %s: store returned %d rows for %d keys", ti, len(rows), len(keys))
	}
	p, err := x.partitionFromHeader(ti, pk, key, rows[0])
	if err != nil {
		return nil, nil, err
	}
	return p, rows[1:], nil
}

// prefetchHeaders reads the header rows of several partitions in one Get.
// Each returned row's Key is set to its partition key.
func (x *execCtx) prefetchHeaders(ctx context.Context, ti *tableInfo, pks [][][]byte) ([]kv.Row, error) {
	keys := make([][]byte, len(pks))
	for i, pk := range pks {
		k, err := ti.codec.PartitionKey(pk)
		if err != nil {
			return nil, err
		}
		keys[i] = k
	}
	rows, err := x.e.kv.Get(ctx, ti.spec, keys)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", ti, err)
	}
	if len(rows) != len(keys) {
		return nil, fmt.Errorf("read %s: store returned %d rows for %d keys", ti, len(rows), len(keys))
	}
	for i := range rows {
		rows[i].Key = keys[i]
	}
	return rows, nil
}

func (x *execCtx) partitionFromHeader(ti *tableInfo, pk [][]byte, key []byte, hrow kv.Row) (*partition, error) {
	var p *partition
	if !x.first.usedPart {
		x.first.usedPart = true
		p = &x.first.part
	} else {
		p = new(partition)
	}
	*p = partition{pk: pk, key: key}
	hrow.Key = key
	hdr, r, err := headerFrom(ti, hrow, pk, x.nowS)
	if err != nil {
		return nil, err
	}
	hdr.prefix = len(key) - 1
	p.hdr = hdr
	if !ti.hasCK && r != nil {
		r.static = false
		r.ck = [][]byte{}
		p.noCK = r
		hdr.statics = nil
	}
	return p, nil
}

// clusteringRow decodes a clustering row of partition p.
func (x *execCtx) clusteringRow(ti *tableInfo, p *partition, kv kv.Row) (*cqlRow, error) {
	r, _, err := decodeRow(ti, kv, p.hdr.rowDeletion(kv.Key), false, x.nowS)
	if err != nil {
		return nil, err
	}
	r.pk = p.pk
	_, ck, err := ti.codec.DecodeRowKey(kv.Key)
	if err != nil {
		return nil, err
	}
	r.ck = ck
	return r, nil
}

// visitRows calls fn for each live clustering row of partition p selected
// by points or ranges, in clustering order (reversed when reverse), starting
// strictly after resume when it is set. fn returns false to stop.
func (x *execCtx) visitRows(ctx context.Context, ti *tableInfo, p *partition, points [][]byte, pointRows []kv.Row,
	ranges []KeyRange, reverse bool, resume []byte, fn func(*cqlRow) (bool, error)) error {
	if !ti.hasCK {
		if p.noCK != nil && p.noCK.live && resume == nil {
			_, err := fn(p.noCK)
			return err
		}
		return nil
	}
	if points != nil {
		order := make([]int, len(points))
		for i := range order {
			order[i] = i
		}
		if reverse {
			for i, j := 0, len(order)-1; i < j; i, j = i+1, j-1 {
				order[i], order[j] = order[j], order[i]
			}
		}
		for _, i := range order {
			if resume != nil && ((!reverse && bytes.Compare(points[i], resume) <= 0) || (reverse && bytes.Compare(points[i], resume) >= 0)) {
				continue
			}
			kv := pointRows[i]
			if len(kv.Cells) == 0 {
				continue
			}
			kv.Key = points[i]
			r, err := x.clusteringRow(ti, p, kv)
			if err != nil {
				return err
			}
			if !r.live {
				continue
			}
			if more, err := fn(r); err != nil || !more {
				return err
			}
		}
		return nil
	}
	n := len(ranges)
	for j := 0; j < n; j++ {
		rg := ranges[j]
		if reverse {
			rg = ranges[n-1-j]
		}
		sr := kv.ScanRange{Start: rg.Start, Stop: rg.Stop, Reverse: reverse, Limit: x.scanHint}
		if resume != nil {
			if !reverse {
				if rg.Stop != nil && bytes.Compare(rg.Stop, resume) <= 0 {
					continue
				}
				if succ := KeySuccessor(resume); bytes.Compare(succ, sr.Start) > 0 {
					sr.Start = succ
				}
			} else {
				if bytes.Compare(rg.Start, resume) >= 0 {
					continue
				}
				if sr.Stop == nil || bytes.Compare(resume, sr.Stop) < 0 {
					sr.Stop = resume
				}
			}
		}
		stop, err := x.scanRows(ctx, ti, p, sr, fn)
		if err != nil || stop {
			return err
		}
	}
	return nil
}

// scanRows scans one key range of a partition; stop reports fn asked to stop.
func (x *execCtx) scanRows(ctx context.Context, ti *tableInfo, p *partition, sr kv.ScanRange, fn func(*cqlRow) (bool, error)) (stop bool, err error) {
	it, err := x.e.kv.Scan(ctx, ti.spec, sr)
	if err != nil {
		return false, fmt.Errorf("scan %s: %w", ti, err)
	}
	defer it.Close()
	for {
		kv, ok := it.Next(ctx)
		if !ok {
			break
		}
		if len(kv.Key) == len(p.key) {
			continue // the header row
		}
		r, err := x.clusteringRow(ti, p, kv)
		if err != nil {
			return false, err
		}
		if !r.live {
			continue
		}
		more, err := fn(r)
		if err != nil {
			return false, err
		}
		if !more {
			return true, nil
		}
	}
	if err := it.Err(); err != nil {
		return false, fmt.Errorf("scan %s: %w", ti, err)
	}
	return false, nil
}
