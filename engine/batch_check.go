package engine

import (
	"bytes"
	"fmt"

	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/engine/kv"
)

// batchCheck is what Cassandra's BatchStatement checks before it applies
// a batch without conditions: tables with gc_grace_seconds 0 in a logged
// batch, the batch's data size over several partitions (warning, or
// refusal past the fail threshold), and unlogged batches over many
// partitions. checkBatch fills warnings; an error refuses the batch.
type batchCheck struct {
	typ      cql.BatchType
	warnings []string
}

// rangeNote is the data size, as Cassandra counts it, of the range
// tombstones a statement writes into one partition (its header key):
// collected only while a batch is checked (mutBuilder.sizing).
type rangeNote struct {
	ti   *tableInfo
	hkey []byte
	size int64
}

// Cassandra's data sizes (PartitionUpdate.dataSize, Row.dataSize,
// Cell.dataSize, with 5.0's long local deletion times): fixed parts per
// partition update, row, cell and complex column.
const (
	sizePartition = 29 // empty static row (liveness 8, deletion 13) + partition deletion time 8
	sizeRow       = 21 // liveness 8 + row deletion 13, besides the clustering values
	sizeTTL       = 12 // an expiring row liveness: ttl 4 + expiration time 8
	sizeCell      = 20 // timestamp 8 + ttl 4 + local deletion time 8, besides value and path
	sizeComplex   = 12 // a collection's complex deletion time
	sizeRanges    = 4  // a partition's range tombstone count
	sizeRange     = 12 // a range tombstone's deletion time, besides its bounds
	sizeCounter   = sizeCell + 36
)

// noteRanges records the size of the range tombstones of a DELETE with
// clustering prefixes or slices: per prefix, its values at both bounds and
// the slice's bound values.
func (m *mutBuilder) noteRanges(ti *tableInfo, hkey []byte, ev *ckEval) {
	var size int64
	for _, p := range ev.prefixes {
		size += sizeRange + 2*valuesLen(p)
		if ev.lower != nil {
			size += valuesLen(ev.lower.Values)
		}
		if ev.upper != nil {
			size += valuesLen(ev.upper.Values)
		}
	}
	m.ranges = append(m.ranges, rangeNote{ti: ti, hkey: hkey, size: size})
}

func valuesLen(vs [][]byte) int64 {
	var n int64
	for _, v := range vs {
		n += int64(len(v))
	}
	return n
}

// checkBatch runs a batch's checks over the mutations collected for it.
func (e *Engine) checkBatch(bc *batchCheck, plans []*modPlan, mb *mutBuilder) error {
	bc.warnings = bc.warnings[:0]
	if bc.typ == cql.BatchLogged {
		var zero []string
		for _, p := range plans {
			if p.ti.t.GCGraceSeconds() == 0 {
				zero = appendDistinct(zero, p.ti.warnName())
			}
		}
		if len(zero) > 0 {
			bc.warnings = append(bc.warnings, warnLoggedBatchGCGrace(zero))
		}
	}
	th := e.th
	checkUnlogged := bc.typ != cql.BatchLogged && th.UnloggedBatchPartitions >= 0
	if th.BatchSizeWarn < 0 && th.BatchSizeFail < 0 && !checkUnlogged {
		return nil
	}
	if onePartition(plans, mb) {
		return nil // Cassandra checks batches over several partitions only
	}
	bs := newBatchSizes(plans)
	if err := bs.add(mb); err != nil {
		return err
	}
	if len(bs.mutations) <= 1 {
		return nil // Cassandra checks batches over several partitions only
	}
	size := bs.size()
	over := th.BatchSizeWarn >= 0 && size > th.BatchSizeWarn
	if th.BatchSizeFail >= 0 && size > th.BatchSizeFail && (over || th.BatchSizeWarn < 0) {
		return invalidf("%s", errBatchTooLarge)
	}
	if over {
		bc.warnings = append(bc.warnings, warnBatchSize(bs.tables, size, th.BatchSizeWarn))
	}
	if checkUnlogged && len(bs.keys) > th.UnloggedBatchPartitions {
		bc.warnings = append(bc.warnings, warnUnloggedBatch(len(bs.keys), bs.tables))
	}
	return nil
}

// onePartition reports, without decoding keys, whether every row a batch
// writes lies in one partition of one table (the usual batch).
func onePartition(plans []*modPlan, mb *mutBuilder) bool {
	var table string
	var prefix []byte
	same := func(ti *tableInfo, row []byte) bool {
		p, err := ti.codec.PartitionPrefix(row)
		if err != nil {
			return false
		}
		if prefix == nil {
			table, prefix = ti.t.ID, p
			return true
		}
		return ti.t.ID == table && bytes.Equal(p, prefix)
	}
	var ti *tableInfo
	for i := range mb.muts {
		if ti == nil || ti.t.ID != mb.muts[i].Table.ID {
			ti = tableOf(plans, mb.muts[i].Table.ID)
		}
		if ti == nil || !same(ti, mb.muts[i].Row) {
			return false
		}
	}
	for _, c := range mb.counters {
		if !same(c.ti, c.row) {
			return false
		}
	}
	for _, r := range mb.ranges {
		if !same(r.ti, r.hkey) {
			return false
		}
	}
	return true
}

func tableOf(plans []*modPlan, id string) *tableInfo {
	for _, p := range plans {
		if p.ti.t.ID == id {
			return p.ti
		}
	}
	return nil
}

// batchSizes groups a batch's mutations as Cassandra does: one partition
// update per table and partition, one mutation per keyspace and partition
// key, and sums their data sizes.
type batchSizes struct {
	byID      map[string]*tableInfo // the batch's tables
	parts     map[partID]*partSize
	order     []*partSize
	rows      map[partID]bool // rows counted (table id, row key)
	mutations map[string]bool // keyspace + serialized partition key
	keys      map[string]bool // serialized partition key
	tables    []string        // qualified names, first seen first
}

type partID struct{ table, key string }

type partSize struct {
	rows, ranges int64
	hasRanges    bool
}

func newBatchSizes(plans []*modPlan) *batchSizes {
	bs := &batchSizes{byID: map[string]*tableInfo{}, parts: map[partID]*partSize{},
		rows: map[partID]bool{}, mutations: map[string]bool{}, keys: map[string]bool{}}
	for _, p := range plans {
		bs.byID[p.ti.t.ID] = p.ti
	}
	return bs
}

func (bs *batchSizes) size() int64 {
	var n int64
	for _, p := range bs.order {
		n += sizePartition + p.rows
		if p.hasRanges {
			n += sizeRanges + p.ranges
		}
	}
	return n
}

// part returns the partition update of a row key, decoding it.
func (bs *batchSizes) part(ti *tableInfo, row []byte) (*partSize, [][]byte, error) {
	pk, ck, err := ti.codec.DecodeRowKey(row)
	if err != nil {
		return nil, nil, fmt.Errorf("batch size: %w", err)
	}
	ser := string(SerializePartitionKey(pk))
	id := partID{ti.t.ID, ser}
	p := bs.parts[id]
	if p == nil {
		p = &partSize{}
		bs.parts[id] = p
		bs.order = append(bs.order, p)
		bs.mutations[ti.t.Keyspace+"\x00"+ser] = true
		bs.keys[ser] = true
		bs.tables = appendDistinct(bs.tables, ti.warnName())
	}
	return p, ck, nil
}

func (bs *batchSizes) add(mb *mutBuilder) error {
	for i := range mb.muts {
		mu := &mb.muts[i]
		ti := bs.byID[mu.Table.ID]
		if ti == nil {
			continue
		}
		p, ck, err := bs.part(ti, mu.Row)
		if err != nil {
			return err
		}
		n, err := rowDataSize(ti, ck, mu.Cells)
		if err != nil {
			return err
		}
		p.rows += n
		bs.rows[partID{ti.t.ID, string(mu.Row)}] = n > 0
	}
	for _, c := range mb.counters {
		p, ck, err := bs.part(c.ti, c.row)
		if err != nil {
			return err
		}
		id := partID{c.ti.t.ID, string(c.row)}
		if !bs.rows[id] && !(c.ti.hasCK && len(ck) == 0) {
			p.rows += sizeRow + valuesLen(ck)
			bs.rows[id] = true
		}
		p.rows += sizeCounter
	}
	for _, r := range mb.ranges {
		p, _, err := bs.part(r.ti, r.hkey)
		if err != nil {
			return err
		}
		p.ranges += r.size
		p.hasRanges = true
	}
	return nil
}

// rowDataSize is Cassandra's data size of the cells one KV row receives:
// a clustering row (its clustering values, liveness and deletion, its
// cells), the static row of a partition header (its cells), or nothing for
// a partition tombstone alone. A qualifier written twice counts once, the
// last write, as Cassandra merges a batch's updates to one row.
func rowDataSize(ti *tableInfo, ck [][]byte, cells []kv.Cell) (int64, error) {
	header := ti.hasCK && len(ck) == 0
	var size int64
	if !header {
		size = sizeRow + valuesLen(ck)
	}
	seen := make(map[string]bool, len(cells))
	var complexCols []string
	onlyDeletion := true
	for i := len(cells) - 1; i >= 0; i-- {
		c := cells[i]
		if seen[string(c.Qualifier)] {
			continue
		}
		seen[string(c.Qualifier)] = true
		q, err := parseQual(c.Qualifier)
		if err != nil {
			return 0, err
		}
		v, err := kv.DecodeCellValue(c.Value)
		if err != nil {
			return 0, err
		}
		switch q.kind {
		case qMarker:
			onlyDeletion = false
			if !header && v.TTL > 0 {
				size += sizeTTL
			}
		case qCell:
			onlyDeletion = false
			size += sizeCell + int64(len(v.Data))
		case qCollDel:
			onlyDeletion = false
			complexCols = appendDistinct(complexCols, string(q.name))
		case qElem:
			onlyDeletion = false
			complexCols = appendDistinct(complexCols, string(q.name))
			size += sizeCell + int64(len(q.key)+len(v.Data))
		}
	}
	if !ti.hasCK && onlyDeletion {
		return 0, nil // DELETE of a partition without clustering columns
	}
	return size + sizeComplex*int64(len(complexCols)), nil
}
