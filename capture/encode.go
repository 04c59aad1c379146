package capture

import (
	"encoding/binary"
	"hash"

	"github.com/dohyo/dohyo/bindings"
)

// frameEncoder builds the uncompressed body of one frame: the entries, and
// after them the value area holding the bytes of bound values in record
// order. Keeping the (high-entropy) value bytes apart from the record
// structure lets zstd code each with its own literal statistics. The delta
// state (previous time, last sequence per session) is reset with each frame
// so frames decode independently apart from the segment's statement table.
type frameEncoder struct {
	buf      []byte // frameLenRoom reserved bytes, then the entries
	side     []byte // the value area
	lastTime int64
	lastSeq  map[uint64]uint64
	records  int
	hashes   []byte    // keyed hashes of the current record's values
	mac      hash.Hash // HMAC-SHA256 with the redaction key
}

// frameLenRoom is room for the uvarint length of the entries in front.
const frameLenRoom = binary.MaxVarintLen64

func newFrameEncoder(mac hash.Hash) *frameEncoder {
	e := &frameEncoder{lastSeq: make(map[uint64]uint64), mac: mac}
	e.reset()
	return e
}

func (e *frameEncoder) reset() {
	e.buf = append(e.buf[:0], make([]byte, frameLenRoom)...)
	e.side = e.side[:0]
	e.lastTime = 0
	e.records = 0
	clear(e.lastSeq)
}

// size is the frame body's size so far.
func (e *frameEncoder) size() int { return len(e.buf) - frameLenRoom + len(e.side) }

func (e *frameEncoder) empty() bool { return e.size() == 0 }

// parts returns the frame body in two parts: uvarint(len(entries))
// entries, and the value area. They are valid until the next reset.
func (e *frameEncoder) parts() (entries, values []byte) {
	var tmp [binary.MaxVarintLen64]byte
	k := binary.PutUvarint(tmp[:], uint64(len(e.buf)-frameLenRoom))
	start := frameLenRoom - k
	copy(e.buf[start:], tmp[:k])
	return e.buf[start:], e.side
}

// body returns the whole frame body (for tests).
func (e *frameEncoder) body() []byte {
	a, b := e.parts()
	return append(append([]byte(nil), a...), b...)
}

// begin starts an entry: one reserved byte for the uvarint length.
func (e *frameEncoder) begin(kind byte) int {
	p := len(e.buf)
	e.buf = append(e.buf, 0, kind)
	return p
}

// end writes the entry's length at p, shifting the body when the length
// needs more than the one reserved byte (rare: entries of 128 bytes or more).
func (e *frameEncoder) end(p int) {
	n := len(e.buf) - p - 1
	if n < 0x80 {
		e.buf[p] = byte(n)
		return
	}
	var tmp [binary.MaxVarintLen64]byte
	k := binary.PutUvarint(tmp[:], uint64(n))
	e.buf = append(e.buf, tmp[:k-1]...)
	copy(e.buf[p+k:], e.buf[p+1:p+1+n])
	copy(e.buf[p:], tmp[:k])
}

func (e *frameEncoder) appendStatement(id uint32, s *stmtInfo) {
	p := e.begin(entryStatement)
	var fl uint64
	if s.key.prepared {
		fl |= stmtFlagPrepared
	}
	text := s.key.text
	if s.textRedacted {
		fl |= stmtFlagRedacted
		text = s.fingerprint
	}
	e.buf = appendUvarint(e.buf, uint64(id))
	e.buf = appendUvarint(e.buf, fl)
	e.buf = appendString(e.buf, s.key.keyspace)
	e.buf = appendString(e.buf, text)
	e.buf = appendString(e.buf, s.fingerprint)
	e.end(p)
}

func (e *frameEncoder) appendSchema(at int64, ddl string) {
	p := e.begin(entrySchema)
	e.buf = appendVarint(e.buf, at)
	e.buf = appendString(e.buf, ddl)
	e.end(p)
}

func (e *frameEncoder) appendDropped(at int64, n uint64) {
	p := e.begin(entryDropped)
	e.buf = appendUvarint(e.buf, n)
	e.buf = appendVarint(e.buf, at)
	e.end(p)
}

// appendRecord encodes one observation. Fields that are usually constant for
// a statement come first and the high-entropy ones (time, latency, digest)
// last, so zstd finds long matches between records; value bytes go to the
// value area.
func (e *frameEncoder) appendRecord(o *bindings.Observation, id uint32, plan *redactPlan, omitPaging bool) {
	t := o.Time.UnixNano()
	fl := recordFlags(o, plan, omitPaging)
	p := e.begin(entryRecord)
	b := e.buf
	b = appendUvarint(b, fl)
	b = appendUvarint(b, uint64(id))
	b = appendUvarint(b, o.Session)
	b = appendVarint(b, int64(o.Seq-e.lastSeq[o.Session]))
	e.lastSeq[o.Session] = o.Seq
	if fl&flagSource != 0 {
		b = appendUvarint(b, uint64(o.Source))
	}
	b = appendUvarint(b, uint64(o.Consistency))
	if fl&flagSerial != 0 {
		b = appendUvarint(b, uint64(o.SerialConsistency))
	}
	if fl&flagPageSize != 0 {
		b = appendVarint(b, int64(o.PageSize))
	}
	if fl&flagResultKind != 0 {
		b = appendUvarint(b, uint64(o.ResultKind))
	}
	if fl&flagErr != 0 {
		b = appendUvarint(b, uint64(o.ErrCode))
	}
	if fl&flagRows != 0 {
		b = appendUvarint(b, uint64(o.Rows))
	}
	if fl&flagBatch != 0 {
		b = appendUvarint(b, uint64(o.BatchIndex))
		b = appendUvarint(b, uint64(o.BatchSize))
		b = appendUvarint(b, uint64(o.BatchType))
	}

	// Value headers, then (at the end) the value bytes.
	b = e.appendValueHeaders(b, o, plan)
	if fl&flagNames != 0 {
		b = appendUvarint(b, uint64(len(o.Names)))
		for _, n := range o.Names {
			b = appendString(b, n)
		}
	}

	b = appendVarint(b, t-e.lastTime)
	e.lastTime = t
	b = appendVarint(b, int64(o.Latency))
	if fl&flagDigest != 0 {
		b = binary.LittleEndian.AppendUint64(b, o.Digest)
	}
	if fl&flagTimestamp != 0 {
		// Client timestamps are µs close to the arrival time: store the gap.
		b = appendVarint(b, o.Timestamp-t/1000)
	}
	if fl&flagPagingBytes != 0 {
		b = appendUvarint(b, uint64(len(o.PagingState)))
		b = append(b, o.PagingState...)
	}
	e.appendValueBytes(o, plan)
	e.buf = b
	e.end(p)
	e.records++
}

// recordFlags says which optional fields a record of o carries.
func recordFlags(o *bindings.Observation, plan *redactPlan, omitPaging bool) uint64 {
	var fl uint64
	if o.Prepared {
		fl |= flagPrepared
	}
	if o.Source != bindings.SourceCQL {
		fl |= flagSource
	}
	if o.Err {
		fl |= flagErr
	}
	if o.HasMore {
		fl |= flagHasMore
	}
	if o.HasTimestamp {
		fl |= flagTimestamp
	}
	if o.PagingState != nil {
		fl |= flagPaging
		if !omitPaging && !plan.any() {
			fl |= flagPagingBytes
		}
	}
	if o.BatchSize != 0 || o.BatchIndex != 0 || o.BatchType != 0 {
		fl |= flagBatch
	}
	if o.Names != nil {
		fl |= flagNames
	}
	if o.Digest != 0 {
		fl |= flagDigest
	}
	if o.SerialConsistency != 0 {
		fl |= flagSerial
	}
	if o.PageSize != 0 {
		fl |= flagPageSize
	}
	if o.Rows != 0 {
		fl |= flagRows
	}
	if o.ResultKind != 0 {
		fl |= flagResultKind
	}
	return fl
}

// appendValueHeaders appends the count and one header per bound value
// (unset, null, dropped, length only, hash or bytes), computing the
// hashes of hashed values into e.hashes.
func (e *frameEncoder) appendValueHeaders(b []byte, o *bindings.Observation, plan *redactPlan) []byte {
	b = appendUvarint(b, uint64(len(o.Values)))
	e.hashes = e.hashes[:0]
	for i, v := range o.Values {
		act := plan.action(i, o.Names)
		switch {
		case v.Unset:
			b = appendUvarint(b, valUnset)
		case v.Bytes == nil:
			b = appendUvarint(b, valNull)
		case act == RedactDrop:
			b = appendUvarint(b, valDrop)
		case act == RedactLength:
			b = appendUvarint(b, uint64(len(v.Bytes))<<3|valLength)
		case act == RedactHash:
			e.mac.Reset()
			e.mac.Write(v.Bytes)
			n := len(e.hashes)
			e.hashes = e.mac.Sum(e.hashes)
			b = appendUvarint(b, uint64(len(e.hashes)-n)<<3|valHash)
		default:
			b = appendUvarint(b, uint64(len(v.Bytes))<<3|valBytes)
		}
	}
	return b
}

// appendValueBytes appends the kept values' bytes (or their hashes) to the
// frame's side buffer, in the order of their headers.
func (e *frameEncoder) appendValueBytes(o *bindings.Observation, plan *redactPlan) {
	hashes := e.hashes
	for i, v := range o.Values {
		if v.Unset || v.Bytes == nil {
			continue
		}
		switch plan.action(i, o.Names) {
		case NotRedacted:
			e.side = append(e.side, v.Bytes...)
		case RedactHash:
			n := e.mac.Size()
			e.side = append(e.side, hashes[:n]...)
			hashes = hashes[n:]
		}
	}
}
