package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
)

// Storage layout of CQL data in the KV store (DESIGN D4). This layout is a
// persistent format: change it only with a migration.
//
// Tables. One KV table per CQL table, named by TableSpec{Keyspace, Name, ID}
// where ID is the CQL table id (a re-created table gets a new id, so stale
// data of a dropped table is never seen). The catalog is kept with
// KV.PutMeta("catalog") as the schema package's JSON, and
// KV.PutMeta("salts") holds a JSON map of table id -> salt bucket count, so
// a table keeps the salt it was created with whatever Options.Salt says
// later.
//
// Rows. One KV row per CQL row, keyed by KeyCodec.RowKey(pk, ck) (keycodec.go:
// salt, Murmur3 token, partition key, clustering key). A table with
// clustering columns also has a partition header row keyed by
// KeyCodec.PartitionKey(pk), which sorts before the partition's rows; a table
// without clustering columns has exactly one KV row per partition, whose key
// is both the header key and the row key.
//
// Cells. Every cell's KV timestamp is the CQL write timestamp (µs) and its
// value is a CellValue (cell.go: tombstone flag, TTL and expiry, data).
// Qualifiers (first byte = kind; names are UTF-8 column names):
//
//	0x00                       row marker: written by INSERT (with the
//	                           insert's timestamp and TTL), never by UPDATE,
//	                           so a row created by UPDATE alone disappears
//	                           when its last column dies, as in Cassandra
//	0x01                       row tombstone; in a header row: the
//	                           partition tombstone
//	0x02 name                  simple column value (regular, or static in the
//	                           header row): CQL-serialized bytes; a null write
//	                           is a tombstone cell; counters hold a bigint
//	0x03 name                  collection tombstone of a non-frozen
//	                           collection (overwrites write it at ts-1)
//	0x04 uvarint(len) name key one element of a non-frozen collection: set:
//	                           key = element, empty data; map: key = map key,
//	                           data = value; list: key = 16-byte time-ordered
//	                           id (appends increase, prepends decrease, as
//	                           Cassandra's timeuuid cell names), data = value
//	0x05 uvarint(len) lo hi    header row only: range tombstone covering the
//	                           rows whose key, less the partition prefix
//	                           (KeyCodec.PartitionPrefix), lies in [lo, hi)
//
// Reads reconcile as Cassandra does: a cell is dead when a covering tombstone
// (partition, range, row, or collection for elements) has a timestamp >= the
// cell's, when it is itself a tombstone, or when its TTL has expired. A row is
// live when its marker or any of its cells is live. Dropped columns are
// ignored for cells written at or before the drop.
const (
	qMarker  byte = 0x00
	qRowDel  byte = 0x01
	qCell    byte = 0x02
	qCollDel byte = 0x03
	qElem    byte = 0x04
	qRange   byte = 0x05
)

var (
	qualMarker = []byte{qMarker}
	qualRowDel = []byte{qRowDel}
)

// noDeletion is the timestamp of "no tombstone": every cell is newer.
const noDeletion int64 = -1 << 63

func cellQual(name string) []byte {
	q := make([]byte, 0, 1+len(name))
	q = append(q, qCell)
	return append(q, name...)
}

func collDelQual(name string) []byte {
	q := make([]byte, 0, 1+len(name))
	q = append(q, qCollDel)
	return append(q, name...)
}

func elemQualPrefix(name string) []byte {
	q := make([]byte, 0, 1+binary.MaxVarintLen32+len(name)+16)
	q = append(q, qElem)
	q = binary.AppendUvarint(q, uint64(len(name)))
	return append(q, name...)
}

func elemQual(name string, key []byte) []byte {
	return append(elemQualPrefix(name), key...)
}

func rangeQual(lo, hi []byte) []byte {
	q := make([]byte, 0, 1+binary.MaxVarintLen32+len(lo)+len(hi))
	q = append(q, qRange)
	q = binary.AppendUvarint(q, uint64(len(lo)))
	q = append(q, lo...)
	return append(q, hi...)
}

var errBadQualifier = errors.New("widecolumn: corrupt qualifier")

// parsedQual is a decoded qualifier. name and key alias the qualifier.
type parsedQual struct {
	kind   byte
	name   []byte // column name (qCell, qCollDel, qElem)
	key    []byte // element key (qElem)
	lo, hi []byte // range bounds (qRange)
}

func parseQual(q []byte) (parsedQual, error) {
	if len(q) == 0 {
		return parsedQual{}, errBadQualifier
	}
	p := parsedQual{kind: q[0]}
	switch q[0] {
	case qMarker, qRowDel:
	case qCell, qCollDel:
		p.name = q[1:]
	case qElem, qRange:
		n, w := binary.Uvarint(q[1:])
		if w <= 0 || uint64(len(q)-1-w) < n {
			return parsedQual{}, errBadQualifier
		}
		a := q[1+w : 1+w+int(n)]
		b := q[1+w+int(n):]
		if q[0] == qElem {
			p.name, p.key = a, b
		} else {
			p.lo, p.hi = a, b
		}
	default:
		return parsedQual{}, errBadQualifier
	}
	return p, nil
}

// rangeTomb is a decoded range tombstone: rows whose relative key lies in
// [lo, hi) are deleted at ts.
type rangeTomb struct {
	lo, hi []byte
	ts     int64
}

func (r rangeTomb) covers(rel []byte) bool {
	return bytes.Compare(r.lo, rel) <= 0 && bytes.Compare(rel, r.hi) < 0
}

// list element keys: 8 bytes of ordered time, 8 bytes of sequence. Appends
// use time|1<<63 (increasing), prepends use (1<<63-1)-time (decreasing), so
// every prepended element sorts before every appended one.
func listKey(t uint64, seq uint64, prepend bool) []byte {
	var k [16]byte
	if prepend {
		binary.BigEndian.PutUint64(k[:], (1<<63-1)-t)
	} else {
		binary.BigEndian.PutUint64(k[:], t|1<<63)
	}
	binary.BigEndian.PutUint64(k[8:], seq)
	return k[:]
}
