package capture

import (
	"errors"
	"fmt"
	"time"

	"github.com/dohyo/dohyo/bindings"
)

// emptyValue is a non-nil empty value: CQL distinguishes it from null.
var emptyValue = []byte{}

// stmtDef is a statement definition entry.
type stmtDef struct {
	keyspace, text, fingerprint string
	prepared, redacted          bool
}

// frameDecoder walks the entries of one decompressed frame. Records it
// returns are carved from slabs so a frame costs a few allocations, not
// several per record; their byte slices alias the frame body, which is
// never reused.
type frameDecoder struct {
	body     []byte // the entries
	pos      int
	side     cursor // the value area, consumed in record order
	lastTime int64
	lastSeq  map[uint64]uint64
	recs     []Record
	vals     []Value
}

// reset starts a frame body: uvarint(len(entries)) entries values.
func (d *frameDecoder) reset(body []byte) error {
	c := cursor{b: body}
	n := c.uvarint()
	if c.err != nil || n > uint64(len(c.b)) {
		return errors.New("bad entries length")
	}
	d.body, d.pos, d.lastTime = c.b[:n], 0, 0
	d.side = cursor{b: c.b[n:]}
	if d.lastSeq == nil {
		d.lastSeq = make(map[uint64]uint64)
	}
	clear(d.lastSeq)
	d.recs, d.vals = nil, nil
	return nil
}

func (d *frameDecoder) done() bool { return d.pos >= len(d.body) }

// entry returns the next entry's kind and body; entryPos is its offset in
// the frame body (for error messages).
func (d *frameDecoder) entry() (kind byte, body []byte, entryPos int, err error) {
	entryPos = d.pos
	c := cursor{b: d.body[d.pos:]}
	n := c.uvarint()
	if c.err != nil || n == 0 || n > uint64(len(c.b)) {
		return 0, nil, entryPos, errors.New("bad entry length")
	}
	body = c.b[:n]
	d.pos = len(d.body) - len(c.b) + int(n)
	return body[0], body[1:], entryPos, nil
}

func decodeStatement(b []byte) (uint64, stmtDef, error) {
	c := cursor{b: b}
	id := c.uvarint()
	fl := c.uvarint()
	s := stmtDef{
		keyspace:    c.string(),
		text:        c.string(),
		fingerprint: c.string(),
		prepared:    fl&stmtFlagPrepared != 0,
		redacted:    fl&stmtFlagRedacted != 0,
	}
	return id, s, c.err
}

func decodeSchema(b []byte) (int64, string, error) {
	c := cursor{b: b}
	at := c.varint()
	ddl := c.string()
	return at, ddl, c.err
}

func decodeDropped(b []byte) (uint64, error) {
	c := cursor{b: b}
	n := c.uvarint()
	c.varint()
	return n, c.err
}

// record decodes a record entry, resolving its statement in defs.
func (d *frameDecoder) record(b []byte, defs []stmtDef) (*Record, error) {
	if len(d.recs) == 0 {
		d.recs = make([]Record, 64)
	}
	r := &d.recs[0]
	d.recs = d.recs[1:]

	c := cursor{b: b}
	fl := c.uvarint()
	id := c.uvarint()
	if c.err == nil && id >= uint64(len(defs)) {
		return nil, fmt.Errorf("record refers to undefined statement %d", id)
	}
	r.Session = c.uvarint()
	r.Seq = d.lastSeq[r.Session] + uint64(c.varint())
	d.lastSeq[r.Session] = r.Seq
	r.Source = bindings.SourceCQL
	if fl&flagSource != 0 {
		r.Source = bindings.Source(c.uvarint())
	}
	r.Consistency = bindings.Consistency(c.uvarint())
	if fl&flagSerial != 0 {
		r.SerialConsistency = bindings.Consistency(c.uvarint())
	}
	if fl&flagPageSize != 0 {
		r.PageSize = int32(c.varint())
	}
	if fl&flagResultKind != 0 {
		r.ResultKind = bindings.ResultKind(c.uvarint())
	}
	r.Err = fl&flagErr != 0
	if r.Err {
		r.ErrCode = bindings.ErrorCode(c.uvarint())
	}
	if fl&flagRows != 0 {
		r.Rows = int(c.uvarint())
	}
	if fl&flagBatch != 0 {
		r.BatchIndex = int(c.uvarint())
		r.BatchSize = int(c.uvarint())
		r.BatchType = uint8(c.uvarint())
	}
	if err := d.valueHeaders(&c, r); err != nil {
		return nil, err
	}
	if fl&flagNames != 0 {
		n := c.count(1)
		r.Names = make([]string, n)
		for i := range r.Names {
			r.Names[i] = c.string()
		}
	}
	r.Time = d.lastTime + c.varint()
	d.lastTime = r.Time
	r.Latency = time.Duration(c.varint())
	if fl&flagDigest != 0 {
		r.Digest = c.fixed64()
	}
	r.HasTimestamp = fl&flagTimestamp != 0
	if r.HasTimestamp {
		r.Timestamp = c.varint() + r.Time/1000
	}
	r.Paging = fl&flagPaging != 0
	if fl&flagPagingBytes != 0 {
		r.PagingState = c.bytes(c.uvarint())
	}
	if c.err != nil {
		return nil, c.err
	}
	for i := range r.Values {
		v := &r.Values[i]
		if (v.Bytes != nil || v.Redacted == RedactHash) && v.Len > 0 {
			v.Bytes, v.Len = d.side.bytes(uint64(v.Len)), 0
		}
	}
	if d.side.err != nil {
		return nil, errors.New("value area too short")
	}
	def := &defs[id]
	r.StatementID = uint32(id)
	r.Keyspace, r.Query, r.Fingerprint = def.keyspace, def.text, def.fingerprint
	r.Prepared = fl&flagPrepared != 0
	r.QueryRedacted = def.redacted
	r.HasMore = fl&flagHasMore != 0
	return r, nil
}

// valueHeaders reads a record's value count and headers into r.Values
// (sliced from the decoder's value arena); the bytes come later.
func (d *frameDecoder) valueHeaders(c *cursor, r *Record) error {
	nv := c.count(1)
	if c.err != nil {
		return c.err
	}
	if nv > 0 {
		if len(d.vals) < nv {
			d.vals = make([]Value, max(256, nv))
		}
		r.Values = d.vals[:nv:nv]
		d.vals = d.vals[nv:]
	}
	for i := range r.Values {
		h := c.uvarint()
		v := &r.Values[i]
		switch h & 7 {
		case valBytes:
			// Non-nil marks "bytes follow" (an empty value is not null).
			v.Bytes, v.Len = emptyValue, int(h>>3)
		case valNull:
		case valUnset:
			v.Unset = true
		case valDrop:
			v.Redacted = RedactDrop
		case valHash:
			v.Redacted, v.Len = RedactHash, int(h>>3)
		case valLength:
			v.Redacted, v.Len = RedactLength, int(h>>3)
		default:
			c.fail(fmt.Errorf("unknown value kind %d", h&7))
		}
	}
	return nil
}
