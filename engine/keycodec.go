package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"

	"github.com/dohyo/dohyo/bindings"
	"github.com/dohyo/dohyo/cql"
	"github.com/dohyo/dohyo/internal/murmur3"
)

// Row-key layout (DESIGN D4):
//
//	[salt]      1 byte, only when the table has N > 0 salt buckets:
//	            CRC32 (IEEE) of the serialized partition key mod N
//	token       8 bytes: Cassandra's Murmur3 token of the serialized
//	            partition key, sign bit flipped, big-endian
//	partition   the serialized partition key (see SerializePartitionKey),
//	            escaped (0x00 -> 0x00 0xFF) and closed by 0x00 0x01
//	clustering  zero or more clustering components (keycodec_component.go):
//	            a marker byte in [0x02, 0xFD] then a self-delimiting
//	            canonical payload; every byte complemented for DESC columns
//	[ties]      0x01 then the tie items of the components, only when one of
//	            them differs from its default (values Cassandra calls equal
//	            but whose bytes differ, such as decimal 1.0 and 1.00)
//	0x00        terminator
//
// Bytewise order of row keys is therefore: token, then the serialized
// partition key compared unsigned (exactly Cassandra's DecoratedKey order),
// then clustering order; keys equal up to ties are ordered by their tie
// sections, after every column has been compared. The partition header row
// (no clustering values; static columns live there) sorts before every row
// of its partition, and no row key is a prefix of another. Bytes 0x01 and
// 0xFE/0xFF never start a component, so "partition prefix + 0x01" sits
// between a header and the first row and "prefix + 0xFF" after every key
// extending the prefix; bounds use them. Bounds are built from canonical
// components only, so a bound on 1.0 also covers the row keyed 1.00, as in
// Cassandra where both are the same clustering.
const (
	keyTerm    byte = 0x00 // ends a key, a collection or a tuple
	keyLow     byte = 0x01 // in bounds: after the header, before any component
	keyTies    byte = 0x01 // in row keys: starts the tie section
	keyHigh    byte = 0xFF // bound only: after every key extending a prefix
	escByte    byte = 0xFF // 0x00 0xFF is an escaped 0x00 in a string
	escEnd     byte = 0x01 // 0x00 0x01 ends an escaped string
	tokenBytes      = 8
	// maxSaltBuckets: the bucket is one byte.
	maxSaltBuckets = 256
)

// ErrCorruptKey is wrapped by errors about row keys that this codec could not
// have produced (store corruption or a key of another table).
var ErrCorruptKey = errors.New("corrupt row key")

// KeyCodec builds and parses the row keys of one table. It is immutable and
// safe for concurrent use.
type KeyCodec struct {
	pk   []*cql.Type
	ck   []*cql.Type
	desc []bool
	salt int
}

// NewKeyCodec returns the codec for a table with the given partition-key and
// clustering column types, DESC flags (one per clustering column; nil means
// all ASC) and salt bucket count (0: no salt; at most 256). Types that cannot
// be part of a primary key (duration, also nested) are rejected.
func NewKeyCodec(pk, ck []*cql.Type, desc []bool, salt int) (*KeyCodec, error) {
	if len(pk) == 0 {
		return nil, errors.New("widecolumn: key codec: no partition key columns")
	}
	if desc != nil && len(desc) != len(ck) {
		return nil, fmt.Errorf("widecolumn: key codec: %d DESC flags for %d clustering columns", len(desc), len(ck))
	}
	if salt < 0 || salt > maxSaltBuckets {
		return nil, fmt.Errorf("widecolumn: key codec: salt buckets %d out of range [0, %d]", salt, maxSaltBuckets)
	}
	for _, ts := range [][]*cql.Type{pk, ck} {
		for _, t := range ts {
			if err := checkKeyType(t); err != nil {
				return nil, err
			}
		}
	}
	c := &KeyCodec{
		pk:   append([]*cql.Type(nil), pk...),
		ck:   append([]*cql.Type(nil), ck...),
		desc: make([]bool, len(ck)),
		salt: salt,
	}
	copy(c.desc, desc)
	return c, nil
}

// checkKeyType rejects types that cannot be (part of) a primary key.
func checkKeyType(t *cql.Type) error {
	if t == nil {
		return errors.New("widecolumn: key codec: nil type")
	}
	switch t.Kind {
	case cql.KindDuration:
		return bindings.Errorf(bindings.CodeInvalid, "duration type is not supported for PRIMARY KEY columns")
	case cql.KindInvalid:
		return fmt.Errorf("widecolumn: key codec: invalid type %s", t)
	case cql.KindList, cql.KindSet:
		if len(t.Elems) != 1 {
			return fmt.Errorf("widecolumn: key codec: malformed type %s", t)
		}
	case cql.KindMap:
		if len(t.Elems) != 2 {
			return fmt.Errorf("widecolumn: key codec: malformed type %s", t)
		}
	}
	for _, e := range t.Elems {
		if err := checkKeyType(e); err != nil {
			return err
		}
	}
	return nil
}

// Buckets returns the number of salt buckets (0: unsalted).
func (c *KeyCodec) Buckets() int { return c.salt }

func (c *KeyCodec) saltLen() int {
	if c.salt > 0 {
		return 1
	}
	return 0
}

// SerializePartitionKey returns Cassandra's serialized partition key, the
// input of the token and salt hashes: the component itself for a single
// column key; for a composite key, per component a 2-byte big-endian length,
// the bytes and 0x00. Components longer than 65535 bytes cannot be
// serialized and yield nil.
func SerializePartitionKey(components [][]byte) []byte {
	if len(components) == 1 {
		return append([]byte(nil), components[0]...)
	}
	b, err := appendSerializedPK(nil, components)
	if err != nil {
		return nil
	}
	return b
}

func appendSerializedPK(dst []byte, pk [][]byte) ([]byte, error) {
	if len(pk) == 1 {
		return append(dst, pk[0]...), nil
	}
	for i, v := range pk {
		if len(v) > math.MaxUint16 {
			return nil, bindings.Errorf(bindings.CodeInvalid, "partition key component %d is %d bytes, longer than the maximum %d", i, len(v), math.MaxUint16)
		}
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(v)))
		dst = append(dst, v...)
		dst = append(dst, 0)
	}
	return dst, nil
}

// appendPartitionPrefix appends salt, token and escaped partition key: the
// bytes every row key of the partition starts with.
func (c *KeyCodec) appendPartitionPrefix(dst []byte, pk [][]byte) ([]byte, error) {
	if len(pk) != len(c.pk) {
		return nil, bindings.Errorf(bindings.CodeInvalid, "partition key has %d components, the table has %d", len(pk), len(c.pk))
	}
	for i, v := range pk {
		if v == nil {
			return nil, bindings.Errorf(bindings.CodeInvalid, "invalid null value for partition key component %d", i)
		}
	}
	ser := pk[0]
	if len(pk) > 1 {
		n := 0
		for _, v := range pk {
			n += 3 + len(v)
		}
		var err error
		if ser, err = appendSerializedPK(make([]byte, 0, n), pk); err != nil {
			return nil, err
		}
	}
	if len(ser) == 0 {
		return nil, bindings.Errorf(bindings.CodeInvalid, "Key may not be empty")
	}
	if c.salt > 0 {
		dst = append(dst, byte(crc32.ChecksumIEEE(ser)%uint32(c.salt)))
	}
	dst = appendToken(dst, murmur3.Token(ser))
	return appendEscaped(dst, ser), nil
}

func appendToken(dst []byte, token int64) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(token)^(1<<63))
}

// appendEscaped appends s with 0x00 escaped as 0x00 0xFF and the end marked
// by 0x00 0x01, which keeps bytewise order and makes s self-delimiting.
func appendEscaped(dst, s []byte) []byte {
	if len(s) <= 16 {
		// Short values (most keys: a bigint, a uuid) in one pass; a search
		// per zero byte costs more for them than it saves.
		for _, c := range s {
			if c == 0 {
				dst = append(dst, 0, escByte)
			} else {
				dst = append(dst, c)
			}
		}
		return append(dst, 0, escEnd)
	}
	for {
		i := bytes.IndexByte(s, 0)
		if i < 0 {
			dst = append(dst, s...)
			break
		}
		dst = append(dst, s[:i+1]...)
		dst = append(dst, escByte)
		s = s[i+1:]
	}
	return append(dst, 0, escEnd)
}

// PartitionKey returns the row key of the partition header row: the row
// holding static columns and partition-level state, sorted before every
// clustering row of the partition. For a table without clustering columns it
// is the key of the partition's only row.
func (c *KeyCodec) PartitionKey(pk [][]byte) ([]byte, error) {
	dst, err := c.appendPartitionPrefix(make([]byte, 0, c.sizeHint(pk, nil)), pk)
	if err != nil {
		return nil, err
	}
	return append(dst, keyTerm), nil
}

// RowKey returns the row key for a full primary key: one CQL-serialized value
// per partition and clustering column (no nulls; empty values are allowed
// for clustering columns, as in Cassandra).
func (c *KeyCodec) RowKey(pk, ck [][]byte) ([]byte, error) {
	return c.AppendRowKey(make([]byte, 0, c.sizeHint(pk, ck)), pk, ck)
}

// AppendRowKey is RowKey appending to dst.
func (c *KeyCodec) AppendRowKey(dst []byte, pk, ck [][]byte) ([]byte, error) {
	if len(ck) != len(c.ck) {
		return nil, bindings.Errorf(bindings.CodeInvalid, "row key has %d clustering values, the table has %d clustering columns", len(ck), len(c.ck))
	}
	return c.appendKey(dst, pk, ck)
}

// appendKey appends the key of a partition and a clustering prefix of any
// length (full: a row key; empty: the header key).
func (c *KeyCodec) appendKey(dst []byte, pk, ck [][]byte) ([]byte, error) {
	dst, err := c.appendPartitionPrefix(dst, pk)
	if err != nil {
		return nil, err
	}
	var e compEncoder
	if dst, err = c.encodeClustering(&e, dst, ck); err != nil {
		return nil, err
	}
	if e.nonDefault {
		dst = append(dst, keyTies)
		dst = append(dst, e.ties...)
	}
	return append(dst, keyTerm), nil
}

func (c *KeyCodec) sizeHint(pk, ck [][]byte) int {
	n := 1 + tokenBytes + 3 + 1
	for _, v := range pk {
		// Escaping doubles zero bytes (a small bigint has 7); a composite
		// key adds a length and an end byte per component, which may be
		// escaped too.
		n += len(v) + 6
		for _, b := range v {
			if b == 0 {
				n++
			}
		}
	}
	for _, v := range ck {
		n += len(v) + 4
	}
	return n
}

// appendClustering appends the canonical encodings of a clustering prefix
// (no tie section, no terminator): the common prefix of every row key whose
// clustering starts with values Cassandra considers equal to ck.
func (c *KeyCodec) appendClustering(dst []byte, ck [][]byte) ([]byte, error) {
	var e compEncoder
	return c.encodeClustering(&e, dst, ck)
}

func (c *KeyCodec) encodeClustering(e *compEncoder, dst []byte, ck [][]byte) ([]byte, error) {
	if len(ck) > len(c.ck) {
		return nil, bindings.Errorf(bindings.CodeInvalid, "%d clustering values for %d clustering columns", len(ck), len(c.ck))
	}
	for i, v := range ck {
		var err error
		if dst, err = c.encodeColumn(e, dst, i, v); err != nil {
			return nil, err
		}
	}
	return dst, nil
}

// encodeColumn appends the encoding of clustering column col.
func (c *KeyCodec) encodeColumn(e *compEncoder, dst []byte, col int, v []byte) ([]byte, error) {
	if v == nil {
		return nil, bindings.Errorf(bindings.CodeInvalid, "invalid null value for clustering column %d", col)
	}
	start := len(dst)
	dst, err := e.appendComponent(dst, c.ck[col], v)
	if err != nil {
		return nil, fmt.Errorf("clustering column %d: %w", col, err)
	}
	if c.desc[col] {
		// Component encodings are prefix-free, so complementing every
		// byte exactly reverses their order.
		complementFrom(dst, start)
	}
	return dst, nil
}

// DecodeRowKey parses a row key back into CQL-serialized partition and
// clustering values. ck is empty for a partition header row, and shorter than
// the clustering columns for a clustering-prefix key. The returned values do
// not alias key.
func (c *KeyCodec) DecodeRowKey(key []byte) (pk, ck [][]byte, err error) {
	// One buffer for every decoded value and one slice for pk and ck.
	buf := make([]byte, 0, 2*len(key)+16)
	vals := make([][]byte, len(c.pk), len(c.pk)+len(c.ck))
	buf, rest, err := c.splitPartition(key, buf)
	if err != nil {
		return nil, nil, err
	}
	if err = c.parseSerializedPK(buf, vals); err != nil {
		return nil, nil, err
	}
	// Tie items come after the components, but are needed while decoding
	// them: find the end of the components first, then decode again with
	// the tie section when there is one.
	d := compDecoder{r: keyReader{b: rest}}
	all, err := c.decodeClustering(&d, buf, vals)
	if err != nil {
		return nil, nil, err
	}
	end := d.r.pos
	switch {
	case end == len(rest)-1 && rest[end] == keyTerm:
		if d.requireTies {
			return nil, nil, corrupt("missing tie section")
		}
	case end < len(rest)-1 && rest[end] == keyTies && rest[len(rest)-1] == keyTerm:
		tie := keyReader{b: rest[:len(rest)-1], pos: end + 1}
		d = compDecoder{r: keyReader{b: rest[:end]}, tie: &tie}
		if all, err = c.decodeClustering(&d, buf, vals); err != nil {
			return nil, nil, err
		}
		if d.r.pos != end || tie.pos != len(tie.b) || !d.nonDefault {
			return nil, nil, corrupt("bad tie section")
		}
	default:
		return nil, nil, corrupt("bad terminator")
	}
	return all[:len(c.pk):len(c.pk)], all[len(c.pk):], nil
}

// decodeClustering decodes clustering components up to the terminator or
// the tie section, appending their bytes to buf and the values to vals
// (which holds the partition key components).
func (c *KeyCodec) decodeClustering(d *compDecoder, buf []byte, vals [][]byte) ([][]byte, error) {
	for i := 0; i < len(c.ck); i++ {
		m, ok := d.r.peekRaw()
		if !ok {
			if d.tie != nil {
				break // second pass: components end where the ties begin
			}
			return nil, corrupt("missing terminator")
		}
		if m == keyTerm || m == keyTies {
			break
		}
		d.r.inv = 0
		if c.desc[i] {
			d.r.inv = 0xFF
		}
		start := len(buf)
		var err error
		buf, err = d.decodeComponent(c.ck[i], buf)
		d.r.inv = 0
		if err != nil {
			return nil, fmt.Errorf("widecolumn: clustering column %d: %w", i, err)
		}
		// If buf grew, earlier values keep the old array, which is fine:
		// nothing writes to them any more.
		vals = append(vals, buf[start:len(buf):len(buf)])
	}
	return vals, nil
}

// splitPartition checks salt and token, appends the unescaped serialized
// partition key to buf and returns the rest of the key after the partition
// part.
func (c *KeyCodec) splitPartition(key, buf []byte) (ser, rest []byte, err error) {
	sl := c.saltLen()
	if len(key) < sl+tokenBytes+2 {
		return nil, nil, corrupt("too short")
	}
	r := keyReader{b: key, pos: sl + tokenBytes}
	ser, err = decodeEscaped(&r, buf)
	if err != nil {
		return nil, nil, err
	}
	if murmur3.Token(ser) != readToken(key[sl:]) {
		return nil, nil, corrupt("token does not match the partition key")
	}
	if sl == 1 && int(key[0]) != int(crc32.ChecksumIEEE(ser)%uint32(c.salt)) {
		return nil, nil, corrupt("salt does not match the partition key")
	}
	return ser, key[r.pos:], nil
}

// readToken reads the token from the first 8 bytes of b.
func readToken(b []byte) int64 {
	return int64(binary.BigEndian.Uint64(b) ^ (1 << 63))
}

// parseSerializedPK splits a serialized partition key into the components
// out (len(c.pk) of them).
func (c *KeyCodec) parseSerializedPK(ser []byte, out [][]byte) error {
	if len(c.pk) == 1 {
		out[0] = ser[:len(ser):len(ser)]
		return nil
	}
	i := 0
	for ; len(ser) > 0; i++ {
		if len(ser) < 3 || i >= len(out) {
			return corrupt("bad composite partition key")
		}
		n := int(binary.BigEndian.Uint16(ser))
		if len(ser) < 2+n+1 || ser[2+n] != 0 {
			return corrupt("bad composite partition key")
		}
		out[i] = ser[2 : 2+n : 2+n]
		ser = ser[3+n:]
	}
	if i != len(c.pk) {
		return corrupt("wrong number of partition key components")
	}
	return nil
}

// KeyToken returns the token stored in a row key.
func (c *KeyCodec) KeyToken(key []byte) (int64, error) {
	sl := c.saltLen()
	if len(key) < sl+tokenBytes {
		return 0, corrupt("too short")
	}
	return readToken(key[sl:]), nil
}

// PartitionPrefix returns the leading bytes of key shared by every row key
// of its partition (salt, token and partition key), aliasing key. Comparing
// prefixes tells rows of different partitions apart during scans.
func (c *KeyCodec) PartitionPrefix(key []byte) ([]byte, error) {
	sl := c.saltLen()
	if len(key) < sl+tokenBytes+2 {
		return nil, corrupt("too short")
	}
	for i := sl + tokenBytes; i+1 < len(key); i++ {
		if key[i] != 0 {
			continue
		}
		switch key[i+1] {
		case escEnd:
			return key[: i+2 : i+2], nil
		case escByte:
			i++
		default:
			return nil, corrupt("bad escape in partition key")
		}
	}
	return nil, corrupt("unterminated partition key")
}

// KeySuccessor returns the smallest key greater than key: the start of a
// forward scan resuming after key (row keys are prefix-free, so no row key
// lies between key and its successor).
func KeySuccessor(key []byte) []byte {
	out := make([]byte, len(key)+1)
	copy(out, key)
	return out
}

func corrupt(why string) error {
	return fmt.Errorf("widecolumn: %w: %s", ErrCorruptKey, why)
}
